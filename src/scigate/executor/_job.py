"""What an executor runs and what it hands back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Job(BaseModel):
    """One picklable call, `fn(*args, **kwargs)`, under a key unique in its batch."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    id: str
    fn: Callable[..., Any]
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = Field(default_factory=dict)
    #: CPUs the job occupies while it runs (an MPI run of N ranks: N); Ray reserves them
    #: (at most a node's CPUs), the local executor runs it in one of its slots
    num_cpus: int = Field(1, ge=1)


class JobResult(BaseModel):
    """A job's value, or (after its retries) the reason it failed; never both."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    id: str
    ok: bool
    value: Any = None
    error: str | None = None
    attempts: int = 1
    worker: str | None = None  # the node (Ray) or thread (local) of the last attempt


class Shared:
    """A value sent to the workers once per batch instead of once per job (`.get()` it)."""

    def __init__(self, value: Any = None, ref: Any = None) -> None:
        self._value = value
        self._ref = ref

    def get(self) -> Any:
        """The value (fetched from the object store once per Ray worker process)."""
        if self._ref is None:
            return self._value
        key = self._ref.hex()
        if key not in _FETCHED:
            import ray

            _FETCHED.clear()  # one batch at a time: keep only the latest shared value
            _FETCHED[key] = ray.get(self._ref)
        return _FETCHED[key]


_FETCHED: dict[str, Any] = {}


def reason(exc: BaseException) -> str:
    """`Type: message` on one line."""
    return f"{type(exc).__name__}: {' '.join(str(exc).split()) or 'no detail'}"
