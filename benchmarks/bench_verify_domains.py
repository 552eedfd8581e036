"""Gate 1 + 1b throughput for the chemistry and materials domains against a naive loop.

Generates N template candidates of the domain (default 12), then runs gate 1 (the
solution reproduces the proposed option) and gate 1b (every semantic check of the domain)
  - naive: a fresh `python` process per run (the solution, then each check's runner with
    its prelude), one after another, no sandbox, no preload;
  - scigate: `ainvariance` as shipped (gate 1 then the checks, each run forked from a warm
    sandbox server that imported RDKit or pymatgen once; server start-up included), one
    candidate per core.
Prints candidates per minute and the ratio. Run by hand:
.venv/bin/python benchmarks/bench_verify_domains.py chemistry|materials [N]
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
from scigate.gate import ainvariance, load_candidate
from scigate.gate._invariance import RUNNER, runner_source


def naive(dirs: list[Path], domain: str) -> float:
    """Fresh interpreters, one run after another: the solution, then every check."""
    checks = get_domain(domain).semantic_checks()
    t0 = time.perf_counter()
    for d in dirs:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp) / "c"
            shutil.copytree(d, work, ignore=shutil.ignore_patterns("answer.txt"))
            runs = [["solution.py"]]
            for check in checks:
                name = f"{check.name}_{RUNNER}"
                (work / name).write_text(runner_source(check, "bench"))
                runs.append([name])
            for argv in runs:
                proc = subprocess.run(
                    [sys.executable, *argv], cwd=work, capture_output=True, text=True
                )
                assert proc.returncode == 0, proc.stderr[-500:]
    return time.perf_counter() - t0


async def scigate_checks(dirs: list[Path], domain: str, workers: int) -> float:
    sem = asyncio.Semaphore(workers)
    cands = [load_candidate(d) for d in dirs]

    async def one(c):
        async with sem:
            r = await ainvariance(c, domain=domain, timeout=300)
            assert r.passed, r.reason

    t0 = time.perf_counter()
    await asyncio.gather(*(one(c) for c in cands))
    return time.perf_counter() - t0


def main() -> None:
    domain = sys.argv[1] if len(sys.argv) > 1 else "chemistry"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    workers = os.cpu_count() or 1
    root = Path(tempfile.mkdtemp(prefix="bench-verify-domains-"))
    try:
        t0 = time.perf_counter()
        with get_domain(domain).template_generator(seed=7) as gen:
            gen.check_solution = False
            dirs = [gen.generate(i, root / f"c{i:02d}") for i in range(n)]
        print(f"{domain}: generated {n} candidates in {time.perf_counter() - t0:.1f} s")
        t_naive = naive(dirs, domain)
        t_warm = asyncio.run(scigate_checks(dirs, domain, workers))
        runs = 1 + len(get_domain(domain).semantic_checks())
        print(f"gate 1 + 1b ({runs} runs per candidate), {workers} cores")
        print(f"naive fresh-process loop: {60 * n / t_naive:7.1f} candidates/min ({t_naive:.1f} s)")
        print(f"scigate warm, sandboxed:  {60 * n / t_warm:7.1f} candidates/min ({t_warm:.1f} s)")
        print(f"ratio warm/naive: {t_naive / t_warm:.2f}x")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
