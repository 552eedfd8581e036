"""Template `gate run`s of the same seed, interleaved, with their generation and gate
seconds (run by hand). Issue 27's goal: template generation at most 3x the gate time it
feeds.

    .venv/bin/python benchmarks/bench_template_run.py [--rounds 40] [--repeats 3] \
        [--variants warm,base:/tmp/base] [--cold]

Each repeat runs `scigate gate run --generator templates --seed 3 --screen cue/middle`
once per variant, in rotated order, each in its own process with its own database:
`warm` is the code as it is (self-check in the warm worker), `fresh` the same with the
old fresh-interpreter self-check, `base:DIR` the code in DIR/src (e.g. a `git archive`
of an earlier commit, put first on PYTHONPATH). With `--cold` every run gets an empty
`SCIGATE_CACHE_DIR`, so the FFCx JIT cache starts empty (the first run of a machine or
of a new seed); without it the runs share the user's cache, which the first run fills.
Prints per run the wall time, the child's CPU seconds (with the processes it waited
for), the generator's own seconds (the attempts' gen_seconds), the CPU seconds of its
template workers (sampled from /proc: the measure least moved by other load on the
machine) and the gates' seconds (near-duplicate check included), then median and min
per variant, and checks that all runs have the same funnel and the same outcome in
every round.
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
import threading
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


def _sample_workers(parent: int, seen: dict[int, float], stop: threading.Event) -> None:
    """CPU seconds (with their reaped children, the C compiler) of `parent`'s template
    workers, sampled every 0.1 s until `stop` (a worker's last 0.1 s may be missed)."""
    tick = os.sysconf("SC_CLK_TCK")
    while not stop.wait(0.1):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                stat = Path(entry.path, "stat").read_text()
                fields = stat[stat.rindex(")") + 2 :].split()
                if int(fields[1]) != parent:
                    continue
                if b"_script_worker.py" not in Path(entry.path, "cmdline").read_bytes():
                    continue
            except (OSError, ValueError):
                continue
            cpu = sum(int(f) for f in fields[11:15]) / tick  # utime stime cutime cstime
            seen[int(entry.name)] = max(cpu, seen.get(int(entry.name), 0.0))


def gate_run(db: Path, rounds: int, variant: str, cache: str | None) -> dict:
    """One `gate run`: wall and CPU seconds, generation and gate seconds, funnel and the
    outcome of every round."""
    args = ["gate", "run", "--domain", "fenicsx", "--generator", "templates"]
    args += ["--rounds", str(rounds), "--seed", "3", "--screen", "cue/middle"]
    args += ["--db", str(db), "--json"]
    fresh = variant == "fresh"
    prog = [sys.executable, "-c", FRESH] if fresh else [sys.executable, "-m", "scigate"]
    env = dict(os.environ)
    if variant.startswith("base:"):
        src = str(Path(variant[5:]) / "src")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    if cache is not None:
        env["SCIGATE_CACHE_DIR"] = cache
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [*prog, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    stop = threading.Event()
    workers: dict[int, float] = {}
    sampler = threading.Thread(target=_sample_workers, args=(proc.pid, workers, stop))
    sampler.start()
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    stop.set()
    sampler.join()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"gate run exited {status}: {out[-2000:]!r}")
    conn = sqlite3.connect(db)
    gen = conn.execute("SELECT SUM(gen_seconds) FROM attempts").fetchone()[0] or 0.0
    gates = conn.execute("SELECT SUM(seconds) FROM gate_results").fetchone()[0] or 0.0
    rounds_out = [s for (s,) in conn.execute("SELECT status FROM attempts ORDER BY round")]
    conn.close()
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "worker_cpu": sum(workers.values()),
        "gen": gen,
        "gates": gates,
        "funnel": json.loads(out)["funnel"],
        "rounds": rounds_out,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--variants", default="warm,fresh", help="warm, fresh, base:DIR")
    ap.add_argument("--cold", action="store_true", help="an empty JIT cache per run")
    args = ap.parse_args()
    variants = args.variants.split(",")
    results: dict[str, list[dict]] = {v: [] for v in variants}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeats):
            order = variants[r % len(variants) :] + variants[: r % len(variants)]
            for i, variant in enumerate(order):
                cache = tempfile.mkdtemp(dir=tmp) if args.cold else None
                res = gate_run(Path(tmp) / f"{r}-{i}.db", args.rounds, variant, cache)
                results[variant].append(res)
                print(
                    f"{variant}: wall {res['wall']:.1f} s, CPU {res['cpu']:.1f} s, generation "
                    f"{res['gen']:.1f} s (its workers' CPU {res['worker_cpu']:.1f} s), gates "
                    f"{res['gates']:.1f} s",
                    flush=True,
                )
    runs = [r for v in results.values() for r in v]
    funnels = {json.dumps(r["funnel"], sort_keys=True) for r in runs}
    print(f"funnels identical: {len(funnels) == 1}")
    print(f"every round's outcome identical: {len({tuple(r['rounds']) for r in runs}) == 1}")
    for name, rs in results.items():
        keys = ("wall", "cpu", "gen", "worker_cpu", "gates")
        med = {k: statistics.median(r[k] for r in rs) for k in keys}
        low = {k: min(r[k] for r in rs) for k in keys}
        print(
            f"{name}: median wall {med['wall']:.1f} s (min {low['wall']:.1f}), "
            f"CPU {med['cpu']:.1f} s, generation {med['gen']:.1f} s (min {low['gen']:.1f}) = "
            f"{med['gen'] / med['gates']:.2f}x the gates' {med['gates']:.1f} s "
            f"(min {low['gen'] / low['gates']:.2f}x); the generator workers' CPU "
            f"{med['worker_cpu']:.1f} s (min {low['worker_cpu']:.1f})"
        )


if __name__ == "__main__":
    main()
