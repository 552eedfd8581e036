"""The audit's, report's and review queue's named reads (`store/_audit_reads.py`), on a
hand-made database whose answers are worked out below; and the rule that keeps them
there: no SQL is written in `scigate.gate` or `scigate.review` (issue 24, typed seams)."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

import scigate
from scigate.llm import ModelCallRecord, Usage
from scigate.store import CandidateRecord, Store

SRC = Path(scigate.__file__).parent
#: SQL statements, and calls of `Store.query` (raw SQL by another spelling).
_SQL = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE)\s+\S|\.query\(|\._read\(")


def _sql_lines(package: str) -> list[str]:
    """`path:line: text` of each line of the package's Python modules that holds SQL."""
    return [
        f"{path.relative_to(SRC)}:{n}: {line.strip()}"
        for path in sorted((SRC / package).rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _SQL.search(line)
    ]


@pytest.mark.parametrize("package", ["gate", "review"])
def test_no_sql_outside_the_store(package: str) -> None:
    """The gate's and the review's reads are named `Store` methods (`_gate_reads`,
    `_audit_reads`): a query written in these packages fails here."""
    assert _sql_lines(package) == []


def test_the_scan_finds_sql() -> None:
    """The pattern of `test_no_sql_outside_the_store` catches the forms it must."""
    for line in (
        '    "SELECT id FROM candidates"',
        "rows = store.query(sql)",
        '    " INSERT INTO runs VALUES (?)"',
        "f\"UPDATE runs SET status = 'x'\"",
        "conn.execute('DELETE FROM runs')",
    ):
        assert _SQL.search(line), line


def _cand(question: str, run_id: str, created_at: float, **kw: object) -> CandidateRecord:
    return CandidateRecord(
        run_id=run_id,
        question=question,
        options={"A": "1", "B": "2", "C": "3", "D": "4"},
        answer="B",
        created_at=created_at,
        solution="print(2)",
        generator="gen",
        **kw,  # type: ignore[arg-type]
    )


@pytest.fixture
def db(tmp_path: Path):
    """Generation run g (domain fenicsx), rescreen r, bench build b, and three candidates
    inserted in the order a, b, c but created in the order c, a, b:

    - a: verify pass, screen S fail (in g) then pass (in r), solve pass;
    - b: verify pass, screen T pass;
    - c: verify fail, no run (run_id "").

    Attempts of g: round 1 accepted (a, 2 s of generator time), round 2 generator-failed,
    round 3 rejected-duplicate; of b: round 1 reached a question (task t-1), round 2 did
    not. Model calls: screen S twice (priced 0.5 and unpriced), generator once, two calls
    of b's round 1 keyed `bench-build/<b>/1/...` and one of round 10."""
    store = Store(tmp_path / "a.db")
    g = store.create_run("gate", domain="fenicsx", config={})
    r = store.create_run("rescreen", config={})
    b = store.create_run("bench-build", config={})
    a_id, _ = store.add_candidate(_cand("question a about meshes", g, 20.0, family="f1"))
    b_id, _ = store.add_candidate(_cand("question b about meshes", g, 30.0, meta={"level": 2}))
    c_id, _ = store.add_candidate(_cand("question c about meshes", "", 10.0))
    store.add_gate_result(g, a_id, "verify", outcome="pass", seconds=1.0)
    store.add_gate_result(g, b_id, "verify", outcome="pass", seconds=2.0)
    store.add_gate_result(g, a_id, "screen", screen="S", outcome="fail", seconds=4.0)
    store.add_gate_result(g, c_id, "verify", outcome="fail", reason="wrong")
    store.add_gate_result(g, b_id, "screen", screen="T", outcome="pass", detail={"calls": []})
    store.add_gate_result(r, a_id, "screen", screen="S", outcome="pass")
    store.add_gate_result(g, a_id, "solve", outcome="pass")
    store.add_attempt(g, 1, candidate_id=a_id, status="accepted", gen_seconds=2.0)
    store.add_attempt(g, 2, candidate_id=None, status="generator-failed", reason="boom")
    store.add_attempt(g, 3, candidate_id=b_id, status="rejected-duplicate", gen_seconds=0.5)
    store.add_attempt(r, 1, candidate_id=a_id, status="accepted", gen_seconds=9.0)
    store.add_attempt(
        b, 1, candidate_id=None, status="accepted", detail={"question": "q?", "task_id": "t-1"}
    )
    store.add_attempt(b, 2, candidate_id=None, status="rejected", detail={"stage": "writer"})

    def call(spec: str, cost: float | None, text: str = "") -> ModelCallRecord:
        return ModelCallRecord(
            spec=spec,
            cost=cost,
            latency=1.5,
            messages=[{"role": "user", "content": text}],
            usage=Usage(input_tokens=3, output_tokens=1),
        )

    store.add_model_call(call("S", 0.5), run_id=g, candidate_id=a_id, role="screen")
    store.add_model_call(call("gen", 0.25), run_id=g, role="generator")
    store.add_model_call(call("S", None), run_id=r, candidate_id=a_id, role="screen")
    for key, text in (("1/writer", "w"), ("1/judge", "j"), ("10/writer", "other round")):
        store.add_model_call(call("m", None, text), run_id=b, call_key=f"bench-build/{b}/{key}")
    yield store, {"g": g, "r": r, "b": b, "a": a_id, "bb": b_id, "c": c_id}
    store.close()


def test_candidates_paged_by_rowid_and_by_age(db) -> None:
    store, ids = db
    a, b, c = ids["a"], ids["bb"], ids["c"]
    for size in (1, 2, 3, 50):
        pages = list(store.candidate_pages(size))
        assert all(0 < len(p) <= size for p in pages)
        rows = [row for page in pages for row in page]
        assert [row["id"] for row in rows] == [a, b, c]  # insertion order
    assert set(rows[0]) == {
        "id",
        "run_id",
        "question",
        "options",
        "answer",
        "family",
        "duplicate_of",
        "created_at",
    }
    assert rows[0]["options"]["B"] == "2" and rows[2]["run_id"] is None  # decoded; no run
    (full,) = list(store.candidate_pages(10, solutions=True))
    assert full[0]["solution"] == "print(2)" and full[0]["generator"] == "gen"
    assert store.candidate_ids_by_age() == [c, a, b]
    with_rowid = {row["id"]: row for row in store.candidates_with_rowid([c, a])}
    assert set(with_rowid) == {a, c} and with_rowid[a]["rowid"] < with_rowid[c]["rowid"]
    assert with_rowid[a]["solution"] == "print(2)"
    assert store.candidate_run_domains() == {a: "fenicsx", b: "fenicsx", c: ""}


def test_gate_results_whole_paged_and_per_candidate(db, tmp_path: Path) -> None:
    store, ids = db
    a, b = ids["a"], ids["bb"]
    rows = store.gate_result_rows()
    assert [r["id"] for r in rows] == sorted(r["id"] for r in rows) and len(rows) == 7
    assert rows == store.all_gate_results()  # every column, as `SELECT *` has them
    for size in (1, 3, 7, 100):
        assert [r for p in store.gate_result_pages(size) for r in p] == rows
    assert store.gate_results_of_candidates([b]) == [r for r in rows if r["candidate_id"] == b]
    assert [r["gate"] for r in store.gate_results_of_candidates([a])] == [
        "verify",
        "screen",
        "screen",
        "solve",
    ]
    # `texts`: each row as without, plus its detail's JSON text as the database holds it
    both = store.gate_results_of_candidates([a, b, ids["c"]], texts=True)
    assert [r["id"] for r in both] == sorted(r["id"] for r in both) and len(both) == 7
    raw = sqlite3.connect(store.path)
    stored = dict(raw.execute("SELECT id, detail FROM gate_results"))
    raw.close()
    for row in both:
        assert row.pop("detail_text") == stored[row["id"]]
        assert json.loads(stored[row["id"]]) == row["detail"]
    assert both == rows
    assert store.candidate_ids_by_first_result() == [a, b, ids["c"]]
    assert store.screens_by_first_result() == ["S", "T"]
    assert store.gate_results_without_candidate() == []
    assert store.non_gate_run_result_count() == 1  # r's rescreen of a
    totals = {(t["gate"], t["screen"]): (t["n"], t["seconds"]) for t in store.gate_result_totals()}
    assert list(totals) == [("verify", ""), ("screen", "S"), ("screen", "T"), ("solve", "")]
    assert totals[("verify", "")] == (3, 3.0) and totals[("screen", "S")] == (2, 4.0)
    # a gate result whose candidate is gone (written around the foreign key)
    raw = sqlite3.connect(store.path)
    with raw:
        raw.execute(
            "INSERT INTO gate_results (run_id, candidate_id, gate, outcome, created_at)"
            " VALUES (?, 'gone', 'verify', 'pass', 1.0)",
            (ids["g"],),
        )
    raw.close()
    (orphan,) = store.gate_results_without_candidate()
    assert orphan["candidate_id"] == "gone" and orphan["detail"] == {}


def test_attempts_of_generation_runs_only(db) -> None:
    store, ids = db
    outcomes = store.gate_run_attempt_outcomes()
    assert [(o["candidate_id"], o["status"]) for o in outcomes] == [
        (ids["a"], "accepted"),
        (None, "generator-failed"),
        (ids["bb"], "rejected-duplicate"),
    ]
    assert set(outcomes[1]) == {"candidate_id", "status", "reason"}
    assert store.gate_run_attempt_counts() == {"n": 3, "failed": 1, "near": 1}
    assert store.gate_run_generation_time() == {"n": 3, "seconds": 2.5}


def test_empty_database_sums_are_none(tmp_path: Path) -> None:
    with Store(tmp_path / "e.db") as store:
        assert store.gate_run_attempt_counts() == {"n": 0, "failed": None, "near": None}
        assert store.gate_run_generation_time() == {"n": 0, "seconds": None}
        assert store.non_gate_run_result_count() == 0
        assert list(store.candidate_pages(5)) == list(store.gate_result_pages(5)) == []
        assert store.candidate_ids_by_first_result() == store.screens_by_first_result() == []


def test_model_call_totals_and_transcripts(db) -> None:
    store, ids = db
    totals = {(t["role"], t["spec"]): t for t in store.model_call_totals()}
    assert list(totals) == [("screen", "S"), ("generator", "gen"), ("", "m")]
    s = totals[("screen", "S")]
    assert (s["calls"], s["input_tokens"], s["output_tokens"]) == (2, 6, 2)
    assert (s["cost"], s["unpriced"], s["latency"]) == (0.5, 1, 3.0)
    transcripts = store.call_transcripts(f"bench-build/{ids['b']}/1/")
    assert [t["messages"][0]["content"] for t in transcripts] == ["w", "j"]  # not round 10
    assert set(transcripts[0]) == {"spec", "messages", "response"}
    assert store.call_transcripts("bench-build/%/1/") == []  # no pattern matching


def test_review_queue_reads(db) -> None:
    store, ids = db
    rows = {r["candidate_id"]: r for r in store.candidate_statuses_with_questions()}
    assert set(rows) == {ids["a"], ids["bb"], ids["c"]}
    assert rows[ids["bb"]]["meta"] == {"level": 2}  # decoded
    assert rows[ids["bb"]]["question"] == "question b about meshes"
    assert rows[ids["c"]]["status"] == "rejected-verify"
    assert store.has_candidate(ids["a"]) and not store.has_candidate("nope")
    assert store.has_bench_attempt(ids["b"], 1)
    assert not store.has_bench_attempt(ids["b"], 2)  # reached no question
    assert not store.has_bench_attempt(ids["g"], 1)  # not a bench build
    assert store.has_bench_task("t-1") and not store.has_bench_task("t-2")
