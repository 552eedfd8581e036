"""Secrets never leave: with the caller's OPENAI_API_KEY echoed by every model (replies,
tool-call arguments, code run in the sandbox), no row of the run database, no export,
report, evaluation file or printed line holds it. The paired test switches redaction off
and finds the key, so the first cannot pass vacuously."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from _cli import run_main

from .conftest import model_spec

SECRET = "sk-proj-Zq8xVt3LmN0pRw7sKd2YhF5gJc9BnE4aUo1iXe6TfQyHzWvM"


def _main(*argv: str) -> tuple[int, str]:
    """Run the command line in-process; (exit status, stdout + stderr)."""
    code, out, err = run_main(*argv)
    return code, out + err


def _everything(tmp_path: Path) -> tuple[str, dict[str, str]]:
    """Run the pipeline and the agent evaluation with leaky models; return what was
    printed and every text left behind (the databases dumped, every file read)."""
    db, agent_db = tmp_path / "run.db", tmp_path / "agent.db"
    printed = []
    bench, out = tmp_path / "bench.jsonl", tmp_path / "out"
    bench.write_text(json.dumps({"question": "What is the key?", "answer": "none"}) + "\n")
    gen, screen, solver, answers = (
        model_spec(f"leaky:{name}") for name in ("generator", "screen", "solver", "answers")
    )
    for line in (
        f"gate run --db {db} --generator {gen} --screen {screen} --solver {solver} --rounds 1"
        " --verify-timeout 60 --time-limit 60 --json",
        f"gate export --db {db} --out {out}/items.jsonl --release {out}/release",
        f"gate report --db {db} --out {out}/report",
        f"gate audit --db {db} --json",
        f"agent eval --method direct --bench {bench} --model {answers} --db {agent_db}"
        f" --out {out}/eval",
        f"agent run --method direct --model {answers} q",
    ):
        code, text = _main(*line.split())
        assert code in (0, 1), text
        printed.append(text)
    texts = {}
    for path in (db, agent_db):
        conn = sqlite3.connect(path)
        texts[path.name] = "\n".join(conn.iterdump())
        conn.close()
    for path in sorted((tmp_path / "out").rglob("*")):
        if path.is_file():
            texts[str(path)] = path.read_bytes().decode("utf-8", "replace")
    return "\n".join(printed), texts


@pytest.fixture
def leaky_env(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)


def test_the_key_is_in_no_row_file_or_printed_line(tmp_path: Path, leaky_env) -> None:
    printed, texts = _everything(tmp_path)
    db = texts["run.db"]
    # the run really happened: every model role spoke and the sandbox ran the solver's code
    for role in ("generator", "screen", "solver"):
        assert f"'{role}'" in db, role
    assert "[redacted OPENAI_API_KEY]" in db and "[redacted OPENAI_API_KEY]" in texts["agent.db"]
    assert any("rows.jsonl" in name for name in texts)
    assert SECRET not in printed
    leaks = [name for name, text in texts.items() if SECRET in text]
    assert leaks == []


def test_without_redaction_the_key_leaks_everywhere(tmp_path: Path, leaky_env, monkeypatch):
    from scigate import _secrets

    monkeypatch.setattr(_secrets, "secret_values", lambda env=None: [])
    printed, texts = _everything(tmp_path)
    assert SECRET in printed
    leaks = {name for name, text in texts.items() if SECRET in text}
    assert {"run.db", "agent.db"} <= leaks
    assert any(name.endswith("rows.jsonl") for name in leaks)
