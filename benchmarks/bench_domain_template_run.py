"""Issue 27 for the chemistry and materials template generators: generation time against
the gate 1 + 1b time it feeds, in a `gate run --rounds 40` per domain (run by hand).

    .venv/bin/python benchmarks/bench_domain_template_run.py [--rounds 40]
        [--domains chemistry,materials] [--before]

Each run is `scigate gate run --domain D --generator templates --seed 3 --screen
cue/middle` in its own process with its own database. Prints the wall time, the child's CPU
seconds (with the processes it waited for), the generator's seconds (the attempts'
gen_seconds), the gates' seconds (gate 1 `verify` and gate 1b `invariance`, from
gate_results) and their ratio; goal: generation at most 3x the gates.
`--before` also runs each domain with the generator as it was: the saved solution
re-run in a fresh interpreter per candidate (`fresh_check`) and, for materials, a template
worker that rebuilds pymatgen's space group in every script (no preload file).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: `gate run` with the generator as it was: fresh-interpreter self-check, and the materials
#: worker's preload file dropped (every script rebuilds its space group).
BEFORE = """
import sys
from scigate.cli import main
from scigate.domains import _templates
from scigate.domains.materials import templates
templates.PRELOAD = tuple(p for p in templates.PRELOAD if not p.endswith(".py"))
_init = _templates.ComputedTemplateGenerator.__init__
def _fresh(self, *args, **kwargs):
    _init(self, *args, **kwargs)
    self.fresh_check = True
_templates.ComputedTemplateGenerator.__init__ = _fresh
main(sys.argv[1:])
"""


def gate_run(domain: str, db: Path, rounds: int, before: bool) -> dict:
    """One `gate run`: wall and CPU seconds, generation seconds and gate seconds by gate."""
    args = ["gate", "run", "--domain", domain, "--generator", "templates"]
    args += ["--rounds", str(rounds), "--seed", "3", "--screen", "cue/middle"]
    args += ["--db", str(db), "--json"]
    prog = [sys.executable, "-c", BEFORE] if before else [sys.executable, "-m", "scigate"]
    t0 = time.perf_counter()
    proc = subprocess.Popen([*prog, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"gate run exited {status}: {out[-2000:]!r}")
    conn = sqlite3.connect(db)
    gen = conn.execute("SELECT SUM(gen_seconds) FROM attempts").fetchone()[0] or 0.0
    gates = dict(
        conn.execute(
            "SELECT gate, SUM(seconds) FROM gate_results WHERE gate IN ('verify', 'invariance') "
            "GROUP BY gate"
        ).fetchall()
    )
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
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--domains", default="chemistry,materials")
    ap.add_argument("--before", action="store_true")
    args = ap.parse_args()
    modes = (True, False) if args.before else (False,)
    runs = [(d, before) for d in args.domains.split(",") for before in modes]
    with tempfile.TemporaryDirectory() as tmp:
        for i, (domain, before) in enumerate(runs):
            res = gate_run(domain, Path(tmp) / f"{i}.db", args.rounds, before)
            gates = sum(res["gates"].values())
            label = f"{domain} {'before' if before else 'now'}"
            print(
                f"{label}, {args.rounds} rounds: wall {res['wall']:.1f} s, CPU {res['cpu']:.1f} s, "
                f"generation {res['gen']:.1f} s, gates {gates:.1f} s "
                f"(verify {res['gates'].get('verify', 0):.1f}, invariance "
                f"{res['gates'].get('invariance', 0):.1f}): generation = "
                f"{res['gen'] / gates if gates else float('inf'):.2f}x the gates; funnel "
                f"{json.dumps(res['funnel'])}",
                flush=True,
            )


if __name__ == "__main__":
    main()
