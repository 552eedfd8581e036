"""Warm pools on Ray's two-node test cluster: one pool actor per node, each task's runs
go to its own node's actor; a node lost takes its actor along and later runs use the
nodes left; `close()` leaves no pool actor behind."""

from __future__ import annotations

import time

import pytest

from scigate.executor import Job
from scigate.executor._pools import STOP_SECONDS


@pytest.mark.slow
def test_one_pool_actor_per_node_and_tasks_use_their_own_nodes(two_node_executor):
    import ray

    from . import _jobs

    cluster, worker, executor = two_node_executor
    preload = ("json",)

    def batch(n: int, tag: str) -> list[dict]:
        jobs = [Job(id=f"{tag}{i}", fn=_jobs.warm_run_on_node, args=(i, preload)) for i in range(n)]
        results = executor.run_all(jobs)
        assert all(r.ok for r in results.values()), [r.error for r in results.values()]
        assert {k: r.value["stdout"] for k, r in results.items()} == {
            f"{tag}{i}": f"{i}\n" for i in range(n)
        }
        return [r.value for r in results.values()]

    first = batch(8, "a")
    assert {v["node"] for v in first} == {cluster.head_node.node_id, worker.node_id}
    for v in first:  # the task's runs went to its own node's actor, none of its own
        assert v["own_pools"] == []
        assert v["used"] and all(name.endswith(":" + v["node"]) for name in v["used"])
    status = ray.get(executor.pools.status.remote())
    assert sorted(s["node_id"] for s in status.values()) == sorted(
        [cluster.head_node.node_id, worker.node_id]
    )
    assert all(name.endswith(":" + s["node_id"]) for name, s in status.items())

    cluster.remove_node(worker, allow_graceful=False)
    second = batch(4, "b")
    assert {v["node"] for v in second} == {cluster.head_node.node_id}
    # the lost node's actor ends once Ray has declared its node dead (seconds on an idle
    # machine); one status call can itself wait STOP_SECONDS for an actor that hangs
    deadline = time.monotonic() + 3 * STOP_SECONDS
    while len(status := ray.get(executor.pools.status.remote())) > 1:
        assert time.monotonic() < deadline, status
        time.sleep(0.5)
    assert [s["node_id"] for s in status.values()] == [cluster.head_node.node_id]

    executor.close()
    deadline = time.monotonic() + 20  # ray.kill returns before the actor is gone
    while pools := [
        a["name"]
        for a in ray.util.list_named_actors(all_namespaces=True)
        if a["name"].startswith("scigate-sandbox:")
    ]:
        assert time.monotonic() < deadline, pools
        time.sleep(0.5)
