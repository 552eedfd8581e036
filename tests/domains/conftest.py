"""Shared helpers for the domain-pack tests: candidates are checked with ToolGate's gate 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scigate.gate import load_candidate, match_option, verify


def check_candidate(candidate: Path) -> str:
    """Gate 1 on a candidate directory: format, four distinct options, and the sandboxed
    solution run on a copy without answer.txt reproduces the proposed option by value."""
    cand = load_candidate(candidate)  # BadInput unless four distinct options and a letter
    assert json.loads((candidate / "meta.json").read_text())["domain"] == "fenicsx"
    result = verify(cand, timeout=300)
    assert result.passed, result.reason
    assert result.printed is not None
    assert match_option(result.printed, cand.options) == [cand.answer]
    return result.printed


@pytest.fixture
def check():
    """``check(candidate_dir)`` runs gate 1 and returns the printed line."""
    return lambda candidate: check_candidate(Path(candidate))
