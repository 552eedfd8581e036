"""Ray's own two-node test cluster (a head and a worker node of one CPU each), always shut
down; tests that need Ray skip with the reason when it is not installed."""

from __future__ import annotations

import pytest


@pytest.fixture
def two_nodes():
    """(cluster, worker node) of a fresh `ray.cluster_utils.Cluster`; this process is not
    connected to it."""
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[ray]')")
    from ray.cluster_utils import Cluster

    ray.shutdown()
    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
    )
    try:
        worker = cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        yield cluster, worker
    finally:
        ray.shutdown()
        cluster.shutdown()


@pytest.fixture
def two_node_executor(two_nodes):
    """(cluster, worker node, RayExecutor connected to it with two retries), closed after."""
    import ray

    from scigate.executor._ray import RayExecutor

    from . import _jobs

    cluster, worker = two_nodes
    ray.init(address=cluster.address)
    # The job functions are not importable on the workers: send them by value.
    ray.cloudpickle.register_pickle_by_value(_jobs)
    executor = RayExecutor(retries=2)
    try:
        yield cluster, worker, executor
    finally:
        executor.close()
