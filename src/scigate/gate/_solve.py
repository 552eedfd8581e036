"""Gate 3, tool-enabled solving: an agent with the domain software must find the answer.

The solver works in a fresh workspace holding only question.md and options.json (and,
for an external command, prompt.md). It never sees answer.txt or the solution. Solved
means the returned option's value equals the proposed one; unsolved candidates keep
their reason and are flagged for review.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import time
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from scigate.gate._candidate import LETTERS, Candidate
from scigate.gate._coding_agent import AgentLimits, run_episode
from scigate.gate._screen import stated_letters
from scigate.gate._values import match_option, values_match

if TYPE_CHECKING:
    from scigate.llm import Recorder
    from scigate.store import Store

SOLVER_SYSTEM = """You are a computational scientist solving a multiple-choice question that \
needs real computation with scientific software. {workspace_note}
Your workspace holds question.md and options.json. Write and run code with run_python \
(or run_bash) to compute the quantity exactly as the question specifies; do not guess. \
When you are confident, call submit with the letter of the matching option."""

SOLVER_PROMPT = """{question}

Options:
{options}

Compute the answer with the software in your workspace, then call submit with the option letter."""

EXTERNAL_PROMPT = """Solve the multiple-choice question in question.md (options in options.json) \
in this directory. It requires computation with scientific software: {workspace_note}
Write and run code to compute the requested quantity exactly as specified.
When done, write only the letter of the chosen option (A, B, C or D) to answer.txt in this \
directory. You have {time_limit:g} seconds.

{question}

Options:
{options}
"""

#: The largest answer.txt a solver command may write (bytes); a larger one is an error.
ANSWER_FILE_LIMIT = 64 << 10

CREDENTIAL_PASSTHROUGH = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "CODEX_HOME")


class SolveResult(BaseModel):
    """The tool-enabled solver's verdict on one candidate."""

    solved: bool
    answer_value: str | None
    answer_raw: str | None = None
    answer_option: str | None = None
    seconds: float
    reason: str
    solver: str
    steps: int = 0
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    flagged_for_review: bool = False
    error: bool = False  # the solver itself failed (model error, command not runnable)
    transcript_tail: list[dict[str, Any]] | None = None


def solver_cmd_unsandboxed() -> bool:
    """Whether the user opted out of the sandbox for `--solver-cmd` (`--solver-cmd-unsandboxed`)."""
    return os.environ.get("SCIGATE_SOLVER_CMD_UNSANDBOXED", "") == "1"


def grade_answer(candidate: Candidate, raw: str | None) -> tuple[str | None, str | None]:
    """Map a returned letter or value onto an option: (option letter, option value)."""
    if raw is None:
        return None, None
    text = raw.strip()
    m = re.fullmatch(r"\(?([A-Da-d])\)?[.)]?", text)
    stated = [m.group(1).upper()] if m else stated_letters(text)
    if len(stated) > 1:  # "Answer: A or B" names no one option
        return None, text
    if stated:
        letter = stated[0]
        if not _letter_stands(text, letter, candidate):
            return None, text  # "C (2.858)" where 2.858 is A's value names no one option
        return letter, candidate.options[letter]
    hits = match_option(text, candidate.options)
    if len(hits) == 1:
        return hits[0], candidate.options[hits[0]]
    named = [letter for letter in LETTERS if _scored_as(text, letter, candidate)]
    if len(named) == 1:  # "B (0.285714)": a letter with its own option's value
        return named[0], candidate.options[named[0]]
    return None, text or None


def _scored_as(text: str, letter: str, candidate: Candidate, outcome: str = "correct") -> bool:
    """The project's scorer (`scigate.agents.score_answer`, multiple choice, as `agent
    eval` uses it) judges `text` against option `letter` with this outcome."""
    from scigate.agents import Task, score_answer

    task = Task(question=candidate.question, options=candidate.options, format="multiple choice")
    return score_answer(text, letter, task).outcome == outcome


def _letter_stands(text: str, letter: str, candidate: Candidate) -> bool:
    """False when the reply's final statement quotes another option's value beside its
    letter ("C (2.858)" where 2.858 is option A's value)."""
    last = list(re.finditer(rf"\b{letter}\b", text, re.IGNORECASE))
    statement = text[last[-1].start() :] if last else text
    return not _scored_as(statement, letter, candidate, "wrong")


def _verdict(
    candidate: Candidate, raw: str | None, stop_reason: str, solver: str, seconds: float
) -> SolveResult:
    option, value = grade_answer(candidate, raw)
    proposed = candidate.answer_value or ""
    if raw is None or not raw.strip():
        reason = (
            stop_reason
            if stop_reason.startswith(("timeout", "no answer"))
            else f"no answer: {stop_reason}"
        )
        solved = False
    elif option is not None and values_match(candidate.options[option], proposed):
        solved, reason = True, f"solved: answered {option} ({value})"
    elif option is None:
        solved, reason = False, f"wrong answer: {raw.strip()[:80]!r} matches no option"
    else:
        solved, reason = False, f"wrong answer: chose {option} ({value})"
    return SolveResult(
        solved=solved,
        answer_value=value if option else None,
        answer_raw=raw,
        answer_option=option,
        seconds=round(seconds, 3),
        reason=reason,
        solver=solver,
        flagged_for_review=not solved,
    )


