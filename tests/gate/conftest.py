"""Fixtures for the ToolGate tests: small candidates whose solutions are plain Python."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

MODELS = Path(__file__).parent / "models"


def write_candidate(
    directory: Path,
    *,
    question: str = "Compute 2/7 rounded to exactly six decimal places.",
    options: dict[str, str] | None = None,
    answer: str = "B",
    solution: str = "print(f'{2/7:.6f}')\n",
    meta: dict | None = None,
) -> Path:
    """Write a candidate directory; any file can be replaced to make it malformed."""
    directory.mkdir(parents=True, exist_ok=True)
    opts = (
        options
        if options is not None
        else {"A": "0.142857", "B": "0.285714", "C": "0.428571", "D": "0.571429"}
    )
    (directory / "question.md").write_text(question + "\n")
    (directory / "options.json").write_text(json.dumps(opts))
    if answer is not None:
        (directory / "answer.txt").write_text(answer + "\n")
    if solution is not None:
        (directory / "solution.py").write_text(solution)
    if meta is not None:
        (directory / "meta.json").write_text(json.dumps(meta))
    return directory


@pytest.fixture
def candidate_dir(tmp_path: Path) -> Path:
    return write_candidate(tmp_path / "cand")


def model_spec(name: str) -> str:
    """A python/ model spec for a callable in tests/gate/models/."""
    module, func = name.split(":")
    return f"python/{MODELS / module}.py:{func}"


def run_in_fenicsx(source: str):
    """`source` run in the sandbox from a warm FEniCSx server, in a workspace of its own
    (removed after); the SandboxResult."""
    import shutil

    from scigate import sandbox
    from scigate.domains import get_domain

    ws = sandbox.fresh_workspace()
    try:
        return sandbox.run_python(source, workspace=ws, preload=get_domain("fenicsx").preload)
    finally:
        shutil.rmtree(ws, ignore_errors=True)


def cli(*args: str):
    """`scigate ARGS` run in-process: an object with returncode, stdout and stderr."""
    from types import SimpleNamespace

    from _cli import run_main

    code, out, err = run_main(*args)
    return SimpleNamespace(returncode=code, stdout=out, stderr=err)
