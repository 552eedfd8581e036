"""`gate audit` and `gate report` on 1k / 10k / 100k synthetic candidates: CPU and peak RSS.

Run by hand: `.venv/bin/python benchmarks/bench_audit.py [--sizes 1000 10000 100000]`.

Each size gets a run database from `bench_report.synthetic_db` (templated questions from
eight families whose numbers repeat across families, so every family is one large
near-duplicate cluster and dissimilar questions share their rare tokens: the case that
made the clustering quadratic). `scigate gate audit --db ... --json` and `scigate gate
report --db ... --out ...` then run as the user runs them, each in its own process; the
child's CPU seconds (user + system) and peak RSS come from `os.wait4`. The cost per
doubling is (t_large / t_small) ** (1 / log2(n_large / n_small)) between successive
sizes (1.0: constant, 2.0: linear, 4.0: quadratic). With `--clusters` the near-duplicate
clustering alone is timed in-process as well (`text_clusters`) on the same questions.
The issue's goal: 100k candidates under 30 s and 1 GB each.
"""

from __future__ import annotations

import argparse
import math
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path

from bench_report import synthetic_db

SCIGATE = [sys.executable, "-m", "scigate"]


def measured(cmd: list[str]) -> tuple[float, float, float]:
    """Run `cmd`; return (wall s, CPU s of the child, peak RSS of the child in MB)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}: {err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def per_doubling(n0: int, t0: float, n1: int, t1: float) -> float:
    """The cost factor per doubling of the size between two measurements."""
    return (t1 / t0) ** (1 / math.log2(n1 / n0)) if t0 > 0 and n1 > n0 else float("nan")


def clusters_only(db: Path) -> tuple[float, int]:
    """CPU seconds of `text_clusters` over every question, and the largest cluster."""
    from scigate.gate._audit import JACCARD_THRESHOLD
    from scigate.gate._similarity import text_clusters

    conn = sqlite3.connect(db)
    rows = (q for (q,) in conn.execute("SELECT question FROM candidates ORDER BY created_at, id"))
    t0 = time.process_time()
    groups = text_clusters(rows, JACCARD_THRESHOLD)
    spent = time.process_time() - t0
    conn.close()
    return spent, len(groups[0]) if groups else 0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    ap.add_argument("--clusters", action="store_true", help="also time the clustering alone")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            db = Path(tmp) / f"bench-{n}.db"
            t_build = time.perf_counter()
            counts = synthetic_db(db, n)
            t_build = time.perf_counter() - t_build
            print(
                f"{n}: database {counts} built in {t_build:.1f} s "
                f"({db.stat().st_size / 1e6:.0f} MB)",
                flush=True,
            )
            audit = measured([*SCIGATE, "gate", "audit", "--db", str(db), "--json"])
            report = measured(
                [*SCIGATE, "gate", "report", "--db", str(db), "--out", str(Path(tmp) / f"r{n}")]
            )
            extra = ""
            if args.clusters:
                spent, largest = clusters_only(db)
                extra = f"; clustering alone {spent:.2f} s CPU (largest cluster {largest})"
            rows.append((counts["candidates"], audit, report))
            print(
                f"{n}: audit {audit[1]:.2f} s CPU ({audit[0]:.2f} s wall, {audit[2]:.0f} MB peak); "
                f"report {report[1]:.2f} s CPU ({report[0]:.2f} s wall, {report[2]:.0f} MB peak)"
                + extra,
                flush=True,
            )
            db.unlink()
    for (n0, a0, r0), (n1, a1, r1) in pairwise(rows):
        print(
            f"{n0} -> {n1}: CPU per doubling: audit x{per_doubling(n0, a0[1], n1, a1[1]):.2f}, "
            f"report x{per_doubling(n0, r0[1], n1, r1[1]):.2f}; peak RSS per doubling: "
            f"audit x{per_doubling(n0, a0[2], n1, a1[2]):.2f}, "
            f"report x{per_doubling(n0, r0[2], n1, r1[2]):.2f}"
        )


if __name__ == "__main__":
    main()
