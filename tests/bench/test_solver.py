"""`bench build --solver`: a tool-using agent must solve each task, scored strictly against
the executed answer; a wrong answer rejects the task, and a solver that fails or cannot be
scored never accepts one."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scigate.bench import BuildConfig, build, read_tasks
from scigate.cli._bench import app
from scigate.errors import BadInput
from scigate.store import Store

runner = CliRunner()
SCRIPTED = Path(__file__).parents[1] / "agents" / "models" / "scripted.py"
SOLVERS = Path(__file__).parent / "models" / "solvers.py"


def _config(solver: str, **kw) -> BuildConfig:
    # chemistry question & answer tasks from SMILES or names, numbers as answers
    settings = {
        "n": 2, "levels": [1], "formats": ["question & answer"], "domains": ["chemistry"],
        "generator": "templates", "seed": 5, "max_attempts": 10, **kw,
    }  # fmt: skip
    return BuildConfig(solver=solver, **settings)


def _attempts(db: Path, run_id: str) -> list[dict]:
    with Store(db) as store:
        return store.attempts(run_id)


def _solver_calls(db: Path, run_id: str) -> list[dict]:
    with Store(db) as store:
        return store.model_calls(run_id=run_id, role="solver")


def test_solved_tasks_are_accepted_with_the_answer_and_chain(tmp_path: Path) -> None:
    db, out = tmp_path / "r.db", tmp_path / "o.jsonl"
    # seed 9: the pools' draws include quantities the scripted policy knows how to compute
    report = build(_config(f"python/{SCRIPTED}:policy", seed=9), db, out)
    assert report.accepted >= 1
    tasks = {t["id"]: t for t in read_tasks(out)}
    attempts = _attempts(db, report.run_id)
    accepted = [a for a in attempts if a["status"] == "accepted"]
    assert len(accepted) == len(tasks) == report.accepted
    for a in accepted:
        solver = a["detail"]["solver"]
        task = tasks[a["detail"]["task_id"]]
        assert solver["method"] == "react" and solver["chain"] and solver["calls"] >= 1
        assert float(solver["answer"]) == pytest.approx(float(task["answer"]), rel=1e-2)
    # every model call of the solver is in the run database, attributed to the run
    assert len(_solver_calls(db, report.run_id)) == sum(
        a["detail"]["solver"]["calls"] for a in attempts if a["detail"].get("solver")
    )


def test_wrong_answers_reject_every_task_at_the_solver(tmp_path: Path) -> None:
    db, out = tmp_path / "r.db", tmp_path / "o.jsonl"
    report = build(_config(f"python/{SOLVERS}:wrong"), db, out)
    assert report.accepted == 0
    assert out.read_text().strip() == ""
    solved = [a for a in _attempts(db, report.run_id) if a["detail"]["stage"] == "solver"]
    assert solved and report.rejected["solver"] == len(solved)
    for a in solved:
        assert a["status"] == "rejected"
        assert a["reason"].startswith("solver: wrong answer '987654' (executed: ")
        assert a["detail"]["solver"]["answer"] == "987654"


def test_a_failing_solver_is_an_error_and_accepts_nothing(tmp_path: Path) -> None:
    db, out = tmp_path / "r.db", tmp_path / "o.jsonl"
    report = build(_config(f"python/{SOLVERS}:fails", max_attempts=3), db, out)
    assert report.accepted == 0
    assert out.read_text().strip() == ""
    solved = [a for a in _attempts(db, report.run_id) if a["detail"]["stage"] == "solver"]
    assert solved and all(a["status"] == "error" for a in solved)
    assert all("solver endpoint down" in a["reason"] for a in solved)
    failed = _solver_calls(db, report.run_id)
    assert failed and all("solver endpoint down" in (c["error"] or "") for c in failed)


def test_unknown_method_is_bad_input() -> None:
    with pytest.raises(BadInput, match="--solver-method"):
        build(_config(f"python/{SOLVERS}:wrong", solver_method="evo"), ":memory:", "x.jsonl")


def test_cli_solver_option_and_a_missing_key(tmp_path: Path, monkeypatch) -> None:
    out, db = tmp_path / "o.jsonl", tmp_path / "r.db"
    args = ["build", "--generator", "templates", "--n", "1", "--levels", "1", "--db", str(db),
            "--out", str(out), "--max-attempts", "2", "--json"]  # fmt: skip
    result = runner.invoke(app, [*args, "--solver", f"python/{SOLVERS}:wrong"])
    assert result.exit_code == 1, result.output
    assert json.loads(result.stdout)["rejected"]["solver"] >= 1
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    db.unlink()
    result = runner.invoke(app, [*args, "--solver", "openai/gpt-4o"])
    assert result.exit_code == 2
    assert "OPENAI_API_KEY" in result.stderr
    assert not db.exists()  # refused before any work


def test_an_answer_the_rules_cannot_score_is_unjudged() -> None:
    from scigate.bench._judge import Unjudged
    from scigate.bench._solver import solve_task, solver_space
    from scigate.llm import get_model

    task = {"question": "What is the TPSA of CCO?", "tool_path": ["CalculateTPSA"],
            "Parameter": "CCO", "answer": "20.23", "format": "question & answer"}  # fmt: skip
    model = get_model(f"python/{SOLVERS}:vague")
    with pytest.raises(Unjudged) as caught:
        asyncio.run(solve_task(model, solver_space(), task))
    assert caught.value.status == "unjudged"
    assert caught.value.record["answer"] == "somewhere in the usual range"
