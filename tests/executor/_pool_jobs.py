"""Job functions for the warm pool tests (sent to Ray workers by value)."""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path


def warm_run(i: int, preload: tuple[str, ...], code: str = "", limits=None) -> dict:
    """One warm sandbox run (prints 2*i, or runs `code`) and what this process saw."""
    import shutil
    import tempfile

    from scigate.executor._pools import installed_pools
    from scigate.sandbox import run_python, warm_delegation, warm_status

    ws = Path(tempfile.mkdtemp(prefix="scigate-test-ws-"))
    try:
        result = run_python(code or f"print({i} * 2)", workspace=ws, limits=limits, preload=preload)
    finally:
        shutil.rmtree(ws, ignore_errors=True)
    pools = installed_pools()
    return {
        "result": result,
        "pid": os.getpid(),
        "own_pools": warm_status(),
        "delegation": warm_delegation(),
        "used": dict(pools.used) if pools else {},
    }


def cancelled_warm_run(preload: tuple[str, ...], after: float) -> dict:
    """Starts a 60 s warm run, cancels it after `after` s; how long that took and how many
    runs the node's pool actor still has in flight once they had 10 s to end (the run
    itself would take 60)."""
    import asyncio
    import shutil
    import tempfile

    import ray

    from scigate.executor._pools import installed_pools, pool_name
    from scigate.sandbox import arun_python

    ws = Path(tempfile.mkdtemp(prefix="scigate-test-ws-"))

    async def go() -> float:
        task = asyncio.ensure_future(
            arun_python("import time; time.sleep(60)", workspace=ws, preload=preload)
        )
        await asyncio.sleep(after)
        start = time.monotonic()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return time.monotonic() - start

    try:
        seconds = asyncio.run(go())
    finally:
        shutil.rmtree(ws, ignore_errors=True)
    pools = installed_pools()
    import sys

    actor = pools.actors[pool_name(sys.executable, preload, pools.node_id)]
    # a run that reached the actor after its cancel (a loaded node) is cancelled when it
    # starts there, so it may be in flight a moment longer: wait for that, not its 60 s
    deadline = time.monotonic() + 10.0
    while (running := ray.get(actor.status.remote())["running"]) and time.monotonic() < deadline:
        time.sleep(0.1)
    return {"seconds": seconds, "running": running}


def warm_run_with_a_new_secret(preload: tuple[str, ...]) -> str:
    """Sets a credential in this worker's environment, then a warm run prints it."""
    import shutil
    import tempfile

    from scigate.sandbox import run_python

    os.environ["SCIGATE_TEST_API_KEY"] = "sk-test-4f9a8b7c6d5e"
    ws = Path(tempfile.mkdtemp(prefix="scigate-test-ws-"))
    try:
        code = "print('sk-test-' + '4f9a8b7c6d5e')"
        return run_python(code, workspace=ws, preload=preload).stdout
    finally:
        del os.environ["SCIGATE_TEST_API_KEY"]
        shutil.rmtree(ws, ignore_errors=True)


class SlowRegistry:
    """A pool registry that does not answer (a pool actor being made on a loaded node)."""

    def pool(self, node_id: str, python: str, preload: tuple[str, ...]) -> None:
        time.sleep(600)
