"""Where work runs: one executor interface, a local and a Ray backend.

    executor = make_executor("ray", address="auto")
    results = executor.run_all([Job(id="a", fn=f, args=(1,))])

Workers return results; the driver records them (it stays the only database writer).
Model calls keep their per-endpoint concurrency limit across a Ray cluster through a
shared limiter actor; warm sandbox runs of Ray tasks go to one pool actor per node and
preload (`NodeSandboxPool`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scigate._lazy import lazy_getattr
from scigate.errors import BadInput, BadValue, MissingExtra
from scigate.executor._base import DEFAULT_RETRIES, Executor
from scigate.executor._job import Job, JobResult, Shared
from scigate.executor._limiter import ModelLimiter, install_limiter, uninstall_limiter
from scigate.executor._local import LocalExecutor
from scigate.executor._pools import NodeSandboxPool, install_pools, uninstall_pools

EXECUTORS = ("local", "ray")


def check_executor(name: str, address: str | None = None) -> None:
    """Refuse before any work: an unknown executor, an address for another executor than
    `ray` (BadValue on `address`), or `ray` without Ray installed (MissingExtra)."""
    if name not in EXECUTORS:
        raise BadInput(f"unknown executor {name!r}; expected one of {', '.join(EXECUTORS)}")
    if address and name != "ray":
        raise BadValue("address", f"needs executor 'ray', not {name!r}")
    if name == "ray" and not ray_available()[0]:
        raise MissingExtra("executor 'ray'", "ray", "ray")


def make_executor(
    name: str,
    *,
    address: str | None = None,
    workers: int | None = None,
    retries: int = DEFAULT_RETRIES,
) -> Executor:
    """`local` (threads; `workers` of them) or `ray` (at `address`, or a local Ray with
    `workers` CPUs). BadInput for another name, or Ray options without Ray."""
    check_executor(name, address)
    if name == "local":
        return LocalExecutor(workers, retries)
    from scigate.executor._ray import RayExecutor

    return RayExecutor(address, num_cpus=workers, retries=retries)


def cluster_status(address: str) -> dict:
    """The nodes and CPUs of the Ray cluster at `address` (or {"error": reason})."""
    from scigate.executor._ray import cluster_status as status

    return status(address)


def ray_available() -> tuple[bool, str]:
    """(whether Ray imports, its version or the import error)."""
    try:
        import ray
    except ImportError as exc:
        return False, str(exc)
    return True, ray.__version__


if TYPE_CHECKING:
    from scigate.executor._job import reason

# Names whose modules are heavier to import load on first access.
_LAZY = {
    "reason": "_job",
}


__getattr__ = lazy_getattr(__name__, _LAZY)


__all__ = [
    "DEFAULT_RETRIES",
    "EXECUTORS",
    "Executor",
    "Job",
    "JobResult",
    "LocalExecutor",
    "ModelLimiter",
    "NodeSandboxPool",
    "Shared",
    "check_executor",
    "cluster_status",
    "install_limiter",
    "install_pools",
    "make_executor",
    "ray_available",
    "reason",
    "uninstall_limiter",
    "uninstall_pools",
]
