"""Gate 3: a tool-using agent must solve the candidate in a clean workspace."""

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from scigate.gate import load_candidate, solve_with_command, solve_with_model

from .conftest import model_spec, write_candidate


def test_builtin_agent_runs_code_and_submits_its_output(candidate_dir: Path) -> None:
    cand = load_candidate(candidate_dir)
    r = asyncio.run(solve_with_model(cand, model_spec("solvers:runs_code"), time_limit=60))
    assert r.solved, r.reason
    assert r.answer_value == "0.285714" and r.answer_option == "B" and r.steps == 1
    assert r.model_calls == 2


def test_workspace_holds_only_question_and_options(tmp_path: Path) -> None:
    d = write_candidate(tmp_path / "c", meta={"answer_value": "0.285714", "family": "x"})
    cand = load_candidate(d)
    r = asyncio.run(solve_with_model(cand, model_spec("solvers:reads_workspace"), time_limit=60))
    assert not r.solved and r.reason.startswith("wrong answer") and r.flagged_for_review


def test_agent_without_answer(candidate_dir: Path) -> None:
    cand = load_candidate(candidate_dir)
    r = asyncio.run(solve_with_model(cand, model_spec("solvers:never_submits"), time_limit=60))
    assert not r.solved and r.reason.startswith("no answer") and r.answer_value is None


def test_external_solver_command(candidate_dir: Path, tmp_path: Path) -> None:
    cand = load_candidate(candidate_dir)
    script = tmp_path / "agent.py"
    script.write_text(
        "import json, sys, pathlib\n"
        "ws = pathlib.Path(sys.argv[1])\n"
        "assert sorted(p.name for p in ws.iterdir() if not p.name.startswith('.')) == ['options.json', 'prompt.md', 'question.md']\n"
        "opts = json.loads((ws / 'options.json').read_text())\n"
        "val = f'{2/7:.6f}'\n"
        "(ws / 'answer.txt').write_text(val)\n"
    )
    r = asyncio.run(
        solve_with_command(cand, f"{sys.executable} {script} {{workspace}}", time_limit=60)
    )
    assert r.solved, r.reason
    assert r.answer_option == "B"


def test_external_solver_timeout(candidate_dir: Path) -> None:
    cand = load_candidate(candidate_dir)
    r = asyncio.run(solve_with_command(cand, "sleep 600", time_limit=1.5))
    # stopped at its 1.5 s limit, not when the command's 600 s ended (a bound 40x the limit)
    assert not r.solved and r.reason.startswith("timeout") and r.seconds < 60


def test_cli_solve_json(candidate_dir: Path) -> None:
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "scigate",
            "gate",
            "solve",
            str(candidate_dir),
            "--solver-cmd",
            "echo C > {workspace}/answer.txt",
            "--json",
            "--time-limit",
            "30",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    data = json.loads(p.stdout)
    assert p.returncode == 1 and data["solved"] is False and data["answer_value"] == "0.428571"
    assert {"solved", "answer_value", "seconds", "reason"} <= data.keys()


def test_a_solver_that_cannot_run_is_an_error_not_unsolved(candidate_dir: Path) -> None:
    cand = load_candidate(candidate_dir)
    r = asyncio.run(solve_with_command(cand, "no-such-agent-binary {workspace}", time_limit=30))
    assert not r.solved and r.error and r.reason.startswith("error:")
    r = asyncio.run(solve_with_model(cand, model_spec("solvers:raises"), time_limit=30))
    assert not r.solved and r.error and "could not run" in r.reason


def test_a_hedged_or_revised_answer_is_graded_by_its_last_statement(tmp_path: Path) -> None:
    """Naming two options solves nothing; a revised answer counts as its final letter."""
    from scigate.gate._solve import grade_answer

    cand = load_candidate(write_candidate(tmp_path / "c"))
    assert grade_answer(cand, "Answer: A or B") == (None, "Answer: A or B")
    assert grade_answer(cand, "Answer: B/A")[0] is None
    assert grade_answer(cand, "I guessed the answer is A. Final answer: B") == ("B", "0.285714")
    assert grade_answer(cand, "b") == ("B", "0.285714")


def test_a_letter_beside_another_options_value_names_no_option(tmp_path: Path) -> None:
    """'C (2.858)' where 2.858 is option A's value: the typed scorer's multiple-choice rule."""
    from scigate.gate._solve import grade_answer

    cand = load_candidate(write_candidate(tmp_path / "c"))
    a_value = cand.options["A"]
    assert grade_answer(cand, f"C ({a_value})") == (None, f"C ({a_value})")
    assert grade_answer(cand, f"B ({cand.options['B']})") == ("B", cand.options["B"])
