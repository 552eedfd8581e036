"""A cluster-wide model-call limiter: one Ray actor holding a counting semaphore per endpoint.

Installed into the llm layer (`scigate.llm.set_call_limiter`) on the driver and on every
worker, so an endpoint's `concurrency` setting bounds the calls in flight across the
whole cluster, not per process.
"""

from __future__ import annotations

import asyncio
from typing import Any

LIMITER_NAME = "scigate-model-limiter"
NAMESPACE = "scigate"

_installed: Any = None  # the actor handle this process's llm layer uses


class ModelLimiter:
    """Counting semaphores keyed by endpoint (a Ray async actor; see `limiter_actor`)."""

    def __init__(self) -> None:
        self.in_flight: dict[str, int] = {}
        self.peak: dict[str, int] = {}
        self._changed: dict[str, asyncio.Condition] = {}

    def _condition(self, key: str) -> asyncio.Condition:
        if key not in self._changed:
            self._changed[key] = asyncio.Condition()
        return self._changed[key]

    async def acquire(self, key: str, limit: int) -> None:
        """Wait until fewer than `limit` calls to `key` are in flight, then take a slot."""
        changed = self._condition(key)
        async with changed:
            await changed.wait_for(lambda: self.in_flight.get(key, 0) < limit)
            self.in_flight[key] = self.in_flight.get(key, 0) + 1
            self.peak[key] = max(self.peak.get(key, 0), self.in_flight[key])

    async def release(self, key: str) -> None:
        """Give a slot of `key` back."""
        changed = self._condition(key)
        async with changed:
            self.in_flight[key] = max(0, self.in_flight.get(key, 0) - 1)
            changed.notify_all()

    async def stats(self) -> dict[str, dict[str, int]]:
        """In-flight and peak counts per endpoint key."""
        return {"in_flight": dict(self.in_flight), "peak": dict(self.peak)}


def limiter_actor() -> Any:
    """The cluster's limiter actor (created on first use; it lives as long as the driver
    that created it)."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    # On the driver's node: a worker node may be lost, the driver's node ends the run anyway.
    here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=True)
    return (
        ray.remote(num_cpus=0)(ModelLimiter)
        .options(
            name=LIMITER_NAME, namespace=NAMESPACE, get_if_exists=True, scheduling_strategy=here
        )
        .remote()
    )


class _Slot:
    """`async with` one call slot of an endpoint on the cluster limiter."""

    def __init__(self, actor: Any, key: tuple, limit: int) -> None:
        self.actor = actor
        self.key = repr(key)
        self.limit = limit

    async def __aenter__(self) -> None:
        await self.actor.acquire.remote(self.key, self.limit)

    async def __aexit__(self, *exc: object) -> None:
        await self.actor.release.remote(self.key)


def install_limiter(actor: Any) -> None:
    """Route this process's model calls through `actor` (idempotent)."""
    global _installed
    from scigate.llm import set_call_limiter

    if _installed is actor:
        return
    set_call_limiter(lambda key, limit: _Slot(actor, key, limit))
    _installed = actor


def uninstall_limiter() -> None:
    """Back to the per-process limit."""
    global _installed
    from scigate.llm import set_call_limiter

    set_call_limiter(None)
    _installed = None
