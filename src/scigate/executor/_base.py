"""The executor interface: run a batch of jobs, results as they complete, bounded retries."""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterable
from typing import Any

from scigate.executor._job import Job, JobResult, Shared, reason

DEFAULT_RETRIES = 2  # three attempts in all


class Executor(ABC):
    """Runs jobs somewhere (threads here, Ray workers there) and returns their results.

    The driver stays the only writer of any database: jobs return values, and the
    caller records them. A job that fails (an exception, a lost worker or node) is
    tried again up to `retries` times, then returned as an error result with the
    reason. Results are keyed by job id; a batch yields exactly one result per id.
    """

    name: str = ""

    def __init__(self, retries: int = DEFAULT_RETRIES) -> None:
        self.retries = retries

    @property
    @abstractmethod
    def workers(self) -> int:
        """How many jobs can run at once."""

    @abstractmethod
    async def _attempt(self, job: Job) -> tuple[Any, str | None]:
        """Run the job once: (value, worker); raise on failure."""

    def share(self, value: Any) -> Shared:
        """`value` wrapped so that the workers receive it once per batch."""
        return Shared(value)

    def describe(self) -> dict[str, Any]:
        """Which executor and how many workers (for reports)."""
        return {"name": self.name, "workers": self.workers}

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release what the executor holds."""

    async def run(self, job: Job) -> JobResult:
        """One job with its retries; never raises for the job's own failure."""
        error = "not run"
        for attempt in range(1, self.retries + 2):
            try:
                value, worker = await self._attempt(job)
            except (asyncio.CancelledError, KeyboardInterrupt):
                raise
            except Exception as exc:
                error = reason(exc)
                continue
            return JobResult(id=job.id, ok=True, value=value, attempts=attempt, worker=worker)
        return JobResult(id=job.id, ok=False, error=error, attempts=self.retries + 1)

    async def as_completed(self, jobs: Iterable[Job]) -> AsyncIterator[JobResult]:
        """Results of the batch in the order they complete, one per job id (a repeated
        id runs once)."""
        unique: dict[str, Job] = {}
        for job in jobs:
            unique.setdefault(job.id, job)
        limit = asyncio.Semaphore(max(1, self.workers))

        async def bounded(job: Job) -> JobResult:
            async with limit:
                return await self.run(job)

        pending = {asyncio.ensure_future(bounded(j)) for j in unique.values()}
        try:
            while pending:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for future in done:
                    yield future.result()
        finally:
            for future in pending:
                future.cancel()
            if pending:
                await asyncio.gather(*pending, return_exceptions=True)

    def run_all(self, jobs: Iterable[Job]) -> dict[str, JobResult]:
        """The batch's results by job id (blocking; for callers outside an event loop)."""

        async def collect() -> dict[str, JobResult]:
            return {r.id: r async for r in self.as_completed(jobs)}

        return asyncio.run(collect())
