"""Verification throughput: scigate's gate 1 against a naive loop, in the same run.

Generates N FEniCSx template candidates (default 20), then verifies them
  - naive: a fresh `python solution.py` per candidate, one after another, no sandbox;
  - scigate: `averify` (sandboxed: own process group, limits, scrubbed env, shared FFCx
    cache) with one concurrent run per core.
Both use a warm FFCx cache (the first pass warms it). Prints candidates per minute and
the ratio. Run by hand: .venv/bin/python benchmarks/bench_verify.py [N]
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scigate.domains import get_domain
from scigate.gate import averify, copy_without_answer, load_candidate


def make_candidates(n: int, root: Path) -> list[Path]:
    gen = get_domain("fenicsx").template_generator(7)
    return [gen.generate(i, root / f"c{i:03d}") for i in range(n)]


def naive(dirs: list[Path]) -> float:
    t0 = time.perf_counter()
    for d in dirs:
        with tempfile.TemporaryDirectory() as tmp:
            work = copy_without_answer(d, Path(tmp) / "c")
            out = subprocess.run(
                [sys.executable, "solution.py"], cwd=work, capture_output=True, text=True
            )
            assert out.returncode == 0, out.stderr[-500:]
    return time.perf_counter() - t0


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
    try:
        t0 = time.perf_counter()
        dirs = make_candidates(n, root)
        print(f"generated {n} candidates in {time.perf_counter() - t0:.1f} s")
        naive(dirs[:2])  # warm the FFCx cache for both
        t_naive = naive(dirs)
        t_ours = asyncio.run(scigate_verify(dirs, workers))
        rate_naive, rate_ours = 60 * n / t_naive, 60 * n / t_ours
        print(
            f"naive loop (python solution.py, sequential): {t_naive:6.1f} s  {rate_naive:6.1f} candidates/min"
        )
        print(
            f"scigate verify ({workers} workers, sandboxed):   {t_ours:6.1f} s  {rate_ours:6.1f} candidates/min"
        )
        print(f"ratio scigate/naive throughput: {rate_ours / rate_naive:.2f}x")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
