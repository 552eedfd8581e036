"""Evo through an executor (threads here; Ray in tests/executor): the agent loop and memory
stay in the driver, every tool call is an executor job, and the rows equal in-process."""

from __future__ import annotations

import asyncio
import contextvars
import threading

import pytest

from scigate.agents import (
    EvalConfig,
    EvoConfig,
    accumulation_checkpoints,
    evaluate,
    load_bench,
    write_result,
)
from scigate.agents._toolrun import ExecutorToolRunner
from scigate.executor import Job, LocalExecutor
from scigate.llm import get_model
from scigate.tools import Tool, ToolSpec, effective_time_limit, limit_override

from .conftest import spec
from .test_eval import BENCH, _write

TIMING = ("wall_seconds", "model_free_seconds", "latency")


def _stable(rows):
    return [{k: v for k, v in r.record().items() if k not in TIMING} for r in rows]


def _learnt(accumulation):
    """Accumulation records without their model latency (a timing)."""
    return [
        {**a, "usage": {k: v for k, v in a["usage"].items() if k != "latency"}}
        if "usage" in a
        else a
        for a in accumulation
    ]


def _chains(trajs):
    return [[(s.tool, s.arguments, s.outputs, s.ok) for s in t.steps] for t in trajs]


def _counted(tools, made: list[str]):
    """`tools` whose light tools append their name to `made` on every call."""

    def wrap(t: Tool) -> Tool:
        def fn(**kwargs):
            made.append(t.name)
            return t.fn(**kwargs)

        return Tool(fn, t.spec, t._args_model)

    return {n: t if t.spec.heavy else wrap(t) for n, t in tools.items()}


class _Counting(LocalExecutor):
    """Counts what is shared and the jobs run."""

    def __init__(self, workers: int = 2, retries: int = 2) -> None:
        super().__init__(workers, retries)
        self.shares = 0
        self.attempts = 0

    def share(self, value):
        self.shares += 1
        return super().share(value)

    async def _attempt(self, job: Job):
        self.attempts += 1
        return await super()._attempt(job)


async def _evo(tools, embedder, tmp_path, name, executor=None, runs=1, train=False):
    tasks = load_bench(_write(tmp_path / "b.jsonl", BENCH))
    config = EvalConfig(method="evo", runs=runs, known_ratio=0.5, split_seed=3)
    trajs: list = []
    result = await evaluate(
        get_model(spec("policy")),
        tasks,
        tools,
        config,
        train=tasks[:2] if train else None,
        embedder=embedder,
        executor=executor,
        out=tmp_path / name,
        on_task=lambda row, traj: trajs.append(((row["run"], row["index"]), traj)),
    )
    return result, [t for _, t in sorted(trajs, key=lambda p: p[0])]


async def test_evo_on_an_executor_equals_evo_in_process_and_every_tool_call_is_a_job(
    tools, embedder, tmp_path
):
    local, local_trajs = await _evo(tools, embedder, tmp_path, "here", runs=2, train=True)
    executor = _Counting()
    made: list[str] = []
    spread, spread_trajs = await _evo(
        _counted(tools, made), embedder, tmp_path, "there", executor, runs=2, train=True
    )
    assert _stable(spread.rows) == _stable(local.rows)
    assert _chains(spread_trajs) == _chains(local_trajs)
    assert _learnt(spread.accumulation) == _learnt(local.accumulation)
    calls = sum(len(s.arguments) for t in spread_trajs for s in t.steps)
    ran = spread.config["executor"]
    assert ran["name"] == "local" and ran["workers"] == 2 and ran["jobs"] == "tool calls"
    # accumulation's rollouts call tools too: the jobs include those of the test tasks
    assert ran["tool_jobs"] == executor.attempts >= calls > 0
    assert len(made) == executor.attempts  # no call (accumulation's included) ran elsewhere
    assert ran["tool_jobs_failed"] == 0 and ran["tool_calls_local"] == 0
    assert executor.shares == 1  # the tools travel once for the whole evaluation
    assert local.config["executor"] == {"name": "local", "workers": 1}
    write_result(spread, tmp_path / "there")
    report = (tmp_path / "there" / "results.md").read_text()
    assert f"{ran['tool_jobs']} tool calls as jobs, 0 failed, 0 run in the driver" in report


async def test_resuming_evo_on_an_executor_runs_nothing_twice(tools, embedder, tmp_path):
    tasks = load_bench(_write(tmp_path / "b.jsonl", BENCH[:2]))
    config = EvalConfig(method="evo", known_ratio=1.0)
    model, out = get_model(spec("policy")), tmp_path / "out"
    first = await evaluate(
        model, tasks, tools, config, embedder=embedder, executor=_Counting(), out=out
    )
    ran: list = []
    again = await evaluate(
        model, tasks, tools, config, embedder=embedder, executor=_Counting(), out=out,
        resume=True, on_task=lambda row, traj: ran.append(row),
    )  # fmt: skip
    assert first.config["executor"]["tool_jobs"] > 0
    assert ran == [] and again.config["executor"]["tool_jobs"] == 0
    assert _stable(again.rows) == _stable(first.rows)
    assert len((out / "rows.jsonl").read_text().splitlines()) == 2


