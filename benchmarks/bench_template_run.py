"""A template `gate run --rounds 8` with the generator's self-check in the warm worker (as
shipped) against the old fresh-interpreter self-check, interleaved (run by hand).

    .venv/bin/python benchmarks/bench_template_run.py [--rounds 8] [--repeats 2]

Each repeat runs the same `scigate gate run --generator templates --seed 3 --screen
cue/middle` twice, once per self-check, in alternating order, each in its own process
with its own database. Prints per run the wall time, the child's CPU seconds (with the
processes it waited for), the generator's own seconds (the attempts' gen_seconds) and
the gates' seconds, and checks that both runs have the same funnel. Goal (issue 27):
template generation at most 3x the gate time it feeds.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: Runs `gate run` with the old self-check: the saved solution rerun in a fresh interpreter.
FRESH = """
import sys
from scigate.cli import main
from scigate.domains.fenicsx import FenicsxDomain
make = FenicsxDomain.template_generator
def fresh(self, seed=0, families=None):
    gen = make(self, seed, families)
    gen.fresh_check = True
    return gen
FenicsxDomain.template_generator = fresh
main(sys.argv[1:])
"""


def gate_run(db: Path, rounds: int, fresh: bool) -> dict:
    """One `gate run`: wall and CPU seconds, generation and gate seconds, funnel."""
    args = ["gate", "run", "--domain", "fenicsx", "--generator", "templates"]
    args += ["--rounds", str(rounds), "--seed", "3", "--screen", "cue/middle"]
    args += ["--db", str(db), "--json"]
    prog = [sys.executable, "-c", FRESH] if fresh else [sys.executable, "-m", "scigate"]
    t0 = time.perf_counter()
    proc = subprocess.Popen([*prog, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"gate run exited {status}: {out[-2000:]!r}")
    conn = sqlite3.connect(db)
    gen = conn.execute("SELECT SUM(gen_seconds) FROM attempts").fetchone()[0] or 0.0
    gates = conn.execute("SELECT SUM(seconds) FROM gate_results").fetchone()[0] or 0.0
    conn.close()
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "gen": gen,
        "gates": gates,
        "funnel": json.loads(out)["funnel"],
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    results: dict[str, list[dict]] = {"warm self-check": [], "fresh self-check": []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeats):
            order = [False, True] if r % 2 == 0 else [True, False]
            for fresh in order:
                name = "fresh self-check" if fresh else "warm self-check"
                res = gate_run(Path(tmp) / f"{r}-{int(fresh)}.db", args.rounds, fresh)
                results[name].append(res)
                print(
                    f"{name}: wall {res['wall']:.1f} s, CPU {res['cpu']:.1f} s, generation "
                    f"{res['gen']:.1f} s, gates {res['gates']:.1f} s",
                    flush=True,
                )
    funnels = {json.dumps(r["funnel"], sort_keys=True) for v in results.values() for r in v}
    print(f"funnels identical: {len(funnels) == 1}")
    for name, runs in results.items():
        med = {k: statistics.median(r[k] for r in runs) for k in ("wall", "cpu", "gen", "gates")}
        print(
            f"{name:17s} median wall {med['wall']:.1f} s (min {min(r['wall'] for r in runs):.1f}), "
            f"CPU {med['cpu']:.1f} s, generation {med['gen']:.1f} s = "
            f"{med['gen'] / med['gates']:.1f}x the gates' {med['gates']:.1f} s"
        )


if __name__ == "__main__":
    main()
