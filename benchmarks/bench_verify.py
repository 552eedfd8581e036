"""Verification throughput: scigate's gate 1, cold and warm, against naive loops.

Generates N FEniCSx template candidates (default 20), adds the model-written ones
(item 0023 and the five seeds; `--templates-only` leaves them out), then verifies them
  - naive, sequential: a fresh `python solution.py` per candidate, one after another,
    no sandbox;
  - naive, parallel: the same with one fresh interpreter per core at a time (the worker
    count of the gated passes: the like-for-like comparison);
  - scigate cold: `averify` with the domain's preload switched off, so every run is a
    fresh sandboxed interpreter (own process group, limits, scrubbed env, bwrap when it
    works, shared FFCx cache), one concurrent run per core;
  - scigate warm: `averify` as shipped, each run forked from a warm sandbox server that
    imported dolfinx once (server start-up is in the first round's warm pass), one run
    per core.
All use a warm FFCx cache (a first pass warms it). The four passes are interleaved: each
of `--repeats` rounds (default 3) runs all four in an order rotated every round. Prints
each pass's median and min, candidates per minute (at the median) and the throughput
ratios on the medians, on the minima and per round.
Run by hand: .venv/bin/python benchmarks/bench_verify.py [N] [--repeats R]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from _fenicsx_candidates import (
    make_candidates,
    naive,
    naive_parallel,
    ratio_line,
    spread,
    with_model_written,
)

from scigate import sandbox
from scigate.domains.fenicsx._domain import FenicsxDomain
from scigate.gate import averify, load_candidate

#: the interleaved passes, in the order of the first round (rotated every round)
PASSES = ("naive, sequential", "naive, parallel", "scigate cold", "scigate warm")


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


def cold_verify(dirs: list[Path], workers: int) -> float:
    """`scigate_verify` with the preload off: every run a fresh sandboxed interpreter."""
    preload = FenicsxDomain.preload
    FenicsxDomain.preload = ()
    try:
        return asyncio.run(scigate_verify(dirs, workers))
    finally:
        FenicsxDomain.preload = preload


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int, nargs="?", default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--templates-only", action="store_true")
    args = ap.parse_args()
    n = args.n
    workers = os.cpu_count() or 1
    root = Path(tempfile.mkdtemp(prefix="bench-verify-"))
    try:
        t0 = time.perf_counter()
        dirs = make_candidates(n, root, seed=7)
        print(f"generated {n} candidates in {time.perf_counter() - t0:.1f} s")
        dirs = with_model_written(dirs, not args.templates_only)
        n = len(dirs)
        naive(dirs)  # warm the FFCx cache (every form: the passes compare warm runs)
        run = {
            "naive, sequential": lambda: naive(dirs),
            "naive, parallel": lambda: naive_parallel(dirs, workers),
            "scigate cold": lambda: cold_verify(dirs, workers),
            "scigate warm": lambda: asyncio.run(scigate_verify(dirs, workers)),
        }
        times: dict[str, list[float]] = {name: [] for name in PASSES}
        for r in range(args.repeats):
            for name in PASSES[r % len(PASSES) :] + PASSES[: r % len(PASSES)]:
                times[name].append(run[name]())
        servers = sum(len(p["servers"]) for p in sandbox.warm_status())
        sandbox.stop_warm_servers()
        label = {
            "naive, sequential": "naive loop (python solution.py, sequential)",
            "naive, parallel": f"naive loop (python solution.py, {workers} at a time)",
            "scigate cold": f"scigate verify cold ({workers} workers)",
            "scigate warm": f"scigate verify warm ({workers} workers, {servers} servers)",
        }
        for name in PASSES:
            med = statistics.median(times[name])
            print(f"{label[name]:52s} {spread(times[name])}  {60 * n / med:7.1f} candidates/min")
        seq, par = times["naive, sequential"], times["naive, parallel"]
        cold, warm = times["scigate cold"], times["scigate warm"]
        print("throughput ratios (naive or cold time / scigate time):")
        print(ratio_line(f"  warm / naive, {workers} at a time", par, warm))
        print(ratio_line(f"  cold / naive, {workers} at a time", par, cold))
        print(ratio_line("  warm / naive, sequential", seq, warm))
        print(ratio_line("  cold / naive, sequential", seq, cold))
        print(ratio_line("  warm / cold", cold, warm))
        print(f"network: {sandbox.protections()['network (bwrap)']}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
