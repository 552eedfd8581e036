"""Warm sandbox pools shared per node on a local Ray (2 CPUs): the tasks' warm runs go to
one pool actor per (node, preload), with the results, limits and cancellation of a local
run; an actor lost mid-batch costs a retry, never a wrong or a duplicated result.

Cheap stdlib preloads stand in for a domain's (FEniCSx's are slow to import); each test
uses its own, hence its own pool actor.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from _wait import wait_until
from scigate.executor import Job
from scigate.sandbox import Limits, run_python

from . import _pool_jobs
from ._pool_jobs import (
    SLEEP_SECONDS,
    cancelled_warm_run,
    warm_run,
    warm_run_with_a_new_secret,
)


@pytest.fixture(autouse=True)
def _jobs_by_value():
    """The job functions are not importable on the workers: send them by value."""
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[ray]')")
    ray.cloudpickle.register_pickle_by_value(_pool_jobs)


def _pool_status(executor, preload: tuple[str, ...]) -> dict[str, dict]:
    import ray

    status = ray.get(executor.pools.status.remote())
    return {name: s for name, s in status.items() if tuple(s["preload"]) == preload}


def test_runs_of_several_tasks_share_one_pool_actor_per_node(ray_executor):
    preload = ("json",)
    jobs = [Job(id=str(i), fn=warm_run, args=(i, preload)) for i in range(6)]
    results = ray_executor.run_all(jobs)
    assert all(r.ok for r in results.values()), [r.error for r in results.values()]
    values = {k: r.value for k, r in results.items()}
    assert {k: v["result"].stdout for k, v in values.items()} == {
        str(i): f"{2 * i}\n" for i in range(6)
    }
    assert all(v["result"].ok for v in values.values())
    # no worker process started warm servers of its own; every run went to the actor
    assert all(v["own_pools"] == [] for v in values.values())
    assert all(v["delegation"]["here"] == 0 for v in values.values())
    (name, actor), *others = _pool_status(ray_executor, preload).items()
    assert others == []
    assert actor["node_id"] in name
    mine = {n for v in values.values() for n in v["used"] if n.startswith("scigate-sandbox:json-")}
    assert mine == {name}
    (pool,) = actor["pools"]
    assert pool["served"] == 6
    assert pool["started"] <= 2  # at most the node's CPUs, shared by every worker process
    assert actor["pid"] not in {v["pid"] for v in values.values()}


def test_limits_and_results_equal_a_local_run(ray_executor, tmp_path):
    preload = ("csv",)
    cases = [
        ("import time; time.sleep(600)", Limits(wall_seconds=1)),
        ("x = bytearray(2 << 30)", Limits(memory_bytes=512 << 20)),
        ("import sys; print('out'); sys.exit(3)", Limits()),
    ]
    jobs = [
        Job(id=str(i), fn=warm_run, args=(i, preload, code, limits))
        for i, (code, limits) in enumerate(cases)
    ]
    results = ray_executor.run_all(jobs)
    assert all(r.ok for r in results.values()), [r.error for r in results.values()]
    for i, (code, limits) in enumerate(cases):
        remote = results[str(i)].value
        assert remote["delegation"]["delegated"] >= 1 and remote["own_pools"] == []
        ws = tmp_path / str(i)
        ws.mkdir()
        local = run_python(code, workspace=ws, limits=limits, preload=preload)
        fields = ("exit_code", "timed_out", "memory_exceeded", "stdout", "isolation")
        assert remote["result"].model_dump(include=set(fields)) == local.model_dump(
            include=set(fields)
        ), code
    timeout = results["0"].value["result"]
    assert timeout.timed_out and timeout.seconds < 60  # the 1 s limit, not the 600 s sleep
    assert results["1"].value["result"].memory_exceeded
    assert results["2"].value["result"].exit_code == 3


def test_output_is_redacted_of_the_tasks_own_credentials(ray_executor):
    # the pool actor's environment does not have it; the task's does
    results = ray_executor.run_all([Job(id="s", fn=warm_run_with_a_new_secret, args=(("io",),))])
    assert results["s"].ok, results["s"].error
    assert "4f9a8b7c6d5e" not in results["s"].value


def test_a_cancelled_run_ends_in_the_pool_actor(ray_executor):
    results = ray_executor.run_all([Job(id="c", fn=cancelled_warm_run, args=(("string",),))])
    assert results["c"].ok, results["c"].error
    seen = results["c"].value
    # the run sleeps an hour: a cancel that waited for it, or an actor that kept it in
    # flight, fails these by far (a cancel takes well under a second)
    assert seen["seconds"] < SLEEP_SECONDS / 60
    assert seen["running"] == 0


def test_a_cancel_that_overtakes_its_run_still_cancels_it(monkeypatch):
    """A run and its cancel reach the actor in different thread groups, so the cancel can
    be served first (a new actor, busy run threads): it must not be lost, or the run goes
    its whole wall clock (the 61 s this file's cancel test once measured in CI)."""
    from scigate.executor import NodeSandboxPool, _pools

    monkeypatch.setenv("SCIGATE_WARM_SERVERS", "1")
    pool = NodeSandboxPool("node", ("string",), 1)
    seen: list[bool] = []

    class Run:
        def execute_here(self, cancel):
            seen.append(cancel.is_set())
            return "result"

    assert pool.cancel("early") is False  # not running yet
    assert pool.run(Run(), "early") == "result"
    assert pool.run(Run(), "other") == "result"
    assert seen == [True, False]  # the early cancel reached its run, and only its run
    assert pool.run(Run(), "early") == "result" and seen[-1] is False  # used once
    monkeypatch.setattr(_pools, "EARLY_SECONDS", 0.0)
    pool.cancel("never-comes")
    pool.cancel("next")  # a run that never came is forgotten
    assert list(pool.early) == ["next"]


def test_a_pool_actor_killed_mid_batch_costs_a_retry_not_a_result(ray_executor):
    import ray

    preload = ("textwrap",)
    code = "import time, sys; time.sleep(2); print(sys.argv[0][-3:])"
    # a first run makes the actor; then a batch, and the actor is killed under it
    assert ray_executor.run_all([Job(id="w", fn=warm_run, args=(0, preload))])["w"].ok
    (name,) = _pool_status(ray_executor, preload)
    jobs = [Job(id=f"k{i}", fn=warm_run, args=(i, preload, code)) for i in range(4)]
    yielded = []

    async def run_and_kill() -> None:
        batch = asyncio.ensure_future(_collect(ray_executor, jobs, yielded))
        deadline = time.monotonic() + 60
        while not _pool_status(ray_executor, preload).get(name, {}).get("running"):
            assert time.monotonic() < deadline, "no run reached the pool actor"
            await asyncio.sleep(0.1)
        node = name.rsplit(":", 1)[1]
        actor = ray.get(ray_executor.pools.pool.remote(node, sys.executable, preload))
        ray.kill(actor)
        await batch

    asyncio.run(run_and_kill())
    assert sorted(r.id for r in yielded) == [f"k{i}" for i in range(4)]  # once each
    assert all(r.ok for r in yielded), [r.error for r in yielded if not r.ok]
    assert all(r.value["result"].stdout == ".py\n" for r in yielded)
    assert max(r.attempts for r in yielded) >= 2  # a lost run was retried, not reported
    (replacement,) = _pool_status(ray_executor, preload).values()  # a new actor took over
    assert replacement["pools"][0]["served"] >= 1


async def _collect(executor, jobs, into: list) -> None:
    async for result in executor.as_completed(jobs):
        into.append(result)


def test_without_a_reachable_registry_runs_go_ahead_here(ray_executor):
    import ray

    from scigate.executor._pools import NodePools, registry_actor
    from scigate.sandbox import protections, set_warm_delegate, warm_delegation, warm_status

    gone = registry_actor()
    ray.kill(gone)
    set_warm_delegate(NodePools(gone), NodePools.name)
    try:
        with tempfile.TemporaryDirectory() as ws:
            result = run_python("print('here')", workspace=Path(ws), preload=("shlex",))
        assert result.ok and result.stdout == "here\n"
        stats = warm_delegation()
        assert stats["delegated"] == 0 and stats["here"] == 1
        assert "no pool actor for this node" in stats["failure"]
        assert any(p["preload"] == ["shlex"] for p in warm_status())
        assert "ran in this process's own pool instead" in protections()["warm pool"]
    finally:
        set_warm_delegate(None)


@pytest.fixture(autouse=True)
def _no_delegate_left_here():
    yield
    from scigate.sandbox import warm_delegation

    assert warm_delegation() is None  # the driver's own runs never go to a pool actor


def test_cancel_and_status_reach_a_pool_actor_whose_run_threads_are_all_busy(
    ray_executor, tmp_path
):
    import ray

    from scigate.executor._pools import LOOKUP_SECONDS, NodePools, _control, pool_name
    from scigate.sandbox._delegate import warm_run

    preload = ("glob",)
    node = ray.get_runtime_context().get_node_id()
    actor = ray.get(ray_executor.pools.pool.remote(node, sys.executable, preload))
    busy = 2 * 2 + 4  # the actor's run threads on a 2-CPU node
    refs = []
    for i in range(busy):
        ws = tmp_path / str(i)
        ws.mkdir()
        (ws / "s.py").write_text(f"import time; time.sleep({SLEEP_SECONDS})")
        run = warm_run(
            [sys.executable, "s.py"],
            workspace=ws,
            limits=Limits(wall_seconds=2 * SLEEP_SECONDS),
            env=None,
            cache_dir=None,
            preload=preload,
        )
        refs.append(actor.run.remote(run, f"r{i}"))
    # a new actor's process start on a loaded node is allowed LOOKUP_SECONDS, as in use
    wait_until(
        lambda: ray.get(_control(actor.status).remote(), timeout=LOOKUP_SECONDS)["running"] >= busy,
        timeout=2 * LOOKUP_SECONDS,
        interval=0.2,
        message="the runs did not all start",
    )
    # one more run, queued behind the busy threads, cancelled: its task does not wait for
    # a thread (up to the runs' hour); the actor cancels it when it gets one
    (ws := tmp_path / "queued").mkdir()
    (ws / "s.py").write_text(f"import time; time.sleep({SLEEP_SECONDS})")
    queued = warm_run(
        [sys.executable, "s.py"],
        workspace=ws,
        limits=Limits(wall_seconds=2 * SLEEP_SECONDS),
        env=None,
        cache_dir=None,
        preload=preload,
    )
    cancel = threading.Event()
    pools = NodePools(ray_executor.pools)
    pools.actors[pool_name(sys.executable, preload, node)] = actor
    real_wait = ray.wait

    def wait(*args, **kwargs):  # the run has been sent: the cancel comes now
        cancel.set()
        return real_wait(*args, **kwargs)

    got: list = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ray, "wait", wait)
        asker = threading.Thread(target=lambda: got.append(pools(queued, cancel)), daemon=True)
        asker.start()
        # the busy runs sleep an hour: a cancel that waited for a thread runs this out
        wait_until(lambda: got, timeout=120, message="the queued cancel waited for a thread")
    (result,) = got
    assert not result.ok and result.reason.startswith("cancelled"), result.reason
    status = ray.get(_control(actor.status).remote(), timeout=LOOKUP_SECONDS)
    assert status["running"] == busy  # still
    cancels = [_control(actor.cancel).remote(f"r{i}") for i in range(busy)]
    assert all(ray.get(cancels, timeout=LOOKUP_SECONDS))
    results = ray.get(refs, timeout=120)  # not the runs' hour
    assert not any(r.ok for r in results)
    # the runs that waited for a server were cancelled there; they used to go cold with
    # the cancel set, and a bwrap killed as it started left its namespace init behind
    assert _holding(tmp_path) == []


