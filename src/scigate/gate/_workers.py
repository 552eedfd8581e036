"""Where a gate run's sandboxed stages run: verification, invariance (gate 1b) and the
tool-enabled solvers. `GateWorkers` runs them in this process (the default); an
executor-backed runner (`scigate.gate.ExecutorWorkers`) sends them to workers. The loop
records what comes back either way, so the run database has one writer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from scigate.gate._candidate import Candidate
from scigate.gate._invariance import InvarianceResult, ainvariance
from scigate.gate._solve import SolveResult, solve_with_command, solve_with_model
from scigate.gate._verify import VerifyResult, averify

if TYPE_CHECKING:
    from scigate.llm import Recorder


class GateWorkers:
    """The sandboxed stages of a gate run, here in the driver process."""

    def describe(self, fem_workers: int) -> dict[str, Any]:
        """Which executor, how many workers and nodes ran the stages (for reports)."""
        return {"name": "local", "workers": fem_workers, "nodes": 1}

    def slots(self, fem: asyncio.Semaphore) -> asyncio.Semaphore:
        """The bound on sandbox runs in flight: here the driver's own (`--fem-workers`)."""
        return fem

    async def verify(self, cand: Candidate, *, timeout: float, domain: str) -> VerifyResult:
        """Gate 1 (see `verify`)."""
        return await averify(cand, timeout=timeout, domain=domain)

    async def invariance(
        self,
        cand: Candidate,
        *,
        reference: str | None,
        mpi_ranks: int,
        timeout: float,
        domain: str,
        forms: Mapping[str, str] | None = None,
    ) -> InvarianceResult:
        """Gate 1b (see `invariance`; `forms`: the candidate's gate-1 form map)."""
        return await ainvariance(
            cand,
            reference=reference,
            mpi_ranks=mpi_ranks,
            timeout=timeout,
            domain=domain,
            forms=forms,
        )

    async def solve_command(
        self, cand: Candidate, command: str, *, time_limit: float, domain: str
    ) -> SolveResult:
        """Gate 3 by an external command (see `solve_with_command`)."""
        return await solve_with_command(cand, command, time_limit=time_limit, domain=domain)

    async def solve_model(
        self,
        cand: Candidate,
        spec: str,
        *,
        recorder: Recorder | None,
        time_limit: float,
        max_steps: int,
        max_tokens: int | None,
        domain: str,
    ) -> SolveResult:
        """Gate 3 by the built-in agent (see `solve_with_model`); each of its model calls
        goes to `recorder`."""
        return await solve_with_model(
            cand,
            spec,
            time_limit=time_limit,
            max_steps=max_steps,
            max_tokens=max_tokens,
            domain=domain,
            recorder=recorder,
        )


def executor_text(ran_on: dict[str, Any]) -> str:
    """`ray (4 workers, 2 nodes)` for one `executor` event's data."""
    workers, nodes = ran_on.get("workers"), ran_on.get("nodes", 1)
    return (
        f"{ran_on.get('name')} ({workers} worker{'' if workers == 1 else 's'}, "
        f"{nodes} node{'' if nodes == 1 else 's'})"
    )


def executors_text(executors: list[dict[str, Any]]) -> str:
    """A run's `executor` events (its start, then each resume) in one line; a resume
    that ran elsewhere follows after `; then`."""
    shown: list[str] = []
    for ran_on in executors:
        text = executor_text(ran_on)
        if not shown or shown[-1] != text:
            shown.append(text)
    return "; then ".join(shown) or "not recorded"


def distinct_executors(executors: list[dict[str, Any]]) -> list[str]:
    """The different executors among `executors`, in order of first use."""
    return list(dict.fromkeys(executor_text(e) for e in executors))
