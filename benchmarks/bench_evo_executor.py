"""What running Evo's tool calls as executor jobs costs: in-process vs local jobs vs Ray.

Runs `agent eval --method evo` on the fixed 20-task scripted benchmark (the scripted
python/ model, real tool execution, 50/50 split, seed 0; --runs runs, --concurrency runs
in flight) three ways: tool calls in threads of this process (the baseline, today's
behaviour), as jobs of the local executor (the tool-runner seam alone), and as jobs of a
local Ray with --workers CPUs. Every mode must give the same rows (checked). Reported:
seconds, tasks per minute, the ratio against the baseline, tool calls run as jobs, and
the added cost per tool call ((mode - baseline) / tool jobs; on Ray it includes each
worker's fetch of the shared tools, ~0.2 s per evaluation). A second table gives the
steady-state round trip of one tool call (SMILESToWeight, after a warm-up), one after the
other as Evo makes them. The agent loop and the memory stay in the driver in every mode,
so Ray can only add cost here unless tool calls are heavy; the point is to know what it
costs.

    .venv/bin/python benchmarks/bench_evo_executor.py [--runs 2] [--concurrency 2] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from scigate.agents import EvalConfig, evaluate, library_tools, load_bench
from scigate.agents._toolrun import LOCAL, ExecutorToolRunner, ToolRunner
from scigate.executor import Executor, LocalExecutor
from scigate.llm import get_model
from scigate.tools import make_embedder

HERE = Path(__file__).parent
BENCH = HERE / "data" / "agents_scripted_20.jsonl"
MODEL = f"python/{HERE / 'data' / 'agents_scripted_model.py'}:policy"
TIMING = ("wall_seconds", "model_free_seconds", "latency")


def evo_eval(runs: int, concurrency: int, executor: Executor | None) -> tuple[float, list, dict]:
    """(seconds, rows without timings, config.executor) of one evo evaluation."""
    tasks = load_bench(BENCH)
    config = EvalConfig(method="evo", runs=runs, split_seed=0, concurrency=concurrency)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        result = asyncio.run(
            evaluate(
                get_model(MODEL),
                tasks,
                library_tools(),
                config,
                embedder=make_embedder("hashing"),
                executor=executor,
                out=Path(tmp) / "eval",
            )
        )
        seconds = time.perf_counter() - start
    rows = [{k: v for k, v in r.items() if k not in TIMING} for r in result.rows]
    return seconds, rows, result.config["executor"]


def round_trip(runner: ToolRunner, n: int = 50) -> float:
    """Milliseconds per sequential SMILESToWeight call through `runner` (after 10 warm-up)."""
    tool = library_tools()["SMILESToWeight"]

    async def calls(k: int) -> None:
        for _ in range(k):
            (result,) = await runner.run(tool, [{"smiles": "CCO"}])
            assert result.ok, result.error

    asyncio.run(calls(10))
    start = time.perf_counter()
    asyncio.run(calls(n))
    return 1000 * (time.perf_counter() - start) / n


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2, help="CPUs of the local Ray")
    args = parser.parse_args()
    from scigate.executor._ray import RayExecutor

    evo_eval(1, 1, None)  # warm-up: imports, RDKit, the tool index (not timed)
    base, rows, _ = evo_eval(args.runs, args.concurrency, None)
    table = [("in process (baseline)", base, 0)]
    seconds, same, ran = evo_eval(args.runs, args.concurrency, LocalExecutor(args.workers))
    assert same == rows, "local executor rows differ"
    table.append((f"local executor, {args.workers} threads", seconds, ran["tool_jobs"]))
    started = time.perf_counter()
    ray_ex = RayExecutor(num_cpus=args.workers)
    try:
        evo_eval(args.runs, args.concurrency, ray_ex)  # start and warm the worker processes
        startup = time.perf_counter() - started
        seconds, same, ran = evo_eval(args.runs, args.concurrency, ray_ex)
        assert same == rows, "Ray rows differ"
        table.append((f"ray, {args.workers} worker(s)", seconds, ran["tool_jobs"]))
        trips = [
            ("thread of this process", round_trip(LOCAL)),
            (
                "local executor job",
                round_trip(ExecutorToolRunner(LocalExecutor(2), library_tools())),
            ),
            ("Ray job", round_trip(ExecutorToolRunner(ray_ex, library_tools()))),
        ]
    finally:
        ray_ex.close()
    tasks = len(rows)
    print(
        f"evo eval, {tasks} task rows ({args.runs} runs x 20 tasks), "
        f"--concurrency {args.concurrency}; Ray start + first batch {startup:.1f} s (not counted)"
    )
    print(
        f"{'tool calls run':<26} {'seconds':>8} {'tasks/min':>10} {'vs baseline':>12} "
        f"{'tool jobs':>10} {'added ms/tool call':>19}"
    )
    for name, secs, jobs in table:
        added = f"{1000 * (secs - base) / jobs:.1f}" if jobs else ""
        print(
            f"{name:<26} {secs:>8.1f} {60 * tasks / secs:>10.1f} {base / secs:>11.2f}x "
            f"{jobs or '':>10} {added:>19}"
        )
    print(f"\n{'one tool call as a':<26} {'ms':>8} {'added ms':>9}")
    for name, ms in trips:
        print(f"{name:<26} {ms:>8.2f} {ms - trips[0][1]:>9.2f}")


if __name__ == "__main__":
    main()
