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
