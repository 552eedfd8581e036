"""`bench build` spread over an executor: tasks per minute, sequential vs batched vs Ray.

Builds the same small template benchmark (`--generator templates`, all levels and
formats, no screens) in these modes and reports tasks and attempts per minute and the
ratio against the sequential build (the baseline, today's `bench build`):

- sequential: `--batch 1` in this process (one attempt at a time, one random stream);
- batched on local threads: `--batch B` on the local executor with 1, 2 and B threads;
- batched on Ray: `--batch B` on a local Ray with 1 and 2 workers (`ray.init(num_cpus=k)`),
  timed after an untimed build has started and warmed the worker processes; the cold
  build (worker start-up and imports included) is reported beside it.

Each workload runs twice: templates only (cheap: tool execution in milliseconds), and
with a judge model that answers after `--latency` seconds (a stand-in for an LLM call,
the stage that batching is for). Every batched build must give the same tasks file
whatever the executor (checked). An untimed sequential build first warms this process
(library, entities, tool graph).

    .venv/bin/python benchmarks/bench_bench_build.py [--n 32] [--batch 8] [--ray 1,2]

With `--checks` it measures the acceptance checks instead (issue 22): tasks per minute of
the sequential build with every check on against `BuildConfig(checks=False)` (no margin,
no alternative conventions, no constraint/objective/tool/distractor checks), in
`--rounds` interleaved rounds (on/off order alternating, seed + round), median and min;
the acceptance rate of each check (passed / reached, summed over the checked builds);
and with `--full N` one N-task checked build's time and its Table A5 beside the paper's.

    .venv/bin/python benchmarks/bench_bench_build.py --checks [--n 40] [--rounds 3] [--full 900]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from scigate.bench import BuildConfig, build, build_funnel
from scigate.executor import Executor, LocalExecutor


def timed(config: BuildConfig, executor: Executor | None) -> tuple[float, int, int, bytes]:
    """(seconds, accepted, attempts, tasks file) of one build in a fresh database."""
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        report = build(config, Path(tmp) / "r.db", Path(tmp) / "o.jsonl", executor=executor)
        seconds = time.perf_counter() - start
        tasks = (Path(tmp) / "o.jsonl").read_bytes()
    return seconds, report.accepted, report.attempts, tasks


JUDGE = """import asyncio


async def model(messages, tools=None, **settings):
    await asyncio.sleep({latency})
    return '{{"decision": "Yes", "reason": "clear, covered, executable"}}'
"""


def _checked_build(config: BuildConfig) -> tuple[float, int, int, dict]:
    """(seconds, accepted, attempts, funnel) of one sequential build in a fresh database."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "r.db"
        start = time.perf_counter()
        report = build(config, db, Path(tmp) / "o.jsonl")
        seconds = time.perf_counter() - start
        funnel = build_funnel(db)
    return seconds, report.accepted, report.attempts, funnel


def checks_main(args: argparse.Namespace) -> None:
    """Checks on vs off, acceptance per check, and the optional full build."""
    from statistics import median

    _checked_build(BuildConfig(n=4, seed=args.seed))  # warm-up (not timed)
    rates: dict[str, list[float]] = {"on": [], "off": []}
    attempts: dict[str, int] = {"on": 0, "off": 0}
    accepted: dict[str, int] = {"on": 0, "off": 0}
    per_check: dict[str, list[int]] = {}
    for r in range(args.rounds):
        order = ("on", "off") if r % 2 == 0 else ("off", "on")
        for mode in order:
            config = BuildConfig(n=args.n, seed=args.seed + r, checks=mode == "on")
            seconds, ok, tried, funnel = _checked_build(config)
            rates[mode].append(60 * ok / seconds)
            attempts[mode] += tried
            accepted[mode] += ok
            if mode == "on":
                for check, row in funnel["checks"].items():
                    got = per_check.setdefault(check, [0, 0])
                    got[0] += row["passed"]
                    got[1] += row["rejected"]
            print(f"round {r + 1} checks {mode:>3}: {seconds:6.1f} s, {ok}/{tried} accepted")
    if not args.rounds:  # --rounds 0: the full build only
        return _full(args)
    print(f"\n{args.n} tasks per build, {args.rounds} interleaved rounds, levels 1-4")
    print(f"{'checks':<7} {'median tasks/min':>17} {'min tasks/min':>14} {'accepted/attempts':>18}")
    for mode in ("on", "off"):
        share = f"{accepted[mode]}/{attempts[mode]}"
        print(f"{mode:<7} {median(rates[mode]):>17.1f} {min(rates[mode]):>14.1f} {share:>18}")
    print(f"\n{'check':<20} {'reached':>8} {'passed':>7} {'acceptance':>11}")
    for check, (ok, rejected) in per_check.items():
        reached = ok + rejected
        rate = f"{100 * ok / reached:.1f}%" if reached else "-"
        print(f"{check:<20} {reached:>8} {ok:>7} {rate:>11}")
    _full(args)


