"""Schema v2: a version 1 database gains attempts.gen_seconds (backfilled from the
generator time its generation runs recorded) and the rejected-duplicate status."""

import json
import sqlite3
from pathlib import Path

from scigate.store import SCHEMA_VERSION, CandidateRecord, Store
from scigate.store._connection import _statements
from scigate.store._schema import _V1, APPLICATION_ID


def _v1_database(path: Path) -> None:
    conn = sqlite3.connect(path)
    for statement in _statements(_V1):
        conn.execute(statement)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 1")
    runs = [("g", "gate"), ("r", "rescreen")]
    conn.executemany("INSERT INTO runs (id, kind, created_at) VALUES (?, ?, 0)", runs)
    rows = [
        ("g", 0, "accepted", {"generation": {"seconds": 12.5}}, 40.0),
        ("g", 1, "generator-failed", {"seconds": 7.0}, 9.0),
        ("r", 0, "screened", {"family": None}, 3.0),
    ]
    conn.executemany(
        "INSERT INTO attempts (run_id, round, status, detail, seconds, created_at)"
        " VALUES (?, ?, ?, ?, ?, 0)",
        [(r, n, st, json.dumps(d), sec) for r, n, st, d, sec in rows],
    )
    conn.commit()
    conn.close()


def test_version_1_database_migrates_with_generator_time(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _v1_database(path)
    with Store(path) as store:
        assert store.query("PRAGMA user_version")[0]["user_version"] == SCHEMA_VERSION
        got = {(a["run_id"], a["round"]): a["gen_seconds"] for a in store.attempts()}
        assert got == {("g", 0): 12.5, ("g", 1): 7.0, ("r", 0): 0.0}
        cid, _ = store.add_candidate(
            CandidateRecord(question="q", options={"A": "1", "B": "2"}, answer="A")
        )
        store.add_gate_result("g", cid, "duplicate", outcome="fail", reason="near duplicate")
        (row,) = store.query("SELECT status FROM v_candidate_status")
        assert row["status"] == "rejected-duplicate"
