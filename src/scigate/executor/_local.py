"""The local executor: jobs run in threads of this process (today's behaviour)."""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any

from scigate.executor._base import DEFAULT_RETRIES, Executor
from scigate.executor._job import Job


class LocalExecutor(Executor):
    """Jobs in up to `workers` threads of the driver process."""

    name = "local"

    def __init__(self, workers: int | None = None, retries: int = DEFAULT_RETRIES) -> None:
        super().__init__(retries)
        self._workers = max(1, workers or os.cpu_count() or 1)

    @property
    def workers(self) -> int:
        return self._workers

    async def _attempt(self, job: Job) -> tuple[Any, str | None]:
        def call() -> tuple[Any, str | None]:
            return job.fn(*job.args, **job.kwargs), threading.current_thread().name

        return await asyncio.to_thread(call)
