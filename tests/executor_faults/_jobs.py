"""Job functions for the fault test (sent to the workers by value)."""

from __future__ import annotations

import time
from pathlib import Path


def slow_square(x: int, seconds: float, started: str) -> int:
    """x², after leaving a mark `started/NODE-x` and sleeping."""
    import ray

    node = ray.get_runtime_context().get_node_id()
    (Path(started) / f"{node}-{x}").touch()
    time.sleep(seconds)
    return x * x


def warm_run_on_node(i: int, preload: tuple[str, ...]) -> dict:
    """A warm sandbox run; the task's node and the pool actors it used."""
    import shutil
    import tempfile

    import ray

    from scigate.executor._pools import installed_pools
    from scigate.sandbox import run_python, warm_status

    ws = Path(tempfile.mkdtemp(prefix="scigate-test-ws-"))
    try:
        result = run_python(f"print({i})", workspace=ws, preload=preload)
    finally:
        shutil.rmtree(ws, ignore_errors=True)
    pools = installed_pools()
    return {
        "stdout": result.stdout,
        "node": ray.get_runtime_context().get_node_id(),
        "used": sorted(pools.used) if pools else [],
        "own_pools": warm_status(),
    }
