"""One task's run and score: the method on the task, the answer assessed by the typed rules
(or a judge where they cannot decide), the tool chain scored, the row recorded.

Apart from the harness (`_eval`), so the harness and the distributed workers
(`_distributed`) both build on it without importing each other."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import Field

from scigate._bounds import check_bounds
from scigate.agents._baselines import BASELINES
from scigate.agents._context import DEFAULT_MAX_TOOLS, AgentContext, ModelLike
from scigate.agents._evalrow import EvalRow
from scigate.agents._evo import EvoAgent, EvoConfig, path_matches, strict_reward
from scigate.agents._parse import final_answer
from scigate.agents._prompts import JUDGE, JUDGE_SYSTEM
from scigate.agents._records import Task, Trajectory, Usage
from scigate.agents._scoring import canonical_names, parse_judge_reply, score_answer, tool_scores
from scigate.errors import BadInput, RunStopped
from scigate.llm import cache_sample

METHODS = ("direct", "cot", "rag", "react", "reflexion", "scitoolagent", "evo")


def check_method(method: str) -> str:
    """The method name, or BadInput listing the valid ones."""
    if method not in METHODS:
        raise BadInput(f"unknown method {method!r}; expected one of {', '.join(METHODS)}")
    return method


@dataclass
class AnswerVerdict:
    """How one answer was decided. `outcome`: correct | wrong | unjudged | no-reference;
    `how`: rule | llm | unjudged (no judge, or an empty reply) | unjudged-reply (the
    judge's reply gave no readable decision) | no-reference; `kind` and `reason` are the
    rules' (the judge's decision appended when it was asked); `judge_reply` is its text."""

    outcome: str
    how: str
    kind: str | None
    reason: str
    judge_reply: str | None = None

    @property
    def verdict(self) -> bool | None:
        return {"correct": True, "wrong": False}.get(self.outcome)

    def record(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "by": self.how, "kind": self.kind, "reason": self.reason}


async def assess_answer(
    judge: ModelLike | None, task: Task, predicted: str | None
) -> AnswerVerdict:
    """The answer decided by the rules (`score_answer`) where they can; else by the LLM
    judge, if there is one, with the Appendix D prompt and its reply read strictly; else
    `unjudged`, never right or wrong. A failing judge call raises: the caller decides."""
    if task.answer is None:
        return AnswerVerdict(
            "no-reference", "no-reference", None, "the task has no reference answer"
        )
    rules = score_answer(predicted, task.answer, task)
    if rules.outcome != "unjudged":
        return AnswerVerdict(rules.outcome, "rule", rules.kind, rules.reason)
    if judge is None or not predicted:
        why = "no judge configured" if judge is None else "empty reply"
        return AnswerVerdict("unjudged", "unjudged", rules.kind, f"{rules.reason}; {why}")
    out = await judge.generate(
        [
            {"role": "system", "content": JUDGE_SYSTEM},
            {
                "role": "user",
                "content": JUDGE.format(
                    question=task.prompt_text(),
                    reference=task.answer,
                    predicted=final_answer(predicted) or predicted,
                ),
            },
        ],
        temperature=0,
    )
    decided = parse_judge_reply(out.text)
    if decided is None:
        return AnswerVerdict(
            "unjudged",
            "unjudged-reply",
            rules.kind,
            f"{rules.reason}; the judge's reply gave no readable decision",
            out.text,
        )
    outcome = "correct" if decided else "wrong"
    said = "Yes" if decided else "No"
    return AnswerVerdict(outcome, "llm", rules.kind, f"{rules.reason}; judge: {said}", out.text)


async def judge_answer(
    judge: ModelLike | None, task: Task, predicted: str | None
) -> tuple[bool | None, str]:
    """(verdict, how) of `assess_answer`: True/False when the rules or the judge decided,
    None when unjudged or the task has no reference answer."""
    a = await assess_answer(judge, task, predicted)
    return a.verdict, a.how


@dataclass
class EvalConfig:
    """What one evaluation runs; each numeric field's range declared once, here
    (`scigate._bounds`: `check` and the CLI's flags read these declarations)."""

    method: str
    runs: Annotated[int, Field(ge=1, le=1_000)] = 1
    # each task this many times in every run (inspect_ai's --epochs; baselines only)
    epochs: Annotated[int, Field(ge=1, le=1_000)] = 1
    known_ratio: Annotated[float, Field(ge=0, le=1)] = 0.5
    split_seed: Annotated[int, Field(ge=0, le=2**63 - 1)] = 0
    temperature: Annotated[float, Field(ge=0, le=2)] = 0.3
    evo: EvoConfig = field(default_factory=EvoConfig)
    accumulate: bool = True  # False: the "w/o knowledge accumulation" ablation
    memory: str | None = None  # evo memory file (per run suffix when runs > 1)
    # function tools a request offers (--max-tools): a retrieved top-k plus search_tools
    max_tools: Annotated[int, Field(ge=2, le=1_024)] = DEFAULT_MAX_TOOLS
    # tasks in flight at once (Evo: runs in flight; its tasks run in order, each learning
    # from the ones before); model calls are further limited per endpoint by the llm layer
    concurrency: Annotated[int, Field(ge=1, le=1_024)] = 1

    def check(self) -> None:
        """`BadValue` (one line naming the field) for a setting outside its range."""
        check_bounds(self)
        check_bounds(self.evo)
        if self.method == "evo" and self.epochs > 1:
            raise BadInput(
                "--epochs repeats each task independently, and Evo learns from every task "
                "it answers: its independent repetitions are --runs (a memory each)"
            )


async def run_method(
    method: str, ctx: AgentContext, task: Task, agent: EvoAgent | None = None
) -> Trajectory:
    """One task with one method (Evo needs its agent)."""
    if method == "evo":
        if agent is None:
            raise ValueError("method 'evo' needs an EvoAgent")
        return await agent.solve(ctx, task)
    return await BASELINES[check_method(method)](ctx, task)


def _reason(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split()) or 'no detail'}"


