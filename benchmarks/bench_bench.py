"""OpenSciToolBench with executed answers: build rate, derive throughput, cue baselines.

1. Tasks built per minute offline (`bench build --generator templates`, no screens).
2. `bench derive` on a few hundred SciToolEval-format tasks (the built tasks without
   answers, repeated as a source file repeats molecules) against a naive sequential loop
   (one plan per task, no call cache, one process).
3. The share of built multiple-choice tasks that each cue baseline solves (2 of 3
   shuffled presentations), beside chance (1/4).

    .venv/bin/python benchmarks/bench_bench.py [--n 48] [--copies 8] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from scigate.bench import BuildConfig, build, read_tasks, run_tasks
from scigate.bench._answer import execute_task
from scigate.gate import CUES, Candidate, make_responder, run_screen


def naive_derive(tasks: list[dict]) -> int:
    """The baseline: every task planned and executed on its own, sequentially, no cache."""
    derived = 0
    for raw in tasks:
        try:
            execute_task(raw, cache=None)
            derived += 1
        except Exception:
            pass
    return derived


async def cue_shares(tasks: list[dict], seed: int) -> dict[str, float]:
    mc = [t for t in tasks if t.get("format") == "multiple choice"]
    shares = {}
    for cue in CUES:
        responder = make_responder(f"cue/{cue}")
        solved = 0
        for t in mc:
            c = Candidate(question=t["question"], options=t["options"], answer=t["answer"])
            solved += (await run_screen(c, responder, seed=seed)).solved
        shares[cue] = solved / max(1, len(mc))
    return shares


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=48, help="tasks to build")
    ap.add_argument("--copies", type=int, default=8, help="copies of the built tasks to derive")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="scigate-bench-bench-"))

    from scigate.bench._catalog import tool_roles

    t0 = time.perf_counter()
    tool_roles()  # the one-off probe of the library, reported on its own
    probe = time.perf_counter() - t0
    t0 = time.perf_counter()
    report = build(BuildConfig(n=args.n, seed=args.seed), root / "runs.db", root / "built.jsonl")
    seconds = time.perf_counter() - t0
    print(f"probe of the tool library: {probe:.1f} s (once per process)")
    print(
        f"build: {report.accepted} tasks in {report.attempts} attempts, {seconds:.1f} s "
        f"-> {60 * report.accepted / seconds:.0f} tasks/minute offline"
    )

    built = read_tasks(root / "built.jsonl")
    source = [
        {k: v for k, v in t.items() if k not in ("answer", "id")} for t in built
    ] * args.copies
    t0 = time.perf_counter()
    naive = naive_derive(source)
    naive_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    outcomes = run_tasks("derive", source, workers=args.workers)
    fast_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    cached = run_tasks("derive", source, workers=1)
    cached_s = time.perf_counter() - t0
    assert sum(o.status == "derived" for o in outcomes) == naive
    print(
        f"derive {len(source)} tasks: naive sequential {naive_s:.1f} s "
        f"({len(source) / naive_s:.0f}/s); one process + call cache {cached_s:.1f} s "
        f"({naive_s / cached_s:.1f}x); {args.workers} workers + cache {fast_s:.1f} s "
        f"({len(source) / fast_s:.0f}/s, {naive_s / fast_s:.1f}x, incl. worker start-up)"
    )
    assert sum(o.status == "derived" for o in cached) == naive

    shares = asyncio.run(cue_shares(built, args.seed))
    mc = sum(t.get("format") == "multiple choice" for t in built)
    print(f"\ncue baselines on {mc} built multiple-choice tasks (chance 25%):")
    print("| cue | solved % |\n| --- | --- |")
    for cue, share in shares.items():
        print(f"| {cue} | {100 * share:.0f} |")


if __name__ == "__main__":
    main()
