"""Cost of the invariance gate (gate 1b) against gate 1 alone and against a naive loop.

Generates N FEniCSx template candidates (default 20, every family) and adds the
model-written ones (item 0023 and the five seeds; `--templates-only` leaves them out),
then times
  - naive, sequential: a fresh `python solution.py` per candidate, one after another,
    no sandbox (the naive single verification);
  - naive, parallel: the same with as many fresh interpreters at a time as the gated
    passes have workers (one per core): the like-for-like comparison in workers;
  - naive gate 1 + 1b, parallel: the same runs as the gated pass (solution.py, then
    each semantic check's runner that applies), each in a fresh interpreter, no
    sandbox: the like-for-like comparison in work as well;
  - gate 1 alone: `averify` as shipped (sandboxed, forked from warm servers), one
    concurrent candidate per core;
  - gate 1 + gate 1b: `averify`, then `ainvariance` with gate 1's printed value as the
    reference (the mesh-reorder and dependence checks, each a run forked from the same
    warm servers), as `gate run` does, one concurrent candidate per core;
  - optionally (`--mpi`) gate 1 + gate 1b with the opt-in 2-rank MPI check (cold
    `mpiexec -n 2` runs in the sandbox) on the first few candidates.
All use a warm FFCx cache (a first pass warms it). The four passes are interleaved:
each of `--repeats` rounds (default 3) runs all four, in an order rotated every round,
so load on the shared machine falls on all of them alike. Prints each pass's median
and min, the extra cost of gate 1b per candidate (wall clock and the runs' own
seconds), and the throughput ratios of the gated passes against both naive loops on the
medians, on the minima and per round (goal: at least 4x, same worker count).
Run by hand: .venv/bin/python benchmarks/bench_invariance.py [N] [--repeats R] [--mpi]
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
    naive_gates,
    naive_parallel,
    ratio_line,
    spread,
    with_model_written,
)

from scigate import sandbox
from scigate.gate import ainvariance, averify, load_candidate

#: the interleaved passes, in the order of the first round (rotated every round)
PASSES = (
    "naive, sequential",
    "naive, parallel",
    "naive gate 1 + 1b",
    "gate 1 alone",
    "gate 1 + gate 1b",
)
#: runs' own seconds per semantic check, summed over every gate-1b pass
CHECK_SECONDS: dict[str, float] = {}


async def gates(
    dirs: list[Path], workers: int, *, invariance: bool, mpi_ranks: int = 1
) -> tuple[float, float, float]:
    """(wall seconds, sum of gate-1 run seconds, sum of gate-1b run seconds)."""
    sem = asyncio.Semaphore(workers)
    cands = [load_candidate(d) for d in dirs]
    spent = {"verify": 0.0, "invariance": 0.0}
    per_check = CHECK_SECONDS if invariance and mpi_ranks == 1 else {}

    async def one(c):
        async with sem:
            v = await averify(c, timeout=300)
            assert v.passed, v.reason
            spent["verify"] += v.seconds
            if invariance:
                r = await ainvariance(  # as `gate run`: the candidate's own form map
                    c, reference=v.printed, mpi_ranks=mpi_ranks, timeout=300, forms=v.forms
                )
                assert r.passed, r.reason
                spent["invariance"] += r.seconds
                for check in r.checks:
                    per_check[check.name] = per_check.get(check.name, 0.0) + check.seconds

    t0 = time.perf_counter()
    await asyncio.gather(*(one(c) for c in cands))
    return time.perf_counter() - t0, spent["verify"], spent["invariance"]


async def passes(
    dirs: list[Path], workers: int, repeats: int, mpi_candidates: int
) -> tuple[dict[str, list[float]], dict[str, float], tuple[float, float]]:
    """Every timed pass in one event loop (the warm servers serve them all), interleaved:
    (seconds of each pass per round, runs' own seconds summed, the MPI pass)."""
    await gates(dirs[:workers], workers, invariance=False)  # start the servers
    times: dict[str, list[float]] = {name: [] for name in PASSES}
    runs = {"gate 1 alone": 0.0, "gate 1 (with 1b)": 0.0, "gate 1b": 0.0}
    for r in range(repeats):
        for name in PASSES[r % len(PASSES) :] + PASSES[: r % len(PASSES)]:
            if name == "naive, sequential":
                times[name].append(naive(dirs))
            elif name == "naive, parallel":
                times[name].append(naive_parallel(dirs, workers))
            elif name == "naive gate 1 + 1b":
                times[name].append(naive_gates(dirs, workers))
            elif name == "gate 1 alone":
                t, g1, _ = await gates(dirs, workers, invariance=False)
                times[name].append(t)
                runs["gate 1 alone"] += g1
            else:
                t, g1, inv = await gates(dirs, workers, invariance=True)
                times[name].append(t)
                runs["gate 1 (with 1b)"] += g1
                runs["gate 1b"] += inv
    t_mpi = mpi_runs = 0.0
    if mpi_candidates:
        sub = dirs[:mpi_candidates]
        t_mpi, _, mpi_runs = await gates(sub, workers, invariance=True, mpi_ranks=2)
    return times, runs, (t_mpi, mpi_runs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int, nargs="?", default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--mpi", action="store_true")
    ap.add_argument("--templates-only", action="store_true")
    args = ap.parse_args()
    n, repeats = args.n, args.repeats
    workers = os.cpu_count() or 1
    root = Path(tempfile.mkdtemp(prefix="bench-invariance-"))
    try:
        t0 = time.perf_counter()
        dirs = make_candidates(n, root, seed=11)
        print(f"generated {n} candidates in {time.perf_counter() - t0:.1f} s")
        dirs = with_model_written(dirs, not args.templates_only)
        n = len(dirs)
        naive(dirs)  # warm the FFCx cache (every form: the passes compare warm runs)
        m = min(n, 4)
        times, runs, (t_mpi, mpi_runs) = asyncio.run(
            passes(dirs, workers, repeats, m if args.mpi else 0)
        )
        sandbox.stop_warm_servers()
        label = {
            "naive, sequential": "naive loop (python solution.py, sequential)",
            "naive, parallel": f"naive loop (python solution.py, {workers} at a time)",
            "naive gate 1 + 1b": f"naive gate 1 + 1b (fresh runs, {workers} at a time)",
            "gate 1 alone": f"gate 1 alone, warm ({workers} workers)",
            "gate 1 + gate 1b": f"gate 1 + gate 1b, warm ({workers} workers)",
        }
        for name in PASSES:
            med = statistics.median(times[name])
            print(f"{label[name]:52s} {spread(times[name])}  {60 * n / med:7.1f} candidates/min")
        if args.mpi:
            print(f"gate 1 + gate 1b with --mpi-ranks 2 ({m} candidates): {t_mpi:.1f} s")
        done = repeats * n
        g1b, g1_with = runs["gate 1b"], runs["gate 1 (with 1b)"]
        print(
            f"gate 1b per candidate: {g1b / done:.3f} s vs gate 1's {g1_with / done:.3f} s in "
            f"the same passes ({g1b / g1_with:.2f}x; gate 1 alone: "
            f"{runs['gate 1 alone'] / done:.3f} s)"
        )
        for name, seconds in CHECK_SECONDS.items():
            print(f"  of which {name}: {seconds / done:.3f} s per candidate")
        g1, both = (
            statistics.median(times["gate 1 alone"]),
            statistics.median(times["gate 1 + gate 1b"]),
        )
        print(
            f"wall-clock cost of adding gate 1b: {(both - g1) / g1:+.0%} over gate 1 alone (medians)"
        )
        par, seq = times["naive, parallel"], times["naive, sequential"]
        print("throughput ratios (naive time / gated time; goal >= 4x at the same worker count):")
        print(
            ratio_line(f"  gate 1 alone / naive, {workers} at a time", par, times["gate 1 alone"])
        )
        print(
            ratio_line(
                f"  gate 1 + gate 1b / naive, {workers} at a time", par, times["gate 1 + gate 1b"]
            )
        )
        print(
            ratio_line(
                f"  gate 1 + gate 1b / naive gate 1 + 1b, {workers} at a time",
                times["naive gate 1 + 1b"],
                times["gate 1 + gate 1b"],
            )
        )
        print(ratio_line("  gate 1 alone / naive, sequential", seq, times["gate 1 alone"]))
        print(ratio_line("  gate 1 + gate 1b / naive, sequential", seq, times["gate 1 + gate 1b"]))
        if args.mpi:
            print(f"2-rank MPI check: {mpi_runs / m:.2f} s of runs per candidate (gate 1b total)")
        print(f"network: {sandbox.protections()['network (bwrap)']}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
