"""A cluster-wide model-call limiter: one Ray actor holding a counting semaphore per endpoint.

Installed into the llm layer (`scigate.llm.set_call_limiter`) on the driver and on every
worker, so an endpoint's `concurrency` setting bounds the calls in flight across the
whole cluster, not per process.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

LIMITER_NAME = "scigate-model-limiter"
NAMESPACE = "scigate"

_installed: Any = None  # the actor handle this process's llm layer uses


class ModelLimiter:
    """Counting semaphores keyed by endpoint (a Ray async actor; see `limiter_actor`).

    A slot is a lease: a holder lost with its worker or node never releases it, so a
    slot whose lease runs out is reclaimed; otherwise a lost node would shrink the
    endpoint's limit for good, and to nothing at a limit of 1. Leases are short and a
    live holder renews its own while its call is in flight (`_Slot`), so a lost holder's
    slot comes back within one lease, not after the call's whole timeout.
    """

    def __init__(self) -> None:
        self.leases: dict[str, dict[int, float]] = {}  # key -> token -> expiry (monotonic)
        self.peak: dict[str, int] = {}
        self.reclaimed = 0
        self._tokens = 0
        self._changed: dict[str, asyncio.Condition] = {}

    def _condition(self, key: str) -> asyncio.Condition:
        if key not in self._changed:
            self._changed[key] = asyncio.Condition()
        return self._changed[key]

    def _live(self, key: str) -> dict[int, float]:
        leases = self.leases.setdefault(key, {})
        now = time.monotonic()
        for token in [t for t, expiry in leases.items() if expiry <= now]:
            del leases[token]
            self.reclaimed += 1
        return leases

    async def acquire(self, key: str, limit: int, lease: float) -> int:
        """Wait until fewer than `limit` calls to `key` are in flight, then take a slot
        for at most `lease` seconds; returns the slot's token."""
        changed = self._condition(key)
        async with changed:
            while len(leases := self._live(key)) >= limit:
                wake = min(leases.values()) - time.monotonic()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), timeout=max(wake, 0.01))
            self._tokens += 1
            leases[self._tokens] = time.monotonic() + lease
            self.peak[key] = max(self.peak.get(key, 0), len(leases))
            return self._tokens

    async def renew(self, key: str, token: int, lease: float) -> bool:
        """Extend slot `token` of `key` to `lease` seconds from now; False when it was
        already reclaimed (its holder went silent longer than a lease)."""
        leases = self._live(key)
        if token not in leases:
            return False
        leases[token] = time.monotonic() + lease
        return True

    async def release(self, key: str, token: int) -> None:
        """Give slot `token` of `key` back."""
        changed = self._condition(key)
        async with changed:
            self.leases.get(key, {}).pop(token, None)
            changed.notify_all()

    async def stats(self) -> dict[str, Any]:
        """In-flight and peak counts per endpoint key, and how many leases expired."""
        live = {k: len(self._live(k)) for k in list(self.leases)}
        return {"in_flight": live, "peak": dict(self.peak), "reclaimed": self.reclaimed}


def limiter_actor() -> Any:
    """The cluster's limiter actor (created on first use; it lives as long as the driver
    that created it)."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    # On the driver's node, hard: a worker node may be lost, the driver's node ends the run
    # anyway (a soft affinity was seen to place it on a worker node of a test cluster).
    here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
    return (
        ray.remote(num_cpus=0)(ModelLimiter)
        .options(
            name=LIMITER_NAME, namespace=NAMESPACE, get_if_exists=True, scheduling_strategy=here
        )
        .remote()
    )


LEASE_SECONDS = 30.0  # a slot whose holder stops renewing is reclaimed after this
RENEW_EVERY = 10.0  # a live holder renews its slot this often while its call is in flight


class _Slot:
    """`async with` one call slot of an endpoint on the cluster limiter, renewed while the
    call is in flight (a holder lost with its worker stops renewing)."""

    def __init__(self, actor: Any, key: tuple, limit: int, timeout: float) -> None:
        self.actor = actor
        self.key = repr(key)
        self.limit = limit
        # the call ends within `timeout`; a short lease renewed meanwhile bounds how long a
        # lost holder keeps its slot
        self.lease = min(timeout + RENEW_EVERY, LEASE_SECONDS)
        self.token: int | None = None
        self._renewer: asyncio.Task | None = None

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(min(RENEW_EVERY, self.lease / 3))
            if not await self.actor.renew.remote(self.key, self.token, self.lease):
                return  # reclaimed (this loop stalled for a whole lease): nothing to keep

    async def __aenter__(self) -> None:
        self.token = await self.actor.acquire.remote(self.key, self.limit, self.lease)
        self._renewer = asyncio.create_task(self._renew())

    async def __aexit__(self, *exc: object) -> None:
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._renewer
        await self.actor.release.remote(self.key, self.token)


def install_limiter(actor: Any) -> None:
    """Route this process's model calls through `actor` (idempotent)."""
    global _installed
    from scigate.llm import set_call_limiter

    if _installed is actor:
        return
    set_call_limiter(lambda key, limit, timeout: _Slot(actor, key, limit, timeout))
    _installed = actor


def uninstall_limiter() -> None:
    """Back to the per-process limit."""
    global _installed
    from scigate.llm import set_call_limiter

    set_call_limiter(None)
    _installed = None
