"""Agent evaluation through the executor (threads here; Ray in tests/executor): the same
rows as in-process, call records handed to the driver's recorder, resume unchanged."""

from __future__ import annotations

import json

from scigate.agents import EvalConfig, evaluate, load_bench
from scigate.executor import Job, LocalExecutor
from scigate.llm import get_model

from .conftest import spec
from .test_eval import BENCH, _write

TIMING = ("wall_seconds", "model_free_seconds", "latency")


def _stable(rows):
    return [{k: v for k, v in r.record().items() if k not in TIMING} for r in rows]


async def test_executor_rows_equal_in_process_rows_and_calls_reach_the_driver(
    tools, embedder, tmp_path
):
    tasks = load_bench(_write(tmp_path / "b.jsonl", BENCH))
    config = EvalConfig(method="scitoolagent", runs=2, known_ratio=1.0)
    here: list = []
    there: list = []
    local = await evaluate(
        get_model(spec("policy"), recorder=here.append), tasks, tools, config, embedder=embedder
    )
    spread = await evaluate(
        get_model(spec("policy"), recorder=there.append),
        tasks,
        tools,
        config,
        embedder=embedder,
        executor=LocalExecutor(workers=2),
        out=tmp_path / "out",
    )
    assert _stable(spread.rows) == _stable(local.rows)
    assert spread.summary["overall"] == local.summary["overall"]
    # every model call made on a worker is recorded by the driver's recorder
    assert len(there) == len(here) == sum(r["calls"] for r in local.rows) > 0
    assert spread.config["executor"] == {"name": "local", "workers": 2}
    written = (tmp_path / "out" / "rows.jsonl").read_text().splitlines()
    assert sorted((r["run"], r["index"]) for r in map(json.loads, written)) == [
        (run, i) for run in range(2) for i in range(4)
    ]


class _LosesOneJob(LocalExecutor):
    """Every attempt of job 0:1 fails as a lost worker would."""

    async def _attempt(self, job: Job):
        if job.id == "0:1":
            raise ConnectionError("worker died")
        return await super()._attempt(job)


async def test_a_job_that_keeps_failing_is_an_error_row_and_resume_runs_nothing_twice(
    tools, embedder, tmp_path
):
    tasks = load_bench(_write(tmp_path / "b.jsonl", BENCH))
    config = EvalConfig(method="scitoolagent", runs=1, known_ratio=1.0)
    out = tmp_path / "out"
    model = get_model(spec("policy"))
    first = await evaluate(
        model, tasks, tools, config, embedder=embedder, executor=_LosesOneJob(2, 1), out=out
    )
    bad = next(r for r in first.rows if r["index"] == 1)
    assert bad["status"] == "error"
    assert bad["error"] == "executor: ConnectionError: worker died (after 2 attempts)"
    assert [r["status"] for r in first.rows].count("error") == 1
    ran: list = []

    def on_task(row, traj):
        ran.append(row)

    again = await evaluate(
        model,
        tasks,
        tools,
        config,
        embedder=embedder,
        executor=LocalExecutor(2),
        out=out,
        resume=True,
        on_task=on_task,
    )
    assert ran == [] and len(again.rows) == 4
    lines = (out / "rows.jsonl").read_text().splitlines()
    assert len(lines) == 4


def test_cli_rejects_executor_misuse(tmp_path):
    import pytest

    from scigate.cli._agent import app
    from scigate.errors import BadInput

    bench = _write(tmp_path / "b.jsonl", BENCH[:1])
    base = ["eval", "--bench", str(bench), "--model", spec("policy")]
    with pytest.raises(BadInput, match="address needs executor 'ray'"):
        app(args=[*base, "--method", "cot", "--ray-address", "auto"], standalone_mode=False)
    with pytest.raises(BadInput, match="unknown executor 'dask'"):
        app(args=[*base, "--method", "cot", "--executor", "dask"], standalone_mode=False)
    with pytest.raises(BadInput, match="unknown executor 'dask'"):
        app(args=[*base, "--method", "evo", "--executor", "dask"], standalone_mode=False)
