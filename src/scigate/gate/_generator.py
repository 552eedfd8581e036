"""Candidate generators: an LLM agent in a domain workspace, or computed templates.

The LLM generator's prompt holds the domain guide, the seed items, outcome counts, the
20 most recent records and a summary of repeated local-verification failures that asks
it to change approach. It writes a candidate directory in its workspace; its own runs
are not evidence (gate 1 re-verifies the saved solution).
"""

from __future__ import annotations

import asyncio
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from scigate.errors import BadInput
from scigate.gate._candidate import Candidate, load_candidate
from scigate.gate._coding_agent import AgentLimits, run_episode

RECENT_RECORDS = 20


class Generated(BaseModel):
    """One generation attempt: a candidate, or the reason there is none."""

    candidate: Candidate | None = None
    reason: str = ""
    seconds: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    model_calls: int = 0


class Generator(Protocol):
    """Produces one candidate per round."""

    name: str

    async def generate(self, round_index: int, feedback: Feedback) -> Generated: ...


class Feedback(BaseModel):
    """What the generator is told about earlier rounds (in-loop outcomes only)."""

    counts: dict[str, int] = {}
    recent: list[dict[str, Any]] = []
    repeated_failures: list[tuple[str, int]] = []

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


def failure_key(reason: str) -> str:
    """Group verification failures that share a cause (numbers and paths removed)."""
    key = re.sub(r"/[\w./-]+", "<path>", reason)
    key = re.sub(r"\d+(\.\d+)?", "N", key)
    return key[:160]


def build_feedback(store: Any, run_id: str) -> Feedback:
    """Outcome counts, recent records and repeated verification failures of a run."""
    attempts = sorted(store.attempts(run_id), key=lambda a: a["round"], reverse=True)
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
    return Feedback(counts=dict(counts), recent=recent, repeated_failures=repeated)


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
    """An LLM agent with run_python, run_bash and submit that writes one candidate per round."""

    def __init__(
        self,
        spec: str,
        *,
        domain: Any,
        store: Any = None,
        run_id: str | None = None,
        limits: AgentLimits | None = None,
        seeds_in_prompt: int = 5,
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
        self.seed_text = render_seeds(domain.seed_dirs()[:seeds_in_prompt])

    async def generate(self, round_index: int, feedback: Feedback) -> Generated:
        """Run one generator episode and read the candidate it wrote."""
        from scigate import sandbox

        recorder = None
        if self.store is not None:
            recorder = self.store.recorder(run_id=self.run_id, role="generator")
        model = self._get_model(self.name, recorder=recorder)
        workspace = sandbox.fresh_workspace()
        user = (
            f"{self.seed_text}\n\n{feedback.render()}\n\n"
            f"This is round {round_index}. Write a new candidate now."
        )
        try:
            episode = await run_episode(
                model, workspace=workspace, system=self.system, user=user, limits=self.limits
            )
            usage = {
                "input_tokens": episode.usage.input_tokens,
                "output_tokens": episode.usage.output_tokens,
                "model_calls": episode.model_calls,
                "seconds": episode.seconds,
            }
            cdir = workspace / "candidate"
            if not cdir.is_dir():
                return Generated(
                    reason=f"generator wrote no candidate/ directory ({episode.reason})", **usage
                )
            try:
                cand = await asyncio.to_thread(load_candidate, cdir)
            except BadInput as exc:
                return Generated(reason=f"malformed candidate: {exc}", **usage)
            cand.path = None
            cand.meta = {**cand.meta, "domain": self.domain.name, "generator": self.name}
            return Generated(candidate=cand, reason=episode.reason, **usage)
        finally:
            shutil.rmtree(workspace, ignore_errors=True)


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
        self._families = families
        self._workers = max(1, workers)
        self._pool: asyncio.Queue[Any] | None = None
        self._made = 0

    def _new_generator(self) -> Any:
        return self.domain.template_generator(self.seed, families=self._families)

    async def _acquire(self) -> Any:
        if self._pool is None:
            self._pool = asyncio.Queue()
        if self._pool.empty() and self._made < self._workers:
            self._made += 1
            return await asyncio.to_thread(self._new_generator)
        return await self._pool.get()

    async def generate(self, round_index: int, feedback: Feedback) -> Generated:
        """Generate the round's candidate from the templates (deterministic in seed and round)."""
        import time

        from scigate._tmp import scigate_mkdtemp

        t0 = time.perf_counter()
        gen = await self._acquire()
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