def _options_text(candidate: Candidate) -> str:
    return "\n".join(f"({k}) {candidate.options[k]}" for k in LETTERS)


async def solve_with_model(
    candidate: Candidate,
    spec: str,
    *,
    time_limit: float = 300.0,
    max_steps: int = 40,
    max_tokens: int | None = 500_000,
    domain: str = "fenicsx",
    store: Store | None = None,
    run_id: str | None = None,
    recorder: Recorder | None = None,
) -> SolveResult:
    """The built-in agent (run_python, run_bash, submit) solves the candidate with the
    `domain`'s software (its run_python calls fork from a warm, pre-imported Python).

    Its model calls go to `recorder`, or with a `store` to that run database (role
    `solver`)."""
    from scigate import sandbox
    from scigate.domains import get_domain
    from scigate.llm import get_model

    dom = get_domain(domain)
    if recorder is None and store is not None:
        recorder = store.recorder(run_id=run_id, candidate_id=candidate.id, role="solver")
    model = get_model(spec, recorder=recorder)
    workspace = sandbox.fresh_workspace()
    try:
        for name, text in candidate.public_files().items():
            (workspace / name).write_text(text)
        episode = await run_episode(
            model,
            workspace=workspace,
            system=SOLVER_SYSTEM.format(workspace_note=dom.workspace_note),
            user=SOLVER_PROMPT.format(
                question=candidate.question, options=_options_text(candidate)
            ),
            limits=AgentLimits(
                wall_seconds=time_limit,
                max_steps=max_steps,
                max_tokens=max_tokens,
                preload=dom.preload,
            ),
        )
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
    result = _verdict(candidate, episode.answer, episode.reason, spec, episode.seconds)
    if episode.answer is None and episode.reason.startswith("model error"):
        result.error = True
        result.reason = f"error: the solver could not run ({episode.reason})"
    result.steps = len(episode.steps)
    result.model_calls = episode.model_calls
    result.input_tokens = episode.usage.input_tokens
    result.output_tokens = episode.usage.output_tokens
    result.cost = episode.cost
    result.transcript_tail = episode.messages[-6:]
    return result


async def solve_with_command(
    candidate: Candidate,
    command: str,
    *,
    time_limit: float = 300.0,
    domain: str = "fenicsx",
    unsandboxed: bool | None = None,
) -> SolveResult:
    """An external agent command solves the candidate and writes answer.txt.

    `unsandboxed` (default: $SCIGATE_SOLVER_CMD_UNSANDBOXED, the user's opt-out) runs it
    without the sandbox's isolation."""
    from scigate import sandbox
    from scigate.domains import get_domain

    workspace_note = get_domain(domain).workspace_note
    workspace = sandbox.fresh_workspace()
    started = time.monotonic()
    try:
        for name, text in candidate.public_files().items():
            (workspace / name).write_text(text)
        prompt = workspace / "prompt.md"
        prompt.write_text(
            EXTERNAL_PROMPT.format(
                question=candidate.question,
                options=_options_text(candidate),
                workspace_note=workspace_note,
                time_limit=time_limit,
            )
        )
        cmd = command.replace("{workspace}", shlex.quote(str(workspace))).replace(
            "{prompt_file}", shlex.quote(str(prompt))
        )
        # The external agent is the user's own program: it keeps its credentials and
        # network, and runs in the same isolation as everything else (it sees only its
        # workspace), unless the user opted out (`--solver-cmd-unsandboxed`).
        env = {k: os.environ[k] for k in CREDENTIAL_PASSTHROUGH if k in os.environ}
        if unsandboxed is None:
            unsandboxed = solver_cmd_unsandboxed()
        named = sandbox.named_paths(command)  # the files the command names, read-only
        run = await sandbox.arun(
            cmd,
            workspace=workspace,
            env=env,
            limits=sandbox.Limits(
                wall_seconds=time_limit,
                network=True,
                memory_bytes=None,
                unisolated=unsandboxed,
                read_only_paths=named,
            ),
        )
        unreadable = None
        try:  # the command's own file: no link followed, no FIFO opened, size capped
            raw = sandbox.read_text_if_exists(
                workspace, "answer.txt", limit=ANSWER_FILE_LIMIT, errors="replace"
            )
        except sandbox.UnsafeWorkspaceFile as exc:
            raw, unreadable = None, str(exc)
        raw = raw.strip() if raw is not None else None
        if unreadable is not None:
            stop = f"error: the solver's answer cannot be used: {unreadable}"
        elif run.timed_out and not raw:
            stop = f"timeout: no answer.txt within {time_limit:g} s"
        elif not raw:
            stop = f"no answer: the command wrote no answer.txt ({run.reason})"
        else:
            stop = run.reason
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
    result = _verdict(candidate, raw, stop, f"cmd:{command}", time.monotonic() - started)
    if unreadable is not None:  # a link, FIFO or oversized answer.txt: the solver failed
        result.error = True
        result.reason = stop
    elif not raw and run.exit_code in (126, 127):  # the shell could not run the command
        result.error = True
        result.reason = f"error: the solver command could not run ({run.reason})"
    return result
