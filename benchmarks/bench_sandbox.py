"""Sandbox overhead per run: an empty script under `scigate.sandbox.run` against a
plain `subprocess.run` of the same command, N runs each, median wall time in ms.

Run by hand: `.venv/bin/python benchmarks/bench_sandbox.py [N]`.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scigate.sandbox import Limits, fresh_workspace, protections, run


def main(n: int = 30) -> None:
    """Print median ms per run for each runner and the ratio to plain subprocess.

    The runners take turns within each round, so load from other processes on the
    machine hits all of them alike.
    """
    cache = Path(tempfile.mkdtemp(prefix="scigate-bench-cache-"))
    ws = fresh_workspace()
    script = ws / "empty.py"
    script.write_text("")
    command = [sys.executable, str(script)]
    runners = {
        "plain subprocess.run": lambda: subprocess.run(
            command, cwd=ws, capture_output=True, check=True
        ),
        "sandbox (bwrap if available)": lambda: run(
            command, workspace=ws, limits=Limits(), cache_dir=cache
        ),
        "sandbox (no bwrap)": lambda: run(
            command, workspace=ws, limits=Limits(network=True), cache_dir=cache
        ),
    }
    times: dict[str, list[float]] = {name: [] for name in runners}
    try:
        for runner in runners.values():  # warm-up: imports, bwrap probe
            runner()
        for _ in range(n):
            for name, runner in runners.items():
                start = time.perf_counter()
                runner()
                times[name].append((time.perf_counter() - start) * 1000)
    finally:
        shutil.rmtree(ws, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
    plain = statistics.median(times["plain subprocess.run"])
    print(f"empty python script, {n} rounds, median wall time per run")
    for name, samples in times.items():
        ms = statistics.median(samples)
        print(f"  {name:30s} {ms:8.1f} ms   {ms / plain:5.2f}x  (+{ms - plain:.1f} ms)")
    print(f"network: {protections()['network (bwrap)']}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 30)