def _holding(path: Path, seconds: float = 60.0) -> list[int]:
    """Pids whose cwd or descriptors are in `path` (deleted or not), after `seconds` for
    killed processes to go."""
    import os

    deadline = time.monotonic() + seconds
    while True:
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            with contextlib.suppress(OSError):
                fds = [f"/proc/{pid}/fd/{fd}" for fd in os.listdir(f"/proc/{pid}/fd")]
                links = [os.readlink(link) for link in (f"/proc/{pid}/cwd", *fds)]
                if int(pid) != os.getpid() and any(
                    link.startswith((f"{path}/", f"{path} ")) for link in links
                ):
                    found.append(int(pid))
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.1)


def test_a_run_cancelled_while_the_registry_makes_its_actor_ends_at_once(ray_executor, tmp_path):
    """The lookup of a node's pool actor waited up to LOOKUP_SECONDS (60 s) with the cancel
    unread, then failed over to run here; it now returns the cancelled result at once,
    having started nothing anywhere."""
    import ray

    from scigate.executor import _pools
    from scigate.executor._pools import NodePools
    from scigate.sandbox import warm_status
    from scigate.sandbox._delegate import warm_run

    registry = ray.remote(num_cpus=0)(_pool_jobs.SlowRegistry).remote()
    try:
        (tmp_path / "s.py").write_text("import time; time.sleep(60)")
        run = warm_run(
            [sys.executable, "s.py"],
            workspace=tmp_path,
            limits=Limits(wall_seconds=90),
            env=None,
            cache_dir=None,
            preload=("sched",),
        )
        cancel = threading.Event()
        pools = NodePools(registry)
        real_wait = ray.wait

        def wait(*args, **kwargs):  # the registry has been asked: the cancel comes now
            cancel.set()
            return real_wait(*args, **kwargs)

        got: list = []
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(ray, "wait", wait)
            # a lookup that ignored the cancel would wait out the hour (the registry
            # answers after ten minutes) long past this test's wait for the result
            mp.setattr(_pools, "LOOKUP_SECONDS", 3600.0)
            asker = threading.Thread(target=lambda: got.append(pools(run, cancel)), daemon=True)
            asker.start()
            wait_until(lambda: got, message="the cancelled lookup did not return")
        (result,) = got
        assert not result.ok and result.reason.startswith("cancelled"), result.reason
        assert pools.actors == {}  # no actor was waited for
        assert not any(p["preload"] == ["sched"] for p in warm_status())  # nor run here
    finally:
        ray.kill(registry)
