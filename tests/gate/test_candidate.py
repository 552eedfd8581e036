"""Malformed candidates are bad input: one line, exit 2."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scigate.errors import BadInput
from scigate.gate import load_candidate, parse_answer_letter

from .conftest import write_candidate


def test_loads_a_good_candidate(candidate_dir: Path) -> None:
    c = load_candidate(candidate_dir)
    assert c.answer == "B" and c.answer_value == "0.285714"
    assert len(c.id) == 16 and c.id == load_candidate(candidate_dir).id


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: (d / "solution.py").unlink(), "missing solution.py"),
        (lambda d: (d / "answer.txt").unlink(), "missing answer.txt"),
        (
            lambda d: (d / "options.json").write_text(json.dumps({"A": "1", "B": "2", "C": "3"})),
            "has 3 options",
        ),
        (
            lambda d: (d / "options.json").write_text(
                json.dumps({k: str(i) for i, k in enumerate("ABCDE")})
            ),
            "has 5 options",
        ),
        (
            lambda d: (d / "options.json").write_text(
                json.dumps({"A": "0.5", "B": "0.50", "C": "1", "D": "2"})
            ),
            "same value",
        ),
        (lambda d: (d / "options.json").write_text("{not json"), "not valid JSON"),
        (lambda d: (d / "answer.txt").write_text("the second one\n"), "no option letter"),
        (lambda d: (d / "question.md").write_text("   \n"), "question.md is empty"),
    ],
)
def test_malformed_candidates(candidate_dir: Path, mutate, message: str) -> None:
    mutate(candidate_dir)
    with pytest.raises(BadInput, match=message):
        load_candidate(candidate_dir)


@pytest.mark.parametrize("text", ["B", "(B)", "b\n", "B) 0.285714", "Answer: B"])
def test_answer_letter_forms(text: str) -> None:
    assert parse_answer_letter(text) == "B"


def _scigate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scigate", *args], capture_output=True, text=True, timeout=120
    )


def test_cli_bad_candidate_exits_2_with_one_line(tmp_path: Path) -> None:
    d = write_candidate(tmp_path / "c", options={"A": "1", "B": "2", "C": "3"})
    proc = _scigate("gate", "verify", str(d), "--json")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "3 options" in lines[0] and "Traceback" not in proc.stderr
    proc = _scigate("gate", "verify", str(tmp_path / "missing"))
    assert proc.returncode == 2 and "not found" in proc.stderr


def test_duplicate_option_key_is_bad_input(tmp_path: Path) -> None:
    """json keeps the last of two equal keys silently; a repeated letter must be refused."""
    d = write_candidate(tmp_path / "c")
    (d / "options.json").write_text('{"A": "1", "B": "2", "C": "3", "D": "4", "B": "5"}')
    proc = _scigate("gate", "verify", str(d))
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "'B' twice" in proc.stderr, proc.stderr


def test_a_candidates_forms_scope_is_its_own_and_unguessable() -> None:
    """Gate 1 and 1b of one candidate share a forms scope (keyed by its id under this
    process's secret); another candidate has another; the template generator's
    candidates (our code) share one; an LLM generator's candidate keeps its episode's."""
    import re

    from scigate.gate import _candidate
    from scigate.gate._candidate import Candidate

    def cand(question: str, generator: str | None = None) -> Candidate:
        meta = {"generator": generator} if generator else {}
        return Candidate(question=question, options={"A": "1"}, meta=meta)

    one, same, other = cand("q1"), cand("q1"), cand("q2")
    assert one.forms_scope == same.forms_scope != other.forms_scope
    assert re.fullmatch(r"[0-9a-f]{32}", one.forms_scope)
    assert one.id not in one.forms_scope and one.forms_scope not in one.model_dump_json()
    t1, t2 = cand("a", "templates"), cand("b", "scigate.fenicsx.templates/1")
    assert t1.forms_scope == t2.forms_scope != one.forms_scope
    assert cand("c", "python/evil.py:templates/1").forms_scope != t1.forms_scope
    episode = cand("d")
    episode._forms_scope = "ab" * 16
    assert episode.forms_scope == "ab" * 16
    secret, before = _candidate._SCOPE_SECRET, one.forms_scope
    _candidate._SCOPE_SECRET = b"another process"
    try:
        assert cand("q1").forms_scope != before  # a process secret, not the id alone
    finally:
        _candidate._SCOPE_SECRET = secret
