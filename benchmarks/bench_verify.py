"""Verification throughput: scigate's gate 1, cold and warm, against a naive loop.

Generates N FEniCSx template candidates (default 20), then verifies them
  - naive: a fresh `python solution.py` per candidate, one after another, no sandbox;
  - scigate cold: `averify` with the domain's preload switched off, so every run is a
    fresh sandboxed interpreter (own process group, limits, scrubbed env, bwrap when it
    works, shared FFCx cache), one concurrent run per core;
  - scigate warm: `averify` as shipped, each run forked from a warm sandbox server that
    imported dolfinx once (server start-up included in the time), one run per core.
All use a warm FFCx cache (the first pass warms it). Prints candidates per minute and the
ratios. Run by hand: .venv/bin/python benchmarks/bench_verify.py [N]
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from _fenicsx_candidates import make_candidates, naive

from scigate import sandbox
from scigate.domains.fenicsx._domain import FenicsxDomain
from scigate.gate import averify, load_candidate


async def scigate_verify(dirs: list[Path], workers: int) -> float:
    sem = asyncio.Semaphore(workers)
    cands = [load_candidate(d) for d in dirs]

    async def one(c):
        async with sem:
            r = await averify(c, timeout=300)
            assert r.passed, r.reason

    t0 = time.perf_counter()
    await asyncio.gather(*(one(c) for c in cands))
    return time.perf_counter() - t0


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    workers = os.cpu_count() or 1
    root = Path(tempfile.mkdtemp(prefix="bench-verify-"))
    preload = FenicsxDomain.preload
    try:
        t0 = time.perf_counter()
        dirs = make_candidates(n, root, seed=7)
        print(f"generated {n} candidates in {time.perf_counter() - t0:.1f} s")
        naive(dirs[:2])  # warm the FFCx cache for all
        t_naive = naive(dirs)
        FenicsxDomain.preload = ()
        try:
            t_cold = asyncio.run(scigate_verify(dirs, workers))
        finally:
            FenicsxDomain.preload = preload
        t_warm = asyncio.run(scigate_verify(dirs, workers))
        servers = sum(len(p["servers"]) for p in sandbox.warm_status())
        sandbox.stop_warm_servers()
        rates = {
            "naive loop (python solution.py, sequential)": 60 * n / t_naive,
            f"scigate verify cold ({workers} workers)": 60 * n / t_cold,
            f"scigate verify warm ({workers} workers, {servers} servers)": 60 * n / t_warm,
        }
        for (name, rate), seconds in zip(rates.items(), (t_naive, t_cold, t_warm), strict=True):
            print(f"{name:48s} {seconds:6.1f} s  {rate:7.1f} candidates/min")
        naive_rate, cold_rate, warm_rate = rates.values()
        print(f"ratio cold/naive throughput: {cold_rate / naive_rate:.2f}x")
        print(f"ratio warm/naive throughput: {warm_rate / naive_rate:.2f}x")
        print(f"ratio warm/cold throughput:  {warm_rate / cold_rate:.2f}x")
        print(f"network: {sandbox.protections()['network (bwrap)']}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
