"""What going distributed costs: a template gate run, local executor vs Ray workers.

Runs the same template gate run (FEniCSx templates, --seed 0, one cue screen) on N
candidates with verification in this process (the local executor, the baseline) and on
a local Ray with 1 and 2 workers (`ray.init(num_cpus=k)`), and reports candidates per
minute, the ratio against the local run, the time to start Ray, and Ray's overhead per
task (a batch of no-op jobs on Ray minus the same batch on local threads, per job).
Every run must reach the same funnel (checked); an untimed local run first fills the
FFCx form cache so that no mode pays for compilation. Generation of the candidates runs in the
driver in every mode, so on a 2-core machine Ray's workers compete with it.

    .venv/bin/python benchmarks/bench_executor.py [--candidates 20] [--workers 1,2]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from scigate.executor import Executor, Job, LocalExecutor
from scigate.gate import executor_verifier
from scigate.gate._loop import LoopConfig, run_loop
from scigate.store import Store


def _noop(i: int) -> int:
    return i


def gate_run(candidates: int, executor: Executor | None) -> tuple[float, dict]:
    """(seconds, funnel) of one template gate run in a fresh database."""
    cfg = LoopConfig(
        generator="templates",
        screens=["cue/middle"],
        rounds=candidates,
        seed=0,
        fem_workers=2,
        concurrency=4,
    )
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "run.db")
        verifier = executor_verifier(executor) if executor else None
        start = time.perf_counter()
        _, funnel = asyncio.run(run_loop(cfg, store, verifier=verifier))
        seconds = time.perf_counter() - start
        store.close()
    return seconds, funnel.model_dump()


def per_job(executor: Executor, n: int = 200) -> float:
    """Seconds per no-op job through `executor` (best of 3 batches)."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        results = executor.run_all(Job(id=str(i), fn=_noop, args=(i,)) for i in range(n))
        assert all(r.ok for r in results.values())
        best = min(best, time.perf_counter() - start)
    return best / n


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--candidates", type=int, default=20)
    parser.add_argument("--workers", default="1,2", help="Ray worker counts to run")
    args = parser.parse_args()
    from scigate.executor._ray import RayExecutor

    gate_run(args.candidates, None)  # warm-up: FFCx form cache, imports (not timed)
    seconds, funnel = gate_run(args.candidates, None)
    local_job = per_job(LocalExecutor(2))
    rows = [("local (in process)", seconds, None, local_job)]
    for k in (int(w) for w in args.workers.split(",")):
        started = time.perf_counter()
        ray_ex = RayExecutor(num_cpus=k)
        try:
            per_job(ray_ex, 8)  # start the worker processes before timing
            startup = time.perf_counter() - started
            ray_seconds, ray_funnel = gate_run(args.candidates, ray_ex)
            assert ray_funnel == funnel, (ray_funnel, funnel)
            rows.append((f"ray, {k} worker(s)", ray_seconds, startup, per_job(ray_ex)))
        finally:
            ray_ex.close()
    print(f"template gate run, {args.candidates} candidates, funnel: {funnel}")
    print(
        f"{'executor':<20} {'seconds':>8} {'cand/min':>9} {'vs local':>9} "
        f"{'Ray start (s)':>13} {'s/no-op job':>12} {'overhead/job (ms)':>18}"
    )
    base = rows[0][1]
    for name, secs, startup, job in rows:
        overhead = "" if startup is None else f"{1000 * (job - local_job):.2f}"
        print(
            f"{name:<20} {secs:>8.1f} {60 * args.candidates / secs:>9.1f} {base / secs:>8.2f}x "
            f"{'' if startup is None else f'{startup:.1f}':>13} {job:>12.5f} {overhead:>18}"
        )


if __name__ == "__main__":
    main()
