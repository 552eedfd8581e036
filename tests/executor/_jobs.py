"""Job functions for the executor tests (sent to Ray workers by value)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from pathlib import Path


def square(x: int) -> int:
    return x * x


def flaky(counter: str, fail_times: int, value: int) -> int:
    """Fails `fail_times` times (counted in a file, shared by processes), then returns."""
    path = Path(counter)
    with path.open("a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.seek(0)
        n = len(f.read())
        f.write("x")
    if n < fail_times:
        raise RuntimeError(f"transient failure {n + 1}")
    return value


def always_fails() -> None:
    raise ValueError("bad parameters")


def slow_square(x: int, seconds: float) -> tuple[int, int]:
    time.sleep(seconds)
    return x, x * x


def in_flight_model_file(directory: Path) -> Path:
    """A python/ model that counts calls in flight across processes in `directory`."""
    path = directory / "counting_model.py"
    path.write_text(
        f"""
import asyncio, fcntl, json
from pathlib import Path
STATE = Path({str(directory)!r}) / "inflight.json"

def _bump(delta):
    with open(str(STATE) + ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        s = json.loads(STATE.read_text()) if STATE.exists() else {{"now": 0, "peak": 0}}
        s["now"] += delta
        s["peak"] = max(s["peak"], s["now"])
        STATE.write_text(json.dumps(s))

async def model(messages, tools=None, **settings):
    _bump(1)
    try:
        await asyncio.sleep(0.3)
    finally:
        _bump(-1)
    return "ok"
"""
    )
    return path


def calls_in_parallel(spec: str, n: int) -> int:
    """Makes `n` concurrent calls to the model `spec`; returns how many succeeded."""
    import asyncio

    from scigate.llm import get_model

    async def go() -> int:
        model = get_model(spec)
        outs = await asyncio.gather(
            *(model.generate([{"role": "user", "content": str(i)}]) for i in range(n))
        )
        return sum(o.text == "ok" for o in outs)

    return asyncio.run(go())


def peak(directory: Path) -> int:
    return json.loads((directory / "inflight.json").read_text())["peak"]


def pid() -> int:
    return os.getpid()


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
    runs the node's pool actor still has in flight a moment later."""
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
    time.sleep(0.5)
    return {"seconds": seconds, "running": ray.get(actor.status.remote())["running"]}


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
