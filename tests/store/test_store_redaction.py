"""Every write of the run database is redacted of the caller's credential values, in plain
text and inside JSON columns (where quotes, backslashes and non-ASCII are escaped)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from scigate import _secrets
from scigate.llm._types import ModelCallRecord
from scigate.store import CandidateRecord, Store

AWKWARD = 'pa"ss\\wörd-Zq8xVt3LmN0p'  # escaped differently by json.dumps


def _fill(db: Path, secret: str) -> str:
    store = Store(db)
    run = store.create_run("gate", config={"solver_cmd": f"agent --key {secret}"})
    store.add_event(run, "note", {"text": f"key {secret}", "nested": [secret]})
    store.add_attempt(run, 0, candidate_id=None, status="error", reason=f"boom {secret}")
    cid, _ = store.add_candidate(
        CandidateRecord(question=f"What is {secret}?", options={"A": secret, "B": "2"}, answer="A")
    )
    store.add_gate_result(run, cid, "verify", outcome="fail", reason=secret, detail={"s": secret})
    store.add_model_call(
        ModelCallRecord(
            spec="python/x.py:f",
            messages=[{"role": "user", "content": secret}],
            response={"content": secret, "tool_calls": [{"arguments": {"k": secret}}]},
            error=f"HTTP 401 for key {secret}",
        ),
        run_id=run,
    )
    store.close()
    conn = sqlite3.connect(db)
    dump = "\n".join(conn.iterdump())
    conn.close()
    return dump


@pytest.mark.parametrize("secret", ["sk-live-0123456789abcdef", AWKWARD])
def test_no_table_holds_the_secret(tmp_path: Path, monkeypatch, secret: str) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", secret)
    dump = _fill(tmp_path / "run.db", secret)
    assert "[redacted MY_SERVICE_TOKEN]" in dump
    for spelling in _secrets._spellings(secret):
        assert spelling not in dump


def test_without_redaction_the_secret_is_stored(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", AWKWARD)
    monkeypatch.setattr(_secrets, "secret_values", lambda env=None: [])
    dump = _fill(tmp_path / "run.db", AWKWARD)
    assert any(spelling in dump for spelling in _secrets._spellings(AWKWARD))


def test_url_passwords_and_short_values() -> None:
    env = {"DATABASE_URL": "postgres://me:hunter2hunter2@db/x", "API_KEY": "1", "HOME": "/root"}
    text = "dsn postgres://me:hunter2hunter2@db/x flag 1 home /root"
    out = _secrets.redact(text, env)
    assert "hunter2hunter2" not in out and "flag 1" in out and "/root" in out