async def score_task(
    config: EvalConfig,
    ctx: AgentContext,
    task: Task,
    *,
    run: int,
    index: int,
    agent: EvoAgent | None,
    judge: ModelLike | None,
    aliases: dict[str, str],
    epoch: int = 0,
) -> tuple[EvalRow, Trajectory]:
    """Run and score one task (its `epoch`-th repetition in the run). A failing model or judge call makes the row's status
    `error` with the reason; it never propagates (bad input and interrupts do).

    Evo learns from the task only after it is scored, from the strict score the row
    reports (the answer as the rules or the judge decided it and, with a reference path,
    the chain): a chain that merely ran, or an unjudged answer, teaches nothing.

    Its model calls are one sample of the response cache (run, epoch and task index), so
    the repetitions of `--runs` and `--epochs` stay independent when cached."""
    with cache_sample("agent-task", run, epoch, index):
        row, traj = await _score_task(
            config, ctx, task, run=run, index=index, agent=agent, judge=judge, aliases=aliases
        )
    row.epoch = epoch
    return row, traj


async def _score_task(
    config: EvalConfig,
    ctx: AgentContext,
    task: Task,
    *,
    run: int,
    index: int,
    agent: EvoAgent | None,
    judge: ModelLike | None,
    aliases: dict[str, str],
) -> tuple[EvalRow, Trajectory]:
    started = time.perf_counter()
    evo = agent is not None and config.method == "evo"
    try:
        if evo:
            traj = await agent.solve(ctx, task, learn=False)  # type: ignore[union-attr]
        else:
            traj = await run_method(config.method, ctx, task, agent)
    except (BadInput, RunStopped):
        raise
    except Exception as exc:  # one broken task must not lose the run
        traj = Trajectory(
            method=config.method,
            question=task.question,
            error=_reason(exc),
            usage=ctx.usage,
            events=ctx.events,
        )
    traj.wall_seconds = time.perf_counter() - started
    verdict, error = await _assess(task, traj, judge)
    learned = None
    if evo and error is None:
        assert agent is not None and verdict is not None
        path = path_matches(task, traj, aliases)
        checks: list[bool | None] = [] if path is None else [path]
        if task.answer is not None:
            checks.append(verdict.verdict)
        reward = strict_reward(checks)
        began = time.perf_counter()
        try:
            out = await agent.learn_from(ctx, traj, reward)
            learned = {
                "reward": reward,
                "updated": out is not None,
                "skill": (out or {}).get("skill"),
                "migrated": (out or {}).get("migrated", []),
            }
        except (BadInput, RunStopped):
            raise
        except Exception as exc:
            error = f"learning: {_reason(exc)}"
        traj.wall_seconds += time.perf_counter() - began
    row = _row(task, traj, verdict, error, run=run, index=index, aliases=aliases)
    row.learned = learned
    _add_reranker(row, ctx.reranker_usage)
    return row, traj


