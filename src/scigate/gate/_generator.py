"""Candidate generators: an LLM agent in a domain workspace, or computed templates.

The LLM generator's prompt holds the domain guide, the seed items, outcome counts, the
20 most recent records (including the finished gates of rounds still in flight), the
run's counts of proposed letters and value ranks with a request for balance, and a
summary of repeated local-verification failures that asks it to change approach. It
writes a candidate directory in its workspace; its own runs are not evidence (gate 1
re-verifies the saved solution).
"""

from __future__ import annotations

import asyncio
import random
import re
import shutil
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel

from scigate.errors import BadInput
from scigate.gate._candidate import LETTERS, Candidate, load_candidate
from scigate.gate._coding_agent import AgentLimits, run_episode
from scigate.gate._values import value_rank

if TYPE_CHECKING:
    from scigate.store import Store

RECENT_RECORDS = 20
#: Status of a round whose candidate is still in later gates (its finished gates are listed).
IN_PROGRESS = "in-progress"


class Generated(BaseModel):
    """One generation attempt: a candidate, or the reason there is none."""

    candidate: Candidate | None = None
    reason: str = ""
    seconds: float = 0.0  # the generator's own working time (no queueing)
    input_tokens: int = 0
    output_tokens: int = 0
    model_calls: int = 0
    seeds: list[str] = []  # the seed items shown in the prompt


class Generator(Protocol):
    """Produces one candidate per round."""

    name: str
    #: True when the prompt uses the feedback: the loop then starts a round's generation
    #: only after the previous round's gate 1 has finished.
    uses_feedback: bool

    async def generate(self, round_index: int, feedback: Feedback) -> Generated: ...


class Feedback(BaseModel):
    """What the generator is told about earlier rounds (in-loop outcomes only)."""

    counts: dict[str, int] = {}
    recent: list[dict[str, Any]] = []
    repeated_failures: list[tuple[str, int]] = []
    letters: dict[str, int] = {}  # proposed answer letters so far
    ranks: dict[int, int] = {}  # value rank of the proposal among numeric options (1 = smallest)

    def render(self) -> str:
        """The feedback section of the generator's prompt."""
        lines = ["## Outcomes so far"]
        if not self.counts:
            lines.append("No earlier rounds in this run.")
        else:
            lines.append(", ".join(f"{k}: {v}" for k, v in sorted(self.counts.items())))
        if self.recent:
            lines.append(f"\n## The {len(self.recent)} most recent records (newest first)")
            for r in self.recent:
                family = f" [{r['family']}]" if r.get("family") else ""
                lines.append(f"- round {r['round']}{family}: {r['status']}: {r['reason'][:240]}")
        lines += self._balance()
        if self.repeated_failures:
            lines.append("\n## Repeated local-verification failures")
            for reason, n in self.repeated_failures:
                lines.append(f"- {n} times: {reason}")
            lines.append(
                "These failures recur. Change your approach: fix the cause (API usage, "
                "output format, runtime) or choose a different kind of question, and run "
                "your solution.py yourself before submitting."
            )
        return "\n".join(lines)

    def _balance(self) -> list[str]:
        if not self.letters:
            return []
        letters = ", ".join(f"{k} {self.letters.get(k, 0)}" for k in LETTERS)
        ranks = ", ".join(f"{_ordinal(k)} {self.ranks.get(k, 0)}" for k in range(1, 5))
        return [
            "\n## Answer balance so far",
            f"Proposed answer letters: {letters}.",
            f"Value rank of the proposed answer among numeric options (1st = smallest): {ranks}.",
            "Keep both balanced: give the correct answer the letter and the value rank that "
            "are least used so far, and compute distractors both above and below it, so "
            "that neither the letter nor the middle-value heuristic reveals the answer.",
        ]


