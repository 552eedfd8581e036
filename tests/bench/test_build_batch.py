"""`bench build --batch N`: N attempts in flight on an executor; the output depends on the
seed and the batch only, quotas and duplicates among attempts in flight are settled in
attempt order, and a job that keeps failing is an `error` attempt, never a task."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from _cli import run_main
from scigate.bench import BuildConfig, build, read_tasks
from scigate.bench import _attempt as attempt_module
from scigate.executor import LocalExecutor
from scigate.store import Store


def _build(config: BuildConfig, root: Path, name: str, workers: int | None = None):
    db, out = root / f"{name}.db", root / f"{name}.jsonl"
    executor = None if workers is None else LocalExecutor(workers)
    report = build(config, db, out, executor=executor)
    with Store(db) as store:
        rows = [
            {k: a[k] for k in ("round", "status", "reason", "detail")}
            for a in store.attempts(report.run_id)
        ]
    return report, out.read_bytes(), rows


def test_the_same_seed_and_batch_give_the_same_build_with_any_worker_count(tmp_path: Path) -> None:
    config = BuildConfig(n=8, levels=[1, 2], seed=3, batch=4)
    one, tasks_one, rows_one = _build(config, tmp_path, "one", workers=1)
    three, tasks_three, rows_three = _build(config, tmp_path, "three", workers=3)
    assert one.accepted == three.accepted == 8
    assert tasks_one == tasks_three
    assert rows_one == rows_three
    assert [r["round"] for r in rows_one] == list(range(1, one.attempts + 1))
    assert (one.executor["workers"], three.executor["workers"]) == (1, 3)


def test_an_attempt_for_a_cell_filled_while_it_ran_is_rejected_not_dropped(
    tmp_path: Path,
) -> None:
    config = BuildConfig(n=2, levels=[1], formats=["question & answer"], seed=1, batch=6)
    report, _, rows = _build(config, tmp_path, "b")
    assert report.accepted == 2 and len(read_tasks(tmp_path / "b.jsonl")) == 2
    # every attempt is recorded, in order, including those whose cell filled while they ran
    assert [r["round"] for r in rows] == list(range(1, report.attempts + 1))
    quota = [r for r in rows if r["detail"]["stage"] == "quota"]
    assert quota and report.rejected["quota"] == len(quota)
    for r in quota:
        assert r["status"] == "rejected"
        assert r["reason"] == "quota: cell L1/question & answer was filled while it ran"
        assert r["detail"]["task_id"] is None


@pytest.mark.parametrize("batch", [1, 4])
def test_a_near_duplicate_is_rejected_by_the_job_or_by_the_driver(
    tmp_path: Path, batch: int
) -> None:
    # every question is a near duplicate of every other at similarity 0: with a batch of
    # 1 the job sees task 1; with 4 the attempts in flight with it are the driver's
    config = BuildConfig(n=3, levels=[1], seed=2, batch=batch, similarity=0.0, max_attempts=5)
    report, _, rows = _build(config, tmp_path, "d")
    assert report.accepted == 1
    dupes = [r for r in rows if r["detail"]["stage"] == "duplicate"]
    assert dupes and all(r["reason"] == "duplicate: near duplicate of task 1" for r in dupes)


def test_a_job_that_keeps_failing_is_an_error_attempt(tmp_path: Path, monkeypatch) -> None:
    def broken(*args, **kwargs):
        raise ValueError("tool library exploded")

    monkeypatch.setattr(attempt_module, "compose", broken)
    config = BuildConfig(n=2, levels=[1], seed=1, batch=2, max_attempts=4)
    report, tasks, rows = _build(config, tmp_path, "e", workers=2)
    assert report.accepted == 0 and tasks == b""
    assert len(rows) == 4 and {r["status"] for r in rows} == {"error"}
    assert all(r["detail"]["stage"] == "job" for r in rows)
    assert all(
        r["reason"] == "job: failed after 3 tries: StageFailed: compose: "
        "ValueError: tool library exploded"
        for r in rows
    )
    with Store(tmp_path / "e.db") as store:
        assert store.get_run(report.run_id)["status"] == "finished"


def test_a_job_retried_after_a_transient_failure_is_recorded_once(
    tmp_path: Path, monkeypatch
) -> None:
    config = BuildConfig(n=4, levels=[1], seed=4, batch=3)
    _, clean_tasks, clean_rows = _build(config, tmp_path, "clean", workers=3)
    real, failed, lock = attempt_module.compose, [], threading.Lock()

    def flaky(*args, **kwargs):
        with lock:
            first = len(failed) < 2
            failed.append(1)
        if first:
            raise ConnectionError("worker lost")
        return real(*args, **kwargs)

    monkeypatch.setattr(attempt_module, "compose", flaky)
    _, tasks, rows = _build(config, tmp_path, "flaky", workers=3)
    assert tasks == clean_tasks and rows == clean_rows


def test_batch_one_is_the_sequential_build_on_any_executor(tmp_path: Path) -> None:
    config = BuildConfig(n=4, levels=[1, 3], seed=6)
    _, default_tasks, default_rows = _build(config, tmp_path, "default")
    _, tasks, rows = _build(config, tmp_path, "threads", workers=3)
    assert tasks == default_tasks and rows == default_rows


def test_cli_batch_and_executor_options(tmp_path: Path) -> None:
    args = ["bench", "build", "--generator", "templates", "--n", "2", "--levels", "1",
            "--db", str(tmp_path / "r.db"), "--out", str(tmp_path / "o.jsonl")]  # fmt: skip
    for extra, message in [
        (["--batch", "0"], "--batch"),
        (["--ray-address", "127.0.0.1:1"], "--ray-address needs executor 'ray'"),
        (["--executor", "dask"], "unknown executor 'dask'"),
        (["--workers", "0"], "--workers"),
        (["--executor", "ray", "--ray-address", "127.0.0.1:1", "--workers", "2"], "--workers"),
    ]:
        code, _, err = run_main(*args, *extra)
        assert code == 2, (extra, err)
        assert err.strip().count("\n") == 0 and message in err
        assert not (tmp_path / "r.db").exists()
    code, out, err = run_main(*args, "--batch", "3", "--workers", "2", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["batch"] == 3 and report["executor"] == {"name": "local", "workers": 2}


def test_report_and_release_show_the_batch(tmp_path: Path) -> None:
    from scigate.bench import build_funnel, datasheet, release_conditions

    config = BuildConfig(n=2, levels=[1], formats=["question & answer"], seed=1, batch=4)
    report, _, _ = _build(config, tmp_path, "f")
    funnel = build_funnel(tmp_path / "f.db")
    assert funnel["attempts"] == report.attempts and funnel["rejected"] == report.rejected
    conditions = release_conditions(tmp_path / "f.db", tmp_path / "f.jsonl")
    assert conditions["batch"] == 4 and "seed 1, --batch 4)" in datasheet(conditions)


def test_a_batch_below_one_is_bad_input() -> None:
    from scigate.errors import BadValue

    with pytest.raises(BadValue, match=r"^batch must be between 1 and 1024, got 0$"):
        BuildConfig(n=1, batch=0)
    config = BuildConfig(n=1)
    config.batch = 0  # assigned after construction: `build` checks it before any work
    with pytest.raises(BadValue, match=r"^batch must be between 1 and 1024, got 0$"):
        build(config, ":memory:", "x.jsonl")


def test_solver_calls_made_in_jobs_are_stored_by_the_driver(tmp_path: Path) -> None:
    scripted = Path(__file__).parents[1] / "agents" / "models" / "scripted.py"
    config = BuildConfig(
        n=2, levels=[1], formats=["question & answer"], domains=["chemistry"], seed=5,
        solver=f"python/{scripted}:policy", batch=3, max_attempts=9,
    )  # fmt: skip
    report, _, rows = _build(config, tmp_path, "s", workers=3)
    assert report.accepted >= 1
    with Store(tmp_path / "s.db") as store:
        calls = store.model_calls(run_id=report.run_id, role="solver")
    solved = [r for r in rows if r["detail"].get("solver")]
    assert solved and len(calls) == sum(r["detail"]["solver"]["calls"] for r in solved)
    keys = {c["call_key"].split("#")[0] for c in calls}
    assert keys == {f"bench-build/{report.run_id}/{r['round']}/solver" for r in solved}


def test_a_cell_gets_at_most_two_attempts_in_flight_per_missing_task(tmp_path: Path) -> None:
    # one task wanted and a batch of 8: two attempts run at once, not eight (the others
    # would mostly end as quota rejections after paying for every stage)
    config = BuildConfig(n=1, levels=[1], formats=["multiple choice"], seed=0, batch=8)
    report, _, _ = _build(config, tmp_path, "c", workers=8)
    assert report.accepted == 1
    assert report.rejected.get("quota", 0) <= 1
