"""A gate run's sandboxed stages as executor jobs: the same `scigate.sandbox` runs, on workers.

Verification, invariance (gate 1b), `--solver-cmd` runs and the built-in solver agent
(whose tool calls execute code where the sandbox runs) each become one job. A worker's
sandbox (its warm runs go to the node's pool actor on Ray) gives the same guarantees as
a local run. The model solver's model is rebuilt from its spec on the
worker with a recorder that only collects the call records; they travel back with the
result and the driver writes them as the local path would (it stays the only writer of
the run database). A job that keeps failing is an error with the reason, never a verdict.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from scigate.errors import ScigateError
from scigate.executor import Executor, Job, JobResult
from scigate.gate._candidate import Candidate
from scigate.gate._invariance import InvarianceResult, invariance
from scigate.gate._solve import (
    SolveResult,
    solve_with_command,
    solve_with_model,
    solver_cmd_unsandboxed,
)
from scigate.gate._verify import VerifyResult, verify
from scigate.gate._workers import GateWorkers

if TYPE_CHECKING:
    from scigate.llm import ModelCallRecord, Recorder


def _solve_command_job(cand: Candidate, command: str, **kwargs: Any) -> SolveResult:
    """On a worker: `solve_with_command`."""
    return asyncio.run(solve_with_command(cand, command, **kwargs))


def _solve_model_job(
    cand: Candidate, spec: str, **kwargs: Any
) -> tuple[SolveResult, list[ModelCallRecord]]:
    """On a worker: `solve_with_model` with a model rebuilt from `spec`; (result, the
    records of its model calls, in call order)."""
    calls: list[ModelCallRecord] = []
    result = asyncio.run(solve_with_model(cand, spec, recorder=calls.append, **kwargs))
    return result, calls


class ExecutorWorkers(GateWorkers):
    """The sandboxed stages on `executor`'s workers (screens and generation stay in the
    driver). Verification that keeps failing raises (the round is recorded as an error);
    invariance and solving that keep failing return their stage's `error` result."""

    def __init__(self, executor: Executor) -> None:
        self.executor = executor

    def describe(self, fem_workers: int) -> dict[str, Any]:
        ran_on = self.executor.describe()
        return {**ran_on, "nodes": ran_on.get("nodes", 1)}

    def slots(self, fem: asyncio.Semaphore) -> asyncio.Semaphore:
        # The executor's workers bound the sandbox runs, not the driver's cores.
        return asyncio.Semaphore(max(1, self.executor.workers))

    async def _run(
        self, stage: str, cand: Candidate, fn: Any, *args: Any, cpus: int = 1, **kwargs: Any
    ) -> JobResult:
        return await self.executor.run(
            Job(id=f"{stage}:{cand.id}", fn=fn, args=(cand, *args), kwargs=kwargs, num_cpus=cpus)
        )

    def _failure(self, stage: str, result: JobResult) -> str:
        return (
            f"error: {stage} on the {self.executor.name} executor failed after "
            f"{result.attempts} attempts: {result.error}"
        )

    async def verify(self, cand: Candidate, *, timeout: float, domain: str) -> VerifyResult:
        result = await self._run("verify", cand, verify, timeout=timeout, domain=domain)
        if not result.ok:
            raise ScigateError(self._failure("verification", result).removeprefix("error: "))
        return result.value

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
        started = time.perf_counter()
        result = await self._run(
            "invariance",
            cand,
            invariance,
            cpus=mpi_ranks,  # the MPI check runs `mpi_ranks` processes at once
            reference=reference,
            mpi_ranks=mpi_ranks,
            timeout=timeout,
            domain=domain,
            forms=dict(forms or {}),
        )
        if result.ok:
            return result.value
        return InvarianceResult(
            passed=False,
            outcome="error",
            checks=[],
            reason=self._failure("invariance", result),
            seconds=round(time.perf_counter() - started, 3),
            reference=reference,
            proposed=cand.answer_value or "",
        )

    async def solve_command(
        self, cand: Candidate, command: str, *, time_limit: float, domain: str
    ) -> SolveResult:
        started = time.perf_counter()
        result = await self._run(
            "solve",
            cand,
            _solve_command_job,
            command,
            time_limit=time_limit,
            domain=domain,
            # the user's opt-out is the driver's; a worker's environment does not decide it
            unsandboxed=solver_cmd_unsandboxed(),
        )
        if result.ok:
            return result.value
        return self._unsolved(f"cmd:{command}", result, started)

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
        started = time.perf_counter()
        result = await self._run(
            "solve",
            cand,
            _solve_model_job,
            spec,
            time_limit=time_limit,
            max_steps=max_steps,
            max_tokens=max_tokens,
            domain=domain,
        )
        if not result.ok:  # a failed attempt's calls were lost with it: none is recorded
            return self._unsolved(spec, result, started)
        solved, calls = result.value
        if recorder is not None:
            for record in calls:
                written = recorder(record)
                if inspect.isawaitable(written):
                    await written
        return solved

    def _unsolved(self, solver: str, result: JobResult, started: float) -> SolveResult:
        return SolveResult(
            solved=False,
            answer_value=None,
            seconds=round(time.perf_counter() - started, 3),
            reason=self._failure("solving", result),
            solver=solver,
            error=True,
        )