class _LosesToolJobs(LocalExecutor):
    """Every attempt of every job fails as a lost worker would."""

    async def _attempt(self, job: Job):
        raise ConnectionError("worker died")


async def test_a_tool_job_that_keeps_failing_is_a_failed_step_with_the_reason(
    tools, embedder, tmp_path
):
    result, trajs = await _evo(tools, embedder, tmp_path, "out", _LosesToolJobs(2, retries=2))
    called = [s for t in trajs for s in t.steps if s.arguments]
    assert called, "the scripted model called no tool"
    for step in called:
        assert step.ok is False
        assert "executor: ConnectionError: worker died (after 3 attempts)" in step.error
        assert all(o == {"error": step.error.split("; ")[0]} for o in step.outputs)
    assert not any(r["executed_ok"] for r in result.rows)
    assert result.config["executor"]["tool_jobs_failed"] == result.config["executor"]["tool_jobs"]


class _FreshContext(LocalExecutor):
    """Runs each job in an empty context, as a remote worker process would."""

    async def _attempt(self, job: Job):
        def call():
            return contextvars.Context().run(job.fn, *job.args, **job.kwargs), "remote"

        return await asyncio.to_thread(call)


def _probe_tool(fn, name="Probe") -> Tool:
    from pydantic import create_model

    spec_ = ToolSpec(
        name=name,
        functionality="probe",
        inputs=[],
        outputs=[],
        category="general",
        source="test",
        parameters={"type": "object", "properties": {}},
    )
    return Tool(fn, spec_, create_model(f"{name}Args"))


def _limit_in_effect():
    return effective_time_limit(None)


async def test_the_drivers_time_limit_applies_on_the_worker():
    probe = _probe_tool(_limit_in_effect)
    runner = ExecutorToolRunner(_FreshContext(2), {"Probe": probe})
    with limit_override(7.5):
        results = await runner.run(probe, [{}, {}])
    assert [r.value for r in results] == [7.5, 7.5]
    assert runner.jobs == 2


class _Pickling(LocalExecutor):
    """Shares as Ray does: the value is serialised, and one that does not pickle fails."""

    def share(self, value):
        cloudpickle = pytest.importorskip("cloudpickle")
        return super().share(cloudpickle.loads(cloudpickle.dumps(value)))


async def test_a_tool_that_does_not_pickle_runs_in_the_driver_and_the_others_travel():
    lock = threading.Lock()  # a live handle (an MCP session, say) that cannot be pickled

    def locked():
        with lock:
            return threading.current_thread().name

    def plain():
        return threading.current_thread().name

    stuck, free = _probe_tool(locked, "Stuck"), _probe_tool(plain, "Free")
    runner = ExecutorToolRunner(_Pickling(2), {"Stuck": stuck, "Free": free})
    here = await runner.run(stuck, [{}])
    there = await runner.run(free, [{}])
    assert here[0].ok and there[0].ok
    assert runner.local == 1 and runner.jobs == 1


async def test_checkpoints_run_their_tool_calls_on_the_executor(tools, embedder, tmp_path):
    tasks = load_bench(_write(tmp_path / "b.jsonl", BENCH[:2]))
    config = EvalConfig(method="evo", known_ratio=1.0, evo=EvoConfig(routing=False))
    executor = _Counting()
    here = await accumulation_checkpoints(
        get_model(spec("policy")), tasks, tasks, tools, config, embedder=embedder,
        progress=(0.0, 1.0),
    )  # fmt: skip
    there = await accumulation_checkpoints(
        get_model(spec("policy")), tasks, tasks, tools, config, embedder=embedder,
        progress=(0.0, 1.0), executor=executor,
    )  # fmt: skip
    assert there == here
    assert executor.attempts > 0


def test_cli_rejects_an_unknown_executor_for_evo_before_writing_anything(tmp_path):
    from _cli import run_main

    bench = _write(tmp_path / "b.jsonl", BENCH[:1])
    out, db = tmp_path / "out", tmp_path / "runs.db"
    code, _, err = run_main(
        "agent", "eval", "--method", "evo", "--bench", str(bench), "--model", spec("policy"),
        "--executor", "bogus", "--out", str(out), "--db", str(db),
    )  # fmt: skip
    assert code == 2
    assert "unknown executor 'bogus'" in err and len(err.strip().splitlines()) == 1
    assert not out.exists() and not db.exists()
