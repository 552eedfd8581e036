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


#: a run far longer than any wait in these tests: a cancel that did not reach it shows as
#: a wait that runs out, never as a test that passes slowly
SLEEP_SECONDS = 3600


def cancelled_warm_run(preload: tuple[str, ...]) -> dict:
    """Starts an hour-long warm run, cancels it once the node's pool actor runs it; how
    long the cancel took to return and how many runs the actor still has in flight once
    it has none (or 120 s passed)."""
    import asyncio
    import shutil
    import sys
    import tempfile

    import ray

    from scigate.executor._pools import installed_pools, pool_name
    from scigate.sandbox import Limits, arun_python

    ws = Path(tempfile.mkdtemp(prefix="scigate-test-ws-"))

    def actor_running() -> int:
        pools = installed_pools()
        actor = (
            pools.actors.get(pool_name(sys.executable, preload, pools.node_id)) if pools else None
        )
        return ray.get(actor.status.remote())["running"] if actor else 0

    async def go() -> float:
        task = asyncio.ensure_future(
            arun_python(
                f"import time; time.sleep({SLEEP_SECONDS})",
                workspace=ws,
                preload=preload,
                limits=Limits(wall_seconds=2 * SLEEP_SECONDS),
            )
        )
        end = time.monotonic() + 120
        while not await asyncio.to_thread(actor_running):  # it runs there: cancel it now
            assert not task.done(), task
            assert time.monotonic() < end, "the run did not reach the pool actor in 120 s"
            await asyncio.sleep(0.05)
        start = time.monotonic()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return time.monotonic() - start

    try:
        seconds = asyncio.run(go())
    finally:
        shutil.rmtree(ws, ignore_errors=True)
    end = time.monotonic() + 120
    while (running := actor_running()) and time.monotonic() < end:
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
