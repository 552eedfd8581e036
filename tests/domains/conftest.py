"""Shared helpers for the domain-pack tests."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest


def printed_matches(printed: str, option: str) -> bool:
    """Numeric match at the option's printed precision (0.060723 equals 0.0607230)."""
    decimals = len(option.strip().split(".")[1]) if "." in option else 0
    quantum = Decimal(1).scaleb(-decimals)
    return Decimal(printed.strip()).quantize(quantum) == Decimal(option.strip()).quantize(quantum)


def run_candidate(candidate: Path, tmp_path: Path) -> str:
    """Run solution.py in a fresh copy without answer.txt; return the single stdout line."""
    copy = tmp_path / f"run-{candidate.name}"
    shutil.copytree(candidate, copy, ignore=shutil.ignore_patterns("answer.txt"))
    proc = subprocess.run(
        [sys.executable, "solution.py"], cwd=copy, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stdout
    return lines[0]


def check_candidate(candidate: Path, tmp_path: Path) -> str:
    """Gate-1 style check: format, four distinct options, solution reproduces the answer."""
    options = json.loads((candidate / "options.json").read_text())
    assert sorted(options) == ["A", "B", "C", "D"]
    assert len({Decimal(v) for v in options.values()}) == 4
    letter = (candidate / "answer.txt").read_text().strip()
    assert letter in options
    meta = json.loads((candidate / "meta.json").read_text())
    assert meta["domain"] == "fenicsx"
    printed = run_candidate(candidate, tmp_path)
    assert printed_matches(printed, options[letter]), (printed, options)
    others = [k for k in options if k != letter]
    assert not any(printed_matches(printed, options[k]) for k in others)
    return printed


@pytest.fixture
def check(tmp_path):
    """``check(candidate_dir)`` runs the verification check and returns the printed line."""
    return lambda candidate: check_candidate(Path(candidate), tmp_path)


def test_printed_matches_helper():
    assert printed_matches("0.060723", "0.0607230")
    assert printed_matches("0.0607230", "0.060723")
    assert not printed_matches("0.060724", "0.060723")
