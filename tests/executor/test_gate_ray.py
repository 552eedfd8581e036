"""Gate runs whose sandboxed stages run on local Ray give the local run's answers: the
same verification, invariance, screen and solver outcomes (a python/ solver model and,
through `--rescreen --executor ray`, a `--solver-cmd`), the same model-call records;
the CLI records and reports the executor of each start and resume."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path

import pytest

from _cli import run_main
from scigate.gate import ExecutorWorkers
from scigate.gate._loop import LoopConfig, run_loop
from scigate.store import Store

MODELS = Path(__file__).parent / "models"
SOLVER = f"python/{MODELS / 'solvers.py'}:picks_largest"
SOLVER_CMD = f"{sys.executable} {MODELS / 'solvers.py'} {{workspace}}"


def _config(rounds: int) -> LoopConfig:
    return LoopConfig(
        generator="templates",
        screens=["cue/middle", "cue/letter-C"],
        solver=SOLVER,
        rounds=rounds,
        seed=3,
        fem_workers=2,
        concurrency=2,
        verify_timeout=120,
        solve_time_limit=120,
    )


def _outcomes(store: Store, run_id: str) -> list[tuple]:
    """Every gate result of the run (screens with the option each call chose)."""
    return sorted(
        (
            g["candidate_id"],
            g["gate"],
            g["screen"] or "",
            g["outcome"],
            g["reason"],
            json.dumps([c.get("chosen_original") for c in (g["detail"] or {}).get("calls", [])]),
        )
        for g in store.gate_results(run_id=run_id)
    )


def _calls(store: Store, run_id: str) -> list[tuple]:
    rows = store.query(
        "SELECT candidate_id, role, call_key FROM model_calls WHERE run_id = ?", (run_id,)
    )
    return sorted((r["candidate_id"], r["role"], r["call_key"] or "") for r in rows)


def _gate_run(db: Path, rounds: int, executor=None) -> tuple[dict, list, list, list]:
    store = Store(db)
    try:
        workers = ExecutorWorkers(executor) if executor else None
        run_id, funnel = asyncio.run(run_loop(_config(rounds), store, workers=workers))
        statuses = [(a["round"], a["status"]) for a in store.attempts(run_id)]
        return (
            funnel.model_dump(),
            _outcomes(store, run_id),
            sorted(statuses),
            _calls(store, run_id),
        )
    finally:
        store.close()


def _rescreen(db: Path, executor: str) -> tuple[dict, list]:
    code, out, err = run_main(
        "gate", "run", "--db", str(db), "--rescreen", "--all", "--solver-cmd", SOLVER_CMD,
        "--time-limit", "60", "--executor", executor, "--json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    store = Store(db)
    try:
        return data, _outcomes(store, data["run_id"])
    finally:
        store.close()


@pytest.mark.slow
def test_ray_gate_run_gives_the_local_runs_answers_at_every_stage(ray_executor, tmp_path):
    local = _gate_run(tmp_path / "local.db", 3)
    spread = _gate_run(tmp_path / "ray.db", 3, ray_executor)
    funnel, outcomes, _, calls = local
    assert funnel["verified"] == 3 and funnel["invariant"] == 3
    gates = {o[1] for o in outcomes}
    assert {"verify", "invariance", "screen", "solve"} <= gates
    assert spread == local  # funnel, every gate result, round statuses, model-call records
    assert any(c[1] == "solver" for c in calls)

    # --rescreen --executor ray: the --solver-cmd runs on the workers, with the same verdicts
    for name in ("local", "ray"):
        shutil.copy(tmp_path / "local.db", tmp_path / f"re-{name}.db")
    here, here_outcomes = _rescreen(tmp_path / "re-local.db", "local")
    there, there_outcomes = _rescreen(tmp_path / "re-ray.db", "ray")
    assert there["funnel"] == here["funnel"] and there_outcomes == here_outcomes
    assert [o[1] for o in there_outcomes] == ["solve"] * 3
    assert there["executors"] == [{"name": "ray", "workers": 2, "nodes": 1}]
    assert here["executor"]["name"] == "local"


@pytest.mark.slow
def test_cli_resume_on_ray_records_and_reports_each_executor(ray_executor, tmp_path):
    db = tmp_path / "cli.db"
    base = ["gate", "run", "--db", str(db), "--screen", "cue/middle", "--fem-workers", "1"]
    code, out, err = run_main(*base, "--generator", "templates", "--rounds", "1", "--json")
    assert code == 0, err
    code, out, err = run_main(*base, "--resume", "--rounds", "2", "--executor", "ray", "--json")
    assert code == 0, err
    data = json.loads(out)
    ray_run = {"name": "ray", "workers": 2, "nodes": 1}
    assert data["executor"] == ray_run
    assert data["executors"] == [{"name": "local", "workers": 1, "nodes": 1}, ray_run]
    assert data["funnel"]["verified"] == 2
    code, out, err = run_main("gate", "report", "--db", str(db), "--out", str(tmp_path / "rep"))
    assert code == 0, err
    html = (tmp_path / "rep" / "report.html").read_text()
    assert "started: local (1 worker, 1 node)" in html
    assert "resumed: ray (2 workers, 1 node)" in html
