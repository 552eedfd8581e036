"""Opening run databases: schema creation, pragmas, versions, migrations, bad paths."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

import scigate.store._connection as connection
from scigate.errors import BadInput, ScigateError
from scigate.store import SCHEMA_VERSION, Store

TABLES = {"runs", "attempts", "candidates", "gate_results", "model_calls", "events"}
VIEWS = {"v_gate_latest", "v_candidate_status", "v_funnel", "v_rejections", "v_model_usage"}


def _names(store: Store, kind: str) -> set[str]:
    rows = store.query("SELECT name FROM sqlite_master WHERE type = ?", (kind,))
    return {r["name"] for r in rows}


def _one_line_bad_input(path: Path, match: str, **kwargs) -> str:
    with pytest.raises(BadInput, match=match) as info:
        Store(path, **kwargs)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_new_database_has_schema_version_and_pragmas(tmp_path: Path) -> None:
    with Store(tmp_path / "sub" / "run.db") as store:
        assert _names(store, "table") >= TABLES
        assert _names(store, "view") >= VIEWS
        assert store.query("PRAGMA user_version")[0]["user_version"] == SCHEMA_VERSION
        assert store.query("PRAGMA journal_mode")[0]["journal_mode"] == "wal"
        assert store.query("PRAGMA foreign_keys")[0]["foreign_keys"] == 1
        assert store.query("PRAGMA synchronous")[0]["synchronous"] == 1  # NORMAL
        assert store.query("PRAGMA busy_timeout")[0]["timeout"] >= 30000
        for view in VIEWS:
            assert store.query(f"SELECT * FROM {view}") == []


def test_reopen_keeps_data_and_empty_file_becomes_a_database(tmp_path: Path) -> None:
    path = tmp_path / "run.db"
    path.touch()  # an empty file is an empty SQLite database
    with Store(path) as store:
        run_id = store.create_run("gate", domain="fenicsx", config={"rounds": 3})
    with Store(path, create=False) as store:
        assert store.get_run(run_id)["config"] == {"rounds": 3}


def test_missing_file_with_create_false(tmp_path: Path) -> None:
    _one_line_bad_input(tmp_path / "nope.db", "run database not found", create=False)
    assert not (tmp_path / "nope.db").exists()


def test_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 20)
    message = _one_line_bad_input(path, "not a scigate run database")
    assert message == f"not a scigate run database: {path} (file is not a database)"
    assert path.read_text().startswith("these are my notes")


def test_directory(tmp_path: Path) -> None:
    _one_line_bad_input(tmp_path, r"not a scigate run database: .* \(is a directory\)")


def test_parent_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    _one_line_bad_input(tmp_path / "file" / "run.db", "cannot create run database")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "run.db"
    Store(path).close()
    path.chmod(0)
    try:
        _one_line_bad_input(path, "cannot read run database")
    finally:
        path.chmod(0o644)


def test_unreadable_file_even_as_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "run.db"
    Store(path).close()
    real_access = os.access
    monkeypatch.setattr(
        connection.os, "access", lambda p, mode: False if p == path else real_access(p, mode)
    )
    _one_line_bad_input(path, r"cannot read run database: .* \(permission denied\)")


def test_other_programs_database_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY)")
    conn.close()
    _one_line_bad_input(path, "without scigate's schema")
    with sqlite3.connect(path) as conn:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    conn.close()
    assert names == {"photos"}


def test_newer_schema_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "run.db"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    message = _one_line_bad_input(path, "newer than this scigate supports")
    assert f"schema version {SCHEMA_VERSION + 1}" in message


def test_migration_applied_on_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "run.db"
    with Store(path) as store:
        run_id = store.create_run("gate")
    target = SCHEMA_VERSION + 1
    monkeypatch.setattr(connection, "SCHEMA_VERSION", target)
    monkeypatch.setitem(
        connection.MIGRATIONS, target, "ALTER TABLE runs ADD COLUMN note TEXT DEFAULT 'x';"
    )
    with Store(path) as store:
        assert store.query("PRAGMA user_version")[0]["user_version"] == target
        assert store.query("SELECT id, note FROM runs") == [{"id": run_id, "note": "x"}]


def test_failed_migration_rolls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "run.db"
    Store(path).close()
    target = SCHEMA_VERSION + 1
    monkeypatch.setattr(connection, "SCHEMA_VERSION", target)
    monkeypatch.setitem(
        connection.MIGRATIONS,
        target,
        "ALTER TABLE runs ADD COLUMN note TEXT; ALTER TABLE no_such_table ADD COLUMN y;",
    )
    with pytest.raises(sqlite3.OperationalError):
        Store(path)
    monkeypatch.undo()
    with Store(path) as store:
        assert store.query("PRAGMA user_version")[0]["user_version"] == SCHEMA_VERSION
        columns = {r["name"] for r in store.query("PRAGMA table_info(runs)")}
        assert "note" not in columns


def test_closed_store_refuses_use(tmp_path: Path) -> None:
    store = Store(tmp_path / "run.db")
    store.close()
    with pytest.raises(ScigateError, match="closed"):
        store.runs()


def test_version_2_database_migrates_and_views_show_gate_1b(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A version-2 file (before gate 1b) opens at the current version; its views then stop a candidate that failed
    the invariance gate (gate 1b) before the screens and count the stage on its own."""
    from scigate.store import CandidateRecord

    path = tmp_path / "run.db"
    monkeypatch.setattr(connection, "SCHEMA_VERSION", 2)
    with Store(path) as store:
        run_id = store.create_run("gate")
        for i, inv in enumerate(("pass", "fail", "error", None)):
            cid = f"c{i}"
            store.add_candidate(
                CandidateRecord(
                    id=cid, run_id=run_id, question=f"q{i}", options={"A": "1"}, answer="A"
                )
            )
            store.add_attempt(run_id, i, candidate_id=cid, status="x")
            store.add_gate_result(run_id, cid, "verify", outcome="pass")
            if inv is not None:
                store.add_gate_result(run_id, cid, "invariance", outcome=inv, reason=f"r{i}")
            store.add_gate_result(run_id, cid, "screen", screen="m", outcome="pass")
            store.add_gate_result(run_id, cid, "solve", screen="s", outcome="pass")
        assert store.query("PRAGMA user_version")[0]["user_version"] == 2
    monkeypatch.undo()
    with Store(path) as store:
        assert store.query("PRAGMA user_version")[0]["user_version"] == SCHEMA_VERSION
        rows = store.query(
            "SELECT candidate_id, invariance, invariance_reason, status FROM v_candidate_status"
        )
        assert [(r["candidate_id"], r["invariance"], r["status"]) for r in rows] == [
            ("c0", "pass", "accepted"),
            ("c1", "fail", "rejected-invariance"),
            ("c2", "error", "error-invariance"),
            ("c3", None, "accepted"),  # a run without gate 1b
        ]
        funnel = store.query("SELECT * FROM v_funnel")[0]
        assert funnel["verified"] == 4 and funnel["invariant"] == 1
        # v5 counts as the CLI's funnel: gate 1b ran in this run, so c3 (no result) stops
        assert funnel["screen_passed"] == 1 and funnel["accepted"] == 1
