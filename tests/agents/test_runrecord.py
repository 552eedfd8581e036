"""The harness records its own run (issue 24): `RunRecord` creates the run, the models
store their calls under it, `evaluate(record=...)` records each finished task as an
`agent-task` event, `running` sets the final status and closes; the CLI only calls these."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path

import pytest

from scigate.agents import (
    TASK_EVENT_KEYS,
    EvalConfig,
    RunRecord,
    Task,
    evaluate,
    library_tools,
    running,
)
from scigate.llm import get_model
from scigate.store import Store

from .conftest import spec

TASKS = [
    Task(
        question="What is the molecular weight of CCO?",
        tool_path=["SMILESToWeight"],
        parameter=["CCO"],
        answer="46.07",
        level=1,
    ),
    Task(
        question="What is the molecular weight of C1CC?",
        tool_path=["SMILESToWeight"],
        parameter=["C1CC"],
        answer="42.08",
        level=1,
    ),
]


def test_the_harness_records_its_run(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    record = RunRecord.open(db, "agent-eval", {"method": "direct"})
    assert record is not None
    model = get_model(spec("policy"), recorder=record.recorder("direct"))
    config = EvalConfig(method="direct", known_ratio=1.0)
    with running(record):
        result = asyncio.run(evaluate(model, TASKS, library_tools(), config, record=record))
    with Store(db, create=False) as store:
        (run,) = store.runs()
        assert run["kind"] == "agent-eval" and run["status"] == "finished"
        assert run["config"] == {"method": "direct"}
        events = store.events(run_id=run["id"], kind="agent-task")
        assert len(events) == len(TASKS) == len(result.rows)
        assert all(set(e["data"]) == set(TASK_EVENT_KEYS) for e in events)
        assert {e["data"]["index"] for e in events} == {0, 1}
        calls = store.model_calls()
        assert calls and {c["role"] for c in calls} == {"direct"}


@pytest.mark.parametrize(
    ("error", "status"), [(KeyboardInterrupt, "interrupted"), (RuntimeError, "failed")]
)
def test_running_sets_the_status_on_every_way_out(
    tmp_path: Path, error: type[BaseException], status: str
) -> None:
    db = tmp_path / "runs.db"
    with pytest.raises(error), running(RunRecord.open(db, "agent-run", {})):
        raise error("stop")
    with Store(db, create=False) as store:
        assert [r["status"] for r in store.runs()] == [status]


def test_without_a_database_nothing_is_recorded() -> None:
    assert RunRecord.open(None, "agent-eval", {}) is None
    with running(None) as record:
        assert record is None


def test_the_agent_verbs_write_no_records_themselves() -> None:
    from scigate.cli import _agent

    source = inspect.getsource(_agent)
    for call in ("create_run", "add_event", "set_run_status", "agent-task", "Store("):
        assert call not in source, call
