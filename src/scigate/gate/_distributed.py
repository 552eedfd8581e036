"""Candidate verification as an executor job: the same `scigate.sandbox` run, on a worker.

The worker's sandbox (and its warm server, one per worker process and domain) gives the
same guarantees as a local run; the driver records the result it gets back.
"""

from __future__ import annotations

from typing import Any

from scigate.errors import ScigateError
from scigate.executor import Executor, Job
from scigate.gate._candidate import Candidate
from scigate.gate._loop import Verifier
from scigate.gate._verify import VerifyResult, verify


def executor_verifier(executor: Executor) -> Verifier:
    """A `run_loop` verifier that runs `verify` on `executor`. A job that kept failing
    (a lost worker, say) raises: the round is recorded as an error, never as a verdict."""

    async def run(cand: Candidate, **kwargs: Any) -> VerifyResult:
        result = await executor.run(Job(id=cand.id, fn=verify, args=(cand,), kwargs=kwargs))
        if not result.ok:
            raise ScigateError(
                f"verification on the {executor.name} executor failed after "
                f"{result.attempts} attempts: {result.error}"
            )
        return result.value

    return run
