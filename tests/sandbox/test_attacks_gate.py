"""The answer-hunting attacks through the gates: gate 1 and gate 3 stay out of reach."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from scigate.gate import load_candidate, solve_with_model, verify
from scigate.sandbox import _isolation

sys.path.insert(0, str(Path(__file__).parent))
from models.hunters import HUNT

ISOLATED = _isolation.bwrap_status()[0] is not None
needs_bwrap = pytest.mark.skipif(not ISOLATED, reason="bwrap cannot isolate here")
SOLVER = f"python/{Path(__file__).parent / 'models' / 'hunters.py'}:hunts_answer"
_TAG = int.from_bytes(__import__("os").urandom(2)) % 9000 + 1000  # unlike any other item
OPTIONS = {k: f"0.{v}{_TAG}" for k, v in zip("ABCD", (14, 28, 42, 57), strict=True)}
# prints the value of whatever letter the hunt finds, so gate 1 would "reproduce" it
CHEAT = HUNT.replace("print(found)", "print(mine.get(found, 'nothing found'))")


def _candidate(tmp_path: Path) -> Path:
    import json

    item = tmp_path / "runs" / "cand"
    item.mkdir(parents=True)
    (item / "question.md").write_text("Compute 2/7 rounded to exactly six decimal places.\n")
    (item / "options.json").write_text(json.dumps(OPTIONS))
    (item / "answer.txt").write_text("C\n")  # a wrong proposal the script "confirms"
    (item / "solution.py").write_text(CHEAT)
    return item


@pytest.fixture
def unisolated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_isolation, "bwrap_status", lambda: (None, "switched off for a test"))
    monkeypatch.setenv("SCIGATE_ALLOW_UNISOLATED", "1")


@needs_bwrap
def test_gate1_cheat_cannot_read_the_proposal(tmp_path: Path) -> None:
    result = verify(_candidate(tmp_path))
    assert not result.passed and result.printed == "nothing found"


def test_gate1_cheat_passes_without_isolation(tmp_path: Path, unisolated: None) -> None:
    result = verify(_candidate(tmp_path))
    assert result.passed and result.printed == OPTIONS["C"]


@needs_bwrap
def test_gate3_hunting_solver_finds_nothing(tmp_path: Path) -> None:
    cand = load_candidate(_candidate(tmp_path))
    result = asyncio.run(solve_with_model(cand, SOLVER, time_limit=60))
    assert not result.solved and result.answer_raw == "none"


def test_gate3_hunting_solver_solves_without_isolation(tmp_path: Path, unisolated: None) -> None:
    cand = load_candidate(_candidate(tmp_path))
    result = asyncio.run(solve_with_model(cand, SOLVER, time_limit=60))
    assert result.solved and result.answer_option == "C"


@needs_bwrap
def test_solver_command_sees_its_script_but_not_its_neighbours(tmp_path: Path) -> None:
    from scigate.gate import solve_with_command

    cand = load_candidate(_candidate(tmp_path))
    agent = tmp_path / "agent" / "agent.py"
    agent.parent.mkdir()
    (agent.parent / "notes.txt").write_text("B")
    agent.write_text(
        "import pathlib, sys\n"
        "here = pathlib.Path(__file__).parent\n"
        "seen = (here / 'notes.txt').exists() or (here.parent / 'runs').exists()\n"
        "pathlib.Path(sys.argv[1], 'answer.txt').write_text('A' if seen else 'C')\n"
    )
    result = asyncio.run(
        solve_with_command(cand, f"{sys.executable} {agent} {{workspace}}", time_limit=60)
    )
    assert result.answer_option == "C", result.reason