async def _assess(
    task: Task, traj: Trajectory, judge: ModelLike | None
) -> tuple[AnswerVerdict | None, str | None]:
    """(the answer's verdict, None) or (None, the error: the method's or the judge's)."""
    if traj.error is not None:
        return None, traj.error
    try:
        return await assess_answer(judge, task, traj.answer), None
    except (BadInput, RunStopped):
        raise
    except Exception as exc:
        return None, f"judge: {_reason(exc)}"


async def score_trajectory(
    task: Task,
    traj: Trajectory,
    *,
    run: int,
    index: int,
    judge: ModelLike | None,
    aliases: dict[str, str],
    reranker: Usage | None = None,
) -> EvalRow:
    """The row of one finished trajectory: its answer judged (a failing judge makes the
    status `error`), its tool chain scored, its cost."""
    verdict, error = await _assess(task, traj, judge)
    row = _row(task, traj, verdict, error, run=run, index=index, aliases=aliases)
    _add_reranker(row, reranker)
    return row


def _row(
    task: Task,
    traj: Trajectory,
    verdict: AnswerVerdict | None,
    error: str | None,
    *,
    run: int,
    index: int,
    aliases: dict[str, str],
) -> EvalRow:
    """One task's record: both chains as scored (n/a tool scores without a reference
    path), the answer's verdict (who decided, the answer kind, the reason, the judge's
    reply), its cost (with the calls that had no price)."""
    if error is not None:
        status, how = "error", ("judge-error" if error.startswith("judge: ") else "error")
    else:
        assert verdict is not None
        status, how = verdict.outcome, verdict.how
    decided = None if verdict is None or error is not None else verdict.verdict
    predicted = canonical_names(traj.scored_chain, aliases)
    reference = canonical_names(task.tool_path, aliases)
    ts: dict[str, float | None] = (
        dict(tool_scores(predicted, reference))
        if reference
        else {"exact": None, "set_f1": None, "lcs": None}
    )
    u: Usage = traj.usage
    return EvalRow.of(
        {
            "run": run,
            "index": index,
            "line": task.line,
            "level": task.level,
            "domain": task.domain,
            "question": task.question,
            "predicted_chain": predicted,
            "executed_chain": canonical_names(traj.chain, aliases),
            "reference_chain": reference,
            "tool_exact": ts["exact"],
            "tool_set_f1": ts["set_f1"],
            "tool_lcs": ts["lcs"],
            "answer": traj.answer,
            "reference_answer": task.answer,
            "status": status,
            "answer_correct": None if decided is None else float(decided),
            "judged_by": how,
            "verdict": None if verdict is None or error is not None else verdict.record(),
            "judge_reply": None if verdict is None else verdict.judge_reply,
            "learned": None,  # Evo: the reward it learned from and what it added
            "route": traj.route,
            "executed_ok": traj.executed_ok,
            "error": error,
            "calls": u.calls,
            "unpriced_calls": u.unpriced_calls,
            "input_tokens": u.input_tokens,
            "output_tokens": u.output_tokens,
            "latency": u.latency,
            "cost": u.cost,
            "estimated_tokens": u.estimated_tokens,
            "wall_seconds": traj.wall_seconds,
            "model_free_seconds": max(0.0, traj.wall_seconds - u.latency),
        }
    )


def _add_reranker(row: EvalRow, reranker: Usage | None) -> None:
    r = reranker or Usage()
    row.reranker_calls = r.calls
    row.reranker_input_tokens = r.input_tokens
    row.reranker_output_tokens = r.output_tokens
