"""A local Ray shared by the Ray tests of this folder (two CPUs, no dashboard), always shut
down; tests that need Ray skip with the reason when it is not installed."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="package")
def ray_executor():
    """A RayExecutor over `ray.init(num_cpus=2)`, shut down after this folder."""
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[ray]')")
    from scigate.executor import make_executor

    from . import _jobs

    # The job functions are not importable on the workers: send them by value.
    ray.cloudpickle.register_pickle_by_value(_jobs)
    executor = make_executor("ray", workers=2)
    try:
        yield executor
    finally:
        executor.close()
        ray.shutdown()