def _full(args: argparse.Namespace) -> None:
    """The optional --full N build: its time, funnel and Table A5."""
    from scigate.bench._stats import a5_lines

    if args.full:
        seconds, ok, tried, funnel = _checked_build(BuildConfig(n=args.full, seed=args.seed))
        print(
            f"\nfull build: {ok}/{args.full} tasks from {tried} attempts in {seconds:.0f} s "
            f"({60 * ok / seconds:.1f} tasks/min)"
        )
        print("cells:", {k: v["accepted"] for k, v in funnel["cells"].items()})
        print("\n".join(a5_lines(funnel["table_a5"])))


def main() -> None:
    """Print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checks", action="store_true", help="measure the acceptance checks")
    parser.add_argument("--rounds", type=int, default=3, help="--checks: interleaved rounds")
    parser.add_argument("--full", type=int, default=0, help="--checks: time an N-task build")
    parser.add_argument("--n", type=int, default=32)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.5, help="judge call latency (s)")
    parser.add_argument("--ray", default="1,2", help="Ray worker counts ('' to skip)")
    args = parser.parse_args()
    if args.checks:
        checks_main(args)
        return
    tmp = Path(tempfile.mkdtemp())
    judge = tmp / "judge.py"
    judge.write_text(JUDGE.format(latency=args.latency))
    plain = BuildConfig(n=args.n, seed=args.seed)
    workloads = {
        "templates": plain,
        f"templates + judge ({args.latency} s a call)": plain.model_copy(
            update={"judge": f"python/{judge}:model"}
        ),
    }
    rows: dict[str, list[tuple[str, float, int, int]]] = {w: [] for w in workloads}
    reference: dict[str, bytes] = {}

    def batched(name: str, label: str, executor: Executor) -> None:
        config = workloads[name].model_copy(update={"batch": args.batch})
        seconds, accepted, attempts, tasks = timed(config, executor)
        assert reference.setdefault(name, tasks) == tasks, f"{label} differs from the others"
        rows[name].append((label, seconds, accepted, attempts))

    timed(plain, None)  # warm-up (not timed)
    for name, config in workloads.items():
        seconds, accepted, attempts, _ = timed(config, None)
        rows[name].append(("sequential (--batch 1)", seconds, accepted, attempts))
        for threads in sorted({1, 2, args.batch}):
            batched(
                name, f"--batch {args.batch}, local {threads} thread(s)", LocalExecutor(threads)
            )
    for k in [int(w) for w in args.ray.split(",") if w.strip()]:
        from scigate.executor._ray import RayExecutor

        started = time.perf_counter()
        ray_ex = RayExecutor(num_cpus=k)
        try:
            start_s = time.perf_counter() - started
            cold, *_ = timed(plain.model_copy(update={"batch": args.batch}), ray_ex)
            print(f"Ray {k} worker(s): start {start_s:.1f} s, first (cold) build {cold:.1f} s")
            for name in workloads:
                batched(name, f"--batch {args.batch}, Ray {k} worker(s)", ray_ex)
        finally:
            ray_ex.close()
    for name, table in rows.items():
        base = table[0][2] / table[0][1]
        print(f"\n{name}: {args.n} tasks, seed {args.seed}")
        print(f"{'mode':<36} {'s':>6} {'tasks/min':>10} {'attempts/min':>13} {'vs seq':>7}")
        for label, seconds, accepted, attempts in table:
            rate = accepted / seconds
            print(
                f"{label:<36} {seconds:>6.1f} {60 * rate:>10.0f} "
                f"{60 * attempts / seconds:>13.0f} {rate / base:>6.2f}x"
            )


if __name__ == "__main__":
    main()
