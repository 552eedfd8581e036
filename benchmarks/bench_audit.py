"""`gate audit` and `gate report` on 25k / 50k / 100k synthetic candidates: CPU and peak RSS.

Run by hand: `.venv/bin/python benchmarks/bench_audit.py [--sizes 25000 50000 100000]
[--baseline-src DIR] [--db-dir DIR]`.

Each size gets a run database from `bench_report.synthetic_db` (templated questions from
eight families whose numbers repeat across families, so every family is one large
near-duplicate cluster and dissimilar questions share their rare tokens: the case that
made the clustering quadratic). `scigate gate audit --db ... --json` and `scigate gate
report --db ... --out ...` then run as the user runs them, each in its own process; the
child's CPU seconds (user + system) and peak RSS come from `os.wait4`. The cost per
doubling is (t_large / t_small) ** (1 / log2(n_large / n_small)) between successive
sizes (1.0: constant, 2.0: linear, 4.0: quadratic). With `--clusters` the near-duplicate
clustering alone is timed in-process as well (`text_clusters`) on the same questions.
The issue's goal: 100k candidates under 30 s and 1 GB each, and at most x1.1 per doubling
beyond linear (time and memory per candidate).

`--baseline-src DIR` runs the same commands a second time with `PYTHONPATH=DIR` (another
checkout's `src`, e.g. `git archive <commit> src | tar -x -C /tmp/base`), interleaved with
this checkout's, so a shared machine's load hits both alike. `--db-dir` keeps the
databases there (built once, reused by later runs) instead of a temporary directory.
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


def measured(cmd: list[str], src: str | None = None) -> tuple[float, float, float]:
    """Run `cmd` (with `PYTHONPATH=src` when given); return (wall s, CPU s of the child,
    peak RSS of the child in MB)."""
    env = dict(os.environ, PYTHONPATH=src) if src else None
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
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
    ap.add_argument("--sizes", type=int, nargs="+", default=[25_000, 50_000, 100_000])
    ap.add_argument("--clusters", action="store_true", help="also time the clustering alone")
    ap.add_argument("--baseline-src", help="another checkout's src, run interleaved")
    ap.add_argument("--db-dir", type=Path, help="keep (and reuse) the databases here")
    args = ap.parse_args()
    variants = [("this", None)] + ([("baseline", args.baseline_src)] if args.baseline_src else [])
    rows: dict[str, list[tuple[int, tuple, tuple]]] = {name: [] for name, _ in variants}
    with tempfile.TemporaryDirectory() as tmp:
        dbs = args.db_dir or Path(tmp)
        dbs.mkdir(parents=True, exist_ok=True)
        for n in args.sizes:
            db = dbs / f"bench-{n}.db"
            if not db.exists():
                t_build = time.perf_counter()
                counts = synthetic_db(db, n)
                print(
                    f"{n}: database {counts} built in {time.perf_counter() - t_build:.1f} s "
                    f"({db.stat().st_size / 1e6:.0f} MB)",
                    flush=True,
                )
            for name, src in variants:  # interleaved: this, baseline, per size
                audit = measured([*SCIGATE, "gate", "audit", "--db", str(db), "--json"], src)
                out = Path(tmp) / f"r{n}-{name}"
                report = measured(
                    [*SCIGATE, "gate", "report", "--db", str(db), "--out", str(out)], src
                )
                rows[name].append((n, audit, report))
                print(f"{n} {name}: audit {_fmt(audit)}; report {_fmt(report)}", flush=True)
            if args.clusters:
                spent, largest = clusters_only(db)
                print(f"{n}: clustering alone {spent:.2f} s CPU (largest cluster {largest})")
            if args.db_dir is None:
                db.unlink()
    for name, _ in variants:
        print(
            f"\n{name}: CPU s (wall s) / peak RSS MB; per doubling: per-candidate factor "
            "(1.00: linear; goal <= 1.10)"
        )
        print(table(rows[name]))


def _fmt(m: tuple[float, float, float]) -> str:
    return f"{m[1]:.1f} s CPU ({m[0]:.1f} s wall, {m[2]:.0f} MB peak)"


def table(rows: list[tuple[int, tuple, tuple]]) -> str:
    """The measurements as a text table, with the growth per doubling beyond linear
    (cost per candidate at n1 over cost per candidate at n0, per doubling)."""
    head = f"{'candidates':>10} | {'audit CPU':>9} {'(wall)':>8} {'RSS MB':>7} | "
    head += f"{'report CPU':>10} {'(wall)':>8} {'RSS MB':>7}"
    lines = [head, "-" * len(head)]
    for n, a, r in rows:
        lines.append(
            f"{n:>10} | {a[1]:>9.1f} {a[0]:>8.1f} {a[2]:>7.0f} | {r[1]:>10.1f} {r[0]:>8.1f} {r[2]:>7.0f}"
        )
    for (n0, a0, r0), (n1, a1, r1) in pairwise(rows):
        f = [
            f"x{per_doubling(n0, x0, n1, x1) / 2:.2f}"
            for x0, x1 in ((a0[1], a1[1]), (a0[2], a1[2]), (r0[1], r1[1]), (r0[2], r1[2]))
        ]
        lines.append(
            f"{n0}->{n1}: per candidate per doubling: audit CPU {f[0]}, RSS {f[1]}; "
            f"report CPU {f[2]}, RSS {f[3]}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
