"""Job functions for the executor tests (sent to Ray workers by value)."""

from __future__ import annotations

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


def recording_tools(tools: dict, log: str) -> dict:
    """`tools` with each light tool appending the pid of the process that runs it to `log`
    (same outputs; heavy tools, whose bodies a worker process looks up by name, as they are)."""
    from scigate.tools import Tool

    def wrap(t: Tool) -> Tool:
        def fn(**kwargs):
            with open(log, "a") as f:
                f.write(f"{os.getpid()}\n")
            return t.fn(**kwargs)

        return Tool(fn, t.spec, t._args_model)

    return {n: t if t.spec.heavy else wrap(t) for n, t in tools.items()}


def assigned_cpus() -> float:
    """The CPUs Ray reserved for this task."""
    import ray

    return ray.get_runtime_context().get_assigned_resources().get("CPU", 0.0)


def unisolated_here() -> bool:
    """Whether this worker's sandbox would run without isolation."""
    from scigate.sandbox import unisolated_allowed

    return unisolated_allowed()
