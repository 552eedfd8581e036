"""The executor interface on the local backend: results by id, retries, error results."""

from __future__ import annotations

import asyncio

import pytest

from scigate.errors import BadInput
from scigate.executor import Job, LocalExecutor, make_executor

from ._jobs import always_fails, flaky, square


def test_batch_returns_one_result_per_id():
    ex = LocalExecutor(workers=2)
    jobs = [Job(id=f"t{i}", fn=square, args=(i,)) for i in range(6)]
    jobs.append(Job(id="t3", fn=square, args=(100,)))  # a repeated id runs once
    results = ex.run_all(jobs)
    assert sorted(results) == [f"t{i}" for i in range(6)]
    assert all(r.ok and r.value == int(r.id[1:]) ** 2 for r in results.values())


def test_transient_failure_is_retried(tmp_path):
    ex = LocalExecutor(workers=1, retries=2)
    [r] = ex.run_all([Job(id="a", fn=flaky, args=(str(tmp_path / "c"), 2, 7))]).values()
    assert r.ok and r.value == 7 and r.attempts == 3


def test_a_job_that_keeps_failing_is_an_error_with_the_reason(tmp_path):
    ex = LocalExecutor(workers=1, retries=1)
    results = ex.run_all(
        [
            Job(id="bad", fn=always_fails),
            Job(id="flaky", fn=flaky, args=(str(tmp_path / "c"), 5, 1)),
        ]
    )
    assert not results["bad"].ok and results["bad"].value is None
    assert results["bad"].error == "ValueError: bad parameters"
    assert results["bad"].attempts == 2
    assert not results["flaky"].ok and "transient failure 2" in results["flaky"].error


def test_make_executor_rejects_bad_names():
    with pytest.raises(BadInput, match="unknown executor"):
        make_executor("dask")
    with pytest.raises(BadInput, match=r"^address needs executor 'ray', not 'local'$"):
        make_executor("local", address="10.0.0.1:6379")  # the library names its parameter


async def test_limiter_reclaims_a_slot_whose_holder_was_lost():
    from scigate.executor import ModelLimiter

    limiter = ModelLimiter()
    await limiter.acquire("endpoint", 1, 0.3)  # its holder dies: never released
    # a limit of 1 would otherwise wait for ever
    token = await asyncio.wait_for(limiter.acquire("endpoint", 1, 30.0), timeout=5)
    stats = await limiter.stats()
    assert stats["in_flight"] == {"endpoint": 1} and stats["reclaimed"] == 1
    await limiter.release("endpoint", token)
    assert (await limiter.stats())["in_flight"] == {"endpoint": 0}


async def test_limiter_holds_its_limit_in_one_process():
    from scigate.executor import ModelLimiter

    limiter = ModelLimiter()
    now = peak = 0

    async def call() -> None:
        nonlocal now, peak
        token = await limiter.acquire("e", 2, 30.0)
        now += 1
        peak = max(peak, now)
        await asyncio.sleep(0.02)
        now -= 1
        await limiter.release("e", token)

    await asyncio.gather(*(call() for _ in range(6)))
    assert peak == 2 and (await limiter.stats())["peak"] == {"e": 2}


class _Remote:
    """`actor.method.remote(...)` over a local object (awaitable, like an ObjectRef)."""

    def __init__(self, fn):
        self.fn = fn

    def remote(self, *args):
        return self.fn(*args)


class _Actor:
    def __init__(self, limiter):
        for name in ("acquire", "renew", "release"):
            setattr(self, name, _Remote(getattr(limiter, name)))


async def test_a_live_holder_keeps_its_slot_past_one_lease(monkeypatch):
    from scigate.executor import ModelLimiter, _limiter

    # a renewal may come late by LEASE - RENEW_EVERY before the lease lapses: 0.25 s was
    # a stall a loaded 2-core machine can cause; 0.95 s is not
    monkeypatch.setattr(_limiter, "LEASE_SECONDS", 1.0)
    monkeypatch.setattr(_limiter, "RENEW_EVERY", 0.05)
    limiter = ModelLimiter()
    actor = _Actor(limiter)
    async with _limiter._Slot(actor, ("e",), 1, timeout=600):
        # three leases long: renewed, so the limit of 1 still holds
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(limiter.acquire(repr(("e",)), 1, 30.0), timeout=3.0)
    assert (await limiter.stats())["reclaimed"] == 0
    token = await asyncio.wait_for(limiter.acquire(repr(("e",)), 1, 30.0), timeout=1)
    await limiter.release(repr(("e",)), token)


async def test_a_lost_holders_slot_returns_within_a_lease_not_the_call_timeout(monkeypatch):
    from scigate.executor import ModelLimiter, _limiter

    monkeypatch.setattr(_limiter, "LEASE_SECONDS", 0.3)
    monkeypatch.setattr(_limiter, "RENEW_EVERY", 0.05)
    limiter = ModelLimiter()
    slot = _limiter._Slot(_Actor(limiter), ("e",), 1, timeout=600)
    await slot.__aenter__()
    slot._renewer.cancel()  # its worker died: no renewal, no release
    token = await asyncio.wait_for(limiter.acquire(repr(("e",)), 1, 30.0), timeout=2)
    assert (await limiter.stats())["reclaimed"] == 1
    await limiter.release(repr(("e",)), token)