def _ordinal(k: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(k, f"{k}th")


def failure_key(reason: str) -> str:
    """Group verification failures that share a cause (numbers and paths removed)."""
    key = re.sub(r"/[\w./-]+", "<path>", reason)
    key = re.sub(r"\d+(\.\d+)?", "N", key)
    return key[:160]


def build_feedback(store: Store, run_id: str) -> Feedback:
    """Outcome counts, recent records, letter and value-rank balance and repeated
    verification failures of a run.

    A round still in flight (generated, no attempt row yet) appears with the outcomes
    of the gates it has finished, so the generator sees every finished gate.
    """
    finished = store.attempts(run_id)
    done = {a["round"] for a in finished}
    generated = _generated_rounds(store, run_id)
    in_flight = [_in_flight(store, run_id, r, cid) for r, cid in generated if r not in done]
    attempts = finished + [a for a in in_flight if a is not None]
    attempts.sort(key=lambda a: a["round"], reverse=True)
    counts = Counter(a["status"] for a in attempts)
    families: dict[str, str | None] = {}
    for a in attempts[:RECENT_RECORDS]:
        cid = a.get("candidate_id")
        if cid and cid not in families:
            rec = store.get_candidate(cid)
            families[cid] = rec.family if rec else None
    recent = [
        {
            "round": a["round"],
            "status": a["status"],
            "reason": a.get("reason") or "",
            "family": families.get(a.get("candidate_id") or ""),
        }
        for a in attempts[:RECENT_RECORDS]
    ]
    verify_failures = Counter(
        failure_key(a.get("reason") or "")
        for a in attempts
        if a["status"] in ("rejected-verify", "generator-failed")
    )
    repeated = [(k, n) for k, n in verify_failures.most_common(5) if n >= 2]
    letters, ranks = _balance_counts(store, run_id, [cid for _, cid in generated])
    return Feedback(
        counts=dict(counts),
        recent=recent,
        repeated_failures=repeated,
        letters=letters,
        ranks=ranks,
    )


def _generated_rounds(store: Store, run_id: str) -> list[tuple[int, str]]:
    """(round, candidate id) of every round of the run that produced a candidate."""
    rounds: dict[int, str] = {}
    for event in store.events(run_id, kind="generated"):
        r, cid = event["data"].get("round"), event["data"].get("candidate_id")
        if isinstance(r, int) and cid:
            rounds.setdefault(r, cid)
    return sorted(rounds.items())


def _in_flight(store: Store, run_id: str, r: int, cid: str) -> dict[str, Any] | None:
    """A round still in its gates, as a record of the gates it has finished (None: none yet)."""
    results = store.gate_results(run_id=run_id, candidate_id=cid)
    if not results:
        return None
    gates = "; ".join(
        f"{g['gate']}{' ' + g['screen'] if g['screen'] else ''}: {g['outcome']}"
        + (f" ({g['reason']})" if g["outcome"] != "pass" and g["reason"] else "")
        for g in results
    )
    return {
        "round": r,
        "candidate_id": cid,
        "status": IN_PROGRESS,
        "reason": f"later gates still running; finished: {gates}",
    }


def _balance_counts(
    store: Store, run_id: str, cids: list[str]
) -> tuple[dict[str, int], dict[int, int]]:
    """Counts of the proposed letters and value ranks over the run's rounds (one query)."""
    records = {r["id"]: r for r in store.generated_candidates(run_id)}
    letters: Counter[str] = Counter()
    ranks: Counter[int] = Counter()
    for cid in cids:
        rec = records.get(cid)
        if rec is None or rec["answer"] not in rec["options"]:
            continue
        letters[rec["answer"]] += 1
        rank = value_rank(rec["options"], rec["answer"])
        if rank is not None:
            ranks[rank] += 1
    return dict(letters), dict(ranks)


GENERATOR_SYSTEM = """You write benchmark items for tool-dependent scientific evaluation in the \
{domain} domain. Each item is a multiple-choice question whose answer can only be obtained \
by running the domain software; a solution script must reproduce the answer exactly.

{guide}

## Output format
Create the directory `candidate/` in your workspace with these files:
- `candidate/question.md`: the public question, fully specified, asking for a value in an exact format;
- `candidate/options.json`: {{"A": "...", "B": "...", "C": "...", "D": "..."}}: four distinct options;
  the three distractors come from realistic modeling or implementation mistakes that you computed;
- `candidate/answer.txt`: the letter of the correct option, one line;
- `candidate/solution.py`: run from inside the directory (without answer.txt) it prints exactly one
  non-empty line on stdout, the answer value formatted as the question asks; diagnostics go to stderr;
- `candidate/meta.json` (optional): {{"family": "...", "topic": "..."}}.
Run `python solution.py` inside `candidate/` yourself before you finish. Balance where the correct
value falls among the options (smallest, second, third, largest) and which letter it gets.
When the files are written, call submit with the answer "done"."""


class LLMGenerator:
    """An LLM agent with run_python, run_bash and submit that writes one candidate per round.

    The prompt holds `seeds_in_prompt` of the domain's expert seed items: the first ones,
    or with `rotate_seeds` a window that moves through a `seed`-shuffled order each round.
    """

    uses_feedback = True

    def __init__(
        self,
        spec: str,
        *,
        domain: Any,
        store: Store | None = None,
        run_id: str | None = None,
        limits: AgentLimits | None = None,
        seeds_in_prompt: int = 5,
        rotate_seeds: bool = False,
        seed: int = 0,
    ):
        from scigate.llm import get_model

        self.name = spec
        self.domain = domain
        self.store = store
        self.run_id = run_id
        self.limits = limits or AgentLimits()
        self._get_model = get_model
        get_model(spec)  # fail fast on a bad spec
        self.system = GENERATOR_SYSTEM.format(domain=domain.name, guide=domain.guide())
        self.seed_dirs = domain.seed_dirs()
        if seeds_in_prompt > len(self.seed_dirs):
            raise BadInput(
                f"--seeds-in-prompt {seeds_in_prompt}: the {domain.name} domain has "
                f"{len(self.seed_dirs)} seed items"
            )
        self.seeds_in_prompt = seeds_in_prompt
        self.rotate_seeds = rotate_seeds
        self.seed = seed

    def seeds_for_round(self, round_index: int) -> list[Path]:
        """The seed items shown in round `round_index` (deterministic in seed and round)."""
        picked = seed_selection(
            len(self.seed_dirs),
            self.seeds_in_prompt,
            round_index=round_index,
            seed=self.seed,
            rotate=self.rotate_seeds,
        )
        return [self.seed_dirs[i] for i in picked]

    async def generate(self, round_index: int, feedback: Feedback) -> Generated:
        """Run one generator episode and read the candidate it wrote."""
        from scigate import sandbox

        recorder = None
        if self.store is not None:
            recorder = self.store.recorder(run_id=self.run_id, role="generator")
        model = self._get_model(self.name, recorder=recorder)
        seeds = self.seeds_for_round(round_index)
        seed_text = await asyncio.to_thread(render_seeds, seeds) if seeds else ""
        workspace = sandbox.fresh_workspace()
        # the episode's runs and its candidate's gate 1 (the same author) share compiled
        # forms: gate 1 loads what the episode's own runs of solution.py compiled
        scope = sandbox.new_forms_scope()
        parts = [seed_text] if seed_text else []
        parts += [feedback.render(), f"This is round {round_index}. Write a new candidate now."]
        user = "\n\n".join(parts)
        try:
            episode = await run_episode(
                model,
                workspace=workspace,
                system=self.system,
                user=user,
                limits=self.limits,
                forms_scope=scope,
            )
            usage = {
                "input_tokens": episode.usage.input_tokens,
                "output_tokens": episode.usage.output_tokens,
                "model_calls": episode.model_calls,
                "seconds": episode.seconds,
                "seeds": [d.name for d in seeds],
            }
            # The workspace is the model's: `candidate` and its files are read without
            # following links (a symlink to a host file must not reach the run database).
            try:
                kind = sandbox.entry_kind(workspace, "candidate")
            except BadInput as exc:
                return Generated(reason=f"malformed candidate: {exc}", **usage)
            if kind is None:
                return Generated(
                    reason=f"generator wrote no candidate/ directory ({episode.reason})", **usage
                )
            if kind != "directory":
                article = {"symlink": "a symlink", "fifo": "a FIFO"}.get(kind, f"a {kind}")
                return Generated(
                    reason=f"malformed candidate: candidate is {article}, not a directory",
                    **usage,
                )
            try:
                cand = await asyncio.to_thread(
                    load_candidate, workspace / "candidate", within=workspace
                )
            except BadInput as exc:
                return Generated(reason=f"malformed candidate: {exc}", **usage)
            cand.path = None
            cand.meta = {**cand.meta, "domain": self.domain.name, "generator": self.name}
            cand._forms_scope = scope
            return Generated(candidate=cand, reason=episode.reason, **usage)
        finally:
            shutil.rmtree(workspace, ignore_errors=True)


def seed_selection(
    available: int, n: int, *, round_index: int, seed: int, rotate: bool
) -> list[int]:
    """Indices of the `n` seed items for a round: the first `n`, or with `rotate` a window
    of `n` that advances by `n` each round through a `seed`-shuffled order (every seed
    item is shown before any is shown twice)."""
    if n <= 0 or available <= 0:
        return []
    n = min(n, available)
    if not rotate:
        return list(range(n))
    order = list(range(available))
    random.Random(f"seeds:{seed}").shuffle(order)
    start = (round_index * n) % available
    return [order[(start + i) % available] for i in range(n)]


def render_seeds(seed_dirs: list[Path]) -> str:
    """The expert seed items, in full, for the generator's prompt."""
    parts = ["## Expert seed items (examples of good candidates)"]
    for i, d in enumerate(seed_dirs, 1):
        c = load_candidate(d)
        opts = "\n".join(f"({k}) {v}" for k, v in c.options.items())
        parts.append(
            f"\n### Seed {i}\nquestion.md:\n{c.question}\n\noptions:\n{opts}\n\n"
            f"answer.txt: {c.answer}\n\nsolution.py:\n```python\n{c.solution.strip()}\n```"
        )
    return "\n".join(parts)


class TemplateCandidates:
    """The domain's computed template families (no model): distractors are computed mistakes.

    A template generator keeps a worker process with the domain software loaded and is
    not shared between threads: `workers` instances serve concurrent rounds.
    """

    def __init__(
        self, domain: Any, *, seed: int = 0, families: list[str] | None = None, workers: int = 1
    ):
        self.domain = domain
        self.seed = seed
        self.name = "templates"
        self.uses_feedback = False  # computed families: the feedback does not change them
        self._families = families
        self._workers = max(1, workers)
        self._pool: asyncio.Queue[Any] | None = None
        self._made = 0
        self._planner: Any = None  # draws parameters only: its worker never starts

    def _new_generator(self) -> Any:
        return self.domain.template_generator(self.seed, families=self._families)

    def close(self) -> None:
        """Stop the workers of the generators made so far (each generator is returned to
        the pool after its round, so at the end of a loop they are all there)."""
        while self._pool is not None and not self._pool.empty():
            self._pool.get_nowait().close()

    def _plans(self) -> Any:
        if self._planner is None:
            self._planner = self._new_generator()
        return self._planner

    def questions(self, round_index: int) -> list[str] | None:
        """The questions round `round_index`'s candidate may have, one per parameter draw
        in attempt order (no script runs; its worker is never started); None when the
        domain's generator does not tell them."""
        questions = getattr(self._plans(), "questions", None)
        if questions is None:
            return None
        return [q.strip() for q in questions(round_index)]

    def family_for(self, round_index: int) -> str:
        """The template family of round `round_index`."""
        return str(self._plans().family_for(round_index))

    async def _acquire(self) -> tuple[Any, float]:
        """A free worker, and the seconds spent starting it (waiting for one is not work)."""
        if self._pool is None:
            self._pool = asyncio.Queue()
        if self._pool.empty() and self._made < self._workers:
            self._made += 1
            t0 = time.perf_counter()
            gen = await asyncio.to_thread(self._new_generator)
            return gen, time.perf_counter() - t0
        return await self._pool.get(), 0.0

    async def generate(self, round_index: int, feedback: Feedback) -> Generated:
        """Generate the round's candidate from the templates (deterministic in seed and round)."""
        from scigate._tmp import scigate_mkdtemp

        gen, startup = await self._acquire()
        t0 = time.perf_counter() - startup  # the worker's own time, not the wait for it
        tmp = scigate_mkdtemp("tpl")
        try:
            out = await asyncio.to_thread(gen.generate, round_index, tmp / "candidate")
            cand = load_candidate(out)
            cand.path = None
            cand.meta = {**cand.meta, "domain": self.domain.name, "generator": "templates"}
            return Generated(
                candidate=cand,
                reason="generated from template",
                seconds=round(time.perf_counter() - t0, 3),
            )
        except Exception as exc:  # a template failure is an attempt outcome, not a crash
            return Generated(
                reason=f"template generation failed: {type(exc).__name__}: {exc}",
                seconds=round(time.perf_counter() - t0, 3),
            )
        finally:
            assert self._pool is not None
            self._pool.put_nowait(gen)
            shutil.rmtree(tmp, ignore_errors=True)
