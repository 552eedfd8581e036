"""Every database is checked before use: empty files, read-only opens, damaged JSON rows."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

import scigate.store._connection as connection
from scigate.errors import BadInput, ScigateError
from scigate.store import SCHEMA_VERSION, CandidateRecord, Store


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _damaged(path: Path, table: str, column: str, text: str) -> str:
    """A valid run database one of whose JSON cells is replaced by `text`."""
    with Store(path) as store:
        run_id = store.create_run("gate", config={"seed": 1})
        store.add_event(run_id, "started", {"k": 1})
    conn = sqlite3.connect(path)
    conn.execute(f"UPDATE {table} SET {column} = ?", (text,))
    conn.commit()
    conn.close()
    return run_id


@pytest.mark.parametrize("column", ["options", "meta"])
def test_a_reader_names_the_damaged_one_of_a_tables_json_columns(tmp_path, column) -> None:
    """`check_json` scans a table of several JSON columns once for all of them, and then
    names the damaged column (the first in table order when several are)."""
    path = tmp_path / "run.db"
    with Store(path) as store:
        run_id = store.create_run("gate", config={})
        for k in range(3):
            store.add_candidate(
                CandidateRecord(
                    question=f"q{k}", options={"A": "1", "B": "2"}, answer="A", run_id=run_id
                )
            )
    conn = sqlite3.connect(path)
    conn.execute(f"UPDATE candidates SET {column} = '{{x' WHERE question = 'q1'")
    conn.commit()
    conn.close()
    with pytest.raises(BadInput, match=f"candidates.{column} .* does not hold JSON"):
        Store(path, create=False, readonly=True)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE candidates SET meta = '[' WHERE question = 'q2'")
    conn.execute("UPDATE candidates SET options = '[' WHERE question = 'q2'")
    conn.commit()
    conn.close()
    with pytest.raises(BadInput, match=r"candidates\.options .* does not hold JSON"):
        Store(path, create=False, readonly=True)


@pytest.mark.parametrize("kwargs", [{"create": False}, {"create": False, "readonly": True}])
def test_an_empty_file_is_refused_and_left_empty(tmp_path: Path, kwargs: dict) -> None:
    path = tmp_path / "empty.db"
    path.touch()
    with pytest.raises(BadInput, match="an empty file"):
        Store(path, **kwargs)
    assert path.stat().st_size == 0


def test_an_empty_sqlite_database_is_not_given_a_schema_by_a_reader(tmp_path: Path) -> None:
    path = tmp_path / "blank.db"
    sqlite3.connect(path).execute("PRAGMA user_version = 0").close()
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x)")  # give it a page so the file is not empty
    conn.execute("DROP TABLE t")
    conn.commit()
    conn.close()
    before = _digest(path)
    with pytest.raises(BadInput, match="without scigate's schema"):
        Store(path, create=False, readonly=True)
    assert _digest(path) == before
    Store(path).close()  # a writer may still make it a run database


def test_a_read_only_store_reads_and_cannot_write(tmp_path: Path) -> None:
    path = tmp_path / "run.db"
    with Store(path) as store:
        run_id = store.create_run("gate", config={"seed": 7})
    before = _digest(path)
    with Store(path, create=False, readonly=True) as store:
        assert store.get_run(run_id)["config"] == {"seed": 7}
        with pytest.raises(ScigateError, match="read-only"):
            store.add_event(run_id, "x")
        # Even past the store's own guard, SQLite refuses the write.
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            store._conn().execute("INSERT INTO events (kind, created_at) VALUES ('x', 0)")
    assert _digest(path) == before


def test_a_reader_migrates_an_older_scigate_database(tmp_path, monkeypatch) -> None:
    path = tmp_path / "run.db"
    with Store(path) as store:
        store.create_run("gate")
    target = SCHEMA_VERSION + 1
    monkeypatch.setattr(connection, "SCHEMA_VERSION", target)
    monkeypatch.setitem(connection.MIGRATIONS, target, "ALTER TABLE runs ADD COLUMN n TEXT;")
    with Store(path, create=False, readonly=True) as store:
        assert store.query("PRAGMA user_version")[0]["user_version"] == target


@pytest.mark.parametrize("text", ["{broken", "not json", "[1, 2"])
@pytest.mark.parametrize(("table", "column"), [("runs", "config"), ("events", "data")])
def test_damaged_json_is_one_line_bad_input(tmp_path, table, column, text) -> None:
    path = tmp_path / "run.db"
    run_id = _damaged(path, table, column, text)
    before = _digest(path)
    with pytest.raises(BadInput, match=f"{table}.{column} .* does not hold JSON") as info:
        Store(path, create=False, readonly=True)  # found before anything is read
    assert "\n" not in str(info.value)
    with Store(path) as store:  # a writer finds it when it reads the row
        reader = store.get_run if table == "runs" else store.events
        with pytest.raises(BadInput, match="does not hold JSON"):
            reader(run_id)
        with pytest.raises(BadInput, match="does not hold JSON"):
            store.query(f"SELECT {column} FROM {table}")
    assert _digest(path) == before
