"""Per-task LLM calls, prompt tokens and wall time outside the model, for every method.

Runs the seven methods on the fixed 20-task scripted benchmark with the scripted
python/ model (real tool execution, the library's category-stratified 50/50 known/unknown
split `scigate.tools.make_split`, seed 0) and prints them
beside the paper's Table A4 (GPT-5.4-mini on OpenSciToolBench). Token counts of a
python/ model are estimates (4 characters a token), so compare ratios, not absolutes.

    .venv/bin/python benchmarks/bench_agents.py [--known-ratio 0.5] [--train 5]
        [--concurrency 4] [--latency 0.05]

A second table runs the harness at --concurrency 1 and N with every model call delayed by
a simulated round trip (--latency): calls and tokens per task must not change, and the
ratio of wall times is what concurrency buys (Evo overlaps only runs, so one run of it
gains nothing: its tasks learn in order).

    .venv/bin/python benchmarks/bench_agents.py --wire

With --wire the same policy also answers from the conformance server of the tests
(tests/llm/_wire.py: OpenAI and Anthropic wire formats, documented request rules, a 429
every 25 requests) through the official SDKs; the table compares calls and tokens per
task and wall time per call, and reports rejected requests (must be 0).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import time
from pathlib import Path

from scigate.agents import METHODS, EvalConfig, Task, evaluate, library_tools, load_bench
from scigate.llm import get_model
from scigate.tools import Tool

HERE = Path(__file__).parent
BENCH = HERE / "data" / "agents_scripted_20.jsonl"
MODEL = f"python/{HERE / 'data' / 'agents_scripted_model.py'}:policy"
DELAYED = f"python/{HERE / 'data' / 'agents_scripted_model.py'}:delayed_policy"
PAPER = {  # Table A4: LLM calls, input tokens, output tokens per task
    "react": (8.2, 72115.8, 427.8),
    "reflexion": (16.1, 149435.9, 931.1),
    "scitoolagent": (4.7, 6859.4, 441.0),
    "evo": (11.3, 21711.3, 387.8),
}


def _wire_server():
    path = HERE.parent / "tests" / "llm" / "_wire.py"
    spec = importlib.util.spec_from_file_location("bench_wire", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    policy = spec_from = importlib.util.spec_from_file_location(
        "bench_policy", HERE / "data" / "agents_scripted_model.py"
    )
    scripted = importlib.util.module_from_spec(spec_from)
    policy.loader.exec_module(scripted)
    return module.WireServer({"policy": scripted.policy}, throttle_every=25)


async def wire(tasks, tools, known_ratio: float) -> None:
    """Per method: the python/ model against the same policy behind the wire formats."""
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    os.environ.setdefault("ANTHROPIC_API_KEY", "sk-ant-bench")
    server = _wire_server()
    retry = "retry_wait=0.01&retry_wait_max=0.05"
    specs = {
        "python": MODEL,
        "openai gpt-5.4-mini": f"openai/gpt-5.4-mini?base_url={server.openai_url('policy')}&{retry}",
        "anthropic sonnet-4-5": (
            f"anthropic/claude-sonnet-4-5?base_url={server.anthropic_url('policy')}&{retry}"
        ),
    }
    print("| method | through | calls/task | input tok/task | output tok/task | ms/call | errors |")
    print("|" + " --- |" * 7)
    try:
        for method in METHODS:
            for label, spec in specs.items():
                config = EvalConfig(method=method, known_ratio=known_ratio)
                started = time.perf_counter()
                result = await evaluate(get_model(spec), tasks, tools, config)
                elapsed = time.perf_counter() - started
                cost, rows = result.summary["cost"], result.rows
                calls = cost["llm_calls"] * len(rows)
                errors = sum(1 for r in rows if r["error"])
                print(
                    f"| {method} | {label} | {cost['llm_calls']:.1f} | {cost['input_tokens']:.0f} "
                    f"| {cost['output_tokens']:.0f} | {1000 * elapsed / max(calls, 1):.2f} | {errors} |"
                )
    finally:
        server.close()
    print(
        f"\n{server.requests} requests through the server, {len(server.rejected)} rejected, "
        f"{server.throttled} answered 429 (and retried)"
    )


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--known-ratio", type=float, default=0.5)
    ap.add_argument(
        "--train", type=int, default=0, help="use the first N tasks as Evo training tasks"
    )
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--latency", type=float, default=0.05, help="simulated seconds per call")
    ap.add_argument("--wire", action="store_true", help="compare with the conformance server")
    args = ap.parse_args()
    tasks = load_bench(BENCH)
    tools = library_tools()
    if args.wire:
        await wire(tasks, tools, args.known_ratio)
        return
    model = get_model(MODEL)
    print(f"{len(tasks)} tasks, {len(tools)} tools, known ratio {args.known_ratio}\n")
    header = (
        "| method | tool acc % | answer acc % | LLM calls/task | input tok/task | output tok/task "
        "| wall s/task | outside-model s/task | paper calls | paper input tok |"
    )
    print(header)
    print("|" + " --- |" * 10)
    for method in METHODS:
        config = EvalConfig(method=method, known_ratio=args.known_ratio)
        started = time.perf_counter()
        result = await evaluate(
            model, tasks, tools, config, train=tasks[: args.train] if args.train else None
        )
        elapsed = time.perf_counter() - started
        s, rows = result.summary, result.rows
        outside = sum(r["model_free_seconds"] for r in rows) / len(rows)
        paper = PAPER.get(method)
        print(
            f"| {method} | {s['overall']['tool']['mean']:.1f} | {s['overall']['answer']['mean']:.1f} "
            f"| {s['cost']['llm_calls']:.1f} | {s['cost']['input_tokens']:.0f} | {s['cost']['output_tokens']:.0f} "
            f"| {elapsed / len(rows):.3f} | {outside:.3f} "
            f"| {paper[0] if paper else '-'} | {paper[1] if paper else '-'} |"
        )

    await concurrency_table(tasks, tools, args)


async def concurrency_table(
    tasks: list[Task], tools: dict[str, Tool], args: argparse.Namespace
) -> None:
    """Calls/tokens per task and wall time at --concurrency 1 vs N (simulated latency)."""
    os.environ["SCIGATE_BENCH_LATENCY"] = str(args.latency)
    model = get_model(DELAYED)
    n = args.concurrency
    print(f"\nHarness concurrency: {args.latency * 1000:.0f} ms per model call (simulated)\n")
    print(
        f"| method | calls/task c=1 | calls/task c={n} | tokens/task c=1 | tokens/task c={n} "
        f"| answer % c=1 | answer % c={n} | wall s c=1 | wall s c={n} | speed-up |"
    )
    print("|" + " --- |" * 10)
    for method in METHODS:
        measured = []
        for c in (1, n):
            config = EvalConfig(method=method, known_ratio=args.known_ratio, concurrency=c)
            started = time.perf_counter()
            result = await evaluate(model, tasks, tools, config)
            measured.append((result.summary, time.perf_counter() - started))
        (s1, w1), (sn, wn) = measured
        print(
            f"| {method} | {s1['cost']['llm_calls']:.2f} | {sn['cost']['llm_calls']:.2f} "
            f"| {s1['cost']['total_tokens']:.0f} | {sn['cost']['total_tokens']:.0f} "
            f"| {s1['overall']['answer']['mean']:.1f} | {sn['overall']['answer']['mean']:.1f} "
            f"| {w1:.2f} | {wn:.2f} | {w1 / wn:.2f}x |"
        )


if __name__ == "__main__":
    asyncio.run(main())
