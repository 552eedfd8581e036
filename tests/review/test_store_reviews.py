"""The `reviews` and `reviewers` tables (schema v4): migration, one transaction per save,
and concurrent reviewers without lost writes."""

from __future__ import annotations

import multiprocessing as mp
import threading
from pathlib import Path

import pytest

from scigate.errors import BadInput
from scigate.review import TOOLGATE
from scigate.store import CandidateRecord, Store
from scigate.store import _connection as connection

from .conftest import vote


def test_version_3_database_gains_the_review_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "run.db"
    monkeypatch.setattr(connection, "SCHEMA_VERSION", 3)
    with Store(path) as store:
        run = store.create_run("gate")
        store.add_candidate(
            CandidateRecord(run_id=run, question="q", options={"A": "1"}, answer="A")
        )
        names = {r["name"] for r in store.query("SELECT name FROM sqlite_master")}
        assert "reviews" not in names
    monkeypatch.undo()
    with Store(path, create=False, readonly=True) as store:  # a reader migrates too
        assert store.query("PRAGMA user_version")[0]["user_version"] >= 4
        assert store.reviews() == [] and store.reviewers() == []
        assert len(store.candidates()) == 1


def test_save_is_all_or_nothing(gate_db: tuple[Path, list[str]]) -> None:
    path, ids = gate_db
    with Store(path) as store:
        good = {
            "item_id": ids[0],
            "item_kind": "candidate",
            "protocol": "toolgate",
            "reviewer": "Ada",
            "criterion": "correct",
            "verdict": "yes",
        }
        with pytest.raises(BadInput, match="cannot save reviews"):
            store.save_reviews([good, {**good, "criterion": "well_posed", "verdict": "maybe"}])
        with pytest.raises(BadInput, match="FOREIGN KEY"):
            store.save_reviews([good, {**good, "reviewer": "nobody"}])
        assert store.reviews() == []
        store.save_reviews([good])
        store.save_reviews([{**good, "verdict": "no", "note": "wrong units"}])  # replaces
        rows = store.reviews()
        assert [(r["verdict"], r["note"]) for r in rows] == [("no", "wrong units")]
        assert rows[0]["updated_at"] >= rows[0]["created_at"]


def _reviewer_process(path: str, name: str, ids: list[str]) -> None:
    with Store(path, create=False) as store:
        for cid in ids:
            vote(store, cid, name, "yes")


def test_concurrent_reviewers_lose_no_write(gate_db: tuple[Path, list[str]]) -> None:
    """Three processes and three threads save 4 verdicts on each of 11 items at once."""
    path, ids = gate_db
    with Store(path) as store:
        for name in ("T1", "T2", "T3"):
            store.add_reviewer(name)
    ctx = mp.get_context("spawn")
    procs = [
        ctx.Process(target=_reviewer_process, args=(str(path), n, ids)) for n in ("Ada", "Bo", "Cy")
    ]
    for p in procs:
        p.start()
    shared = Store(path, create=False)
    threads = [
        threading.Thread(target=lambda n=n: [vote(shared, c, n, "no") for c in ids])
        for n in ("T1", "T2", "T3")
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    rows = shared.reviews(protocol="toolgate")
    shared.close()
    assert len(rows) == 6 * len(ids) * len(TOOLGATE.criteria)
