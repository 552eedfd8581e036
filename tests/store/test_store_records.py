"""Writing and reading records: ids, duplicates, idempotent writes, model calls, SQL."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scigate.errors import BadInput
from scigate.llm._types import ModelCallRecord, Usage
from scigate.store import CandidateRecord, Store, candidate_id, question_key

OPTIONS = {"A": "0.060723", "B": "0.0712", "C": "0.05", "D": "1.0"}


@pytest.fixture
def store(tmp_path: Path):
    with Store(tmp_path / "run.db") as s:
        yield s


def _candidate(run_id: str, question: str = "What is the L2 norm of u_h?", **kw):
    return CandidateRecord(
        run_id=run_id, question=question, options=kw.pop("options", OPTIONS), answer="A", **kw
    )


def _call(spec: str = "python/m.py:f", **kw) -> ModelCallRecord:
    fields = {
        "settings": {"temperature": 0.0},
        "messages": [{"role": "user", "content": "Q"}],
        "response": {"text": "A"},
        "usage": Usage(input_tokens=10, output_tokens=5, reasoning_tokens=2),
        "latency": 0.25,
    }
    return ModelCallRecord(spec=spec, **{**fields, **kw})


def test_candidate_id_is_a_stable_content_hash() -> None:
    cid = candidate_id("  What is x? \n", {"B": "2", "A": "1"})
    assert cid == candidate_id("What is x?", {"A": "1", "B": "2"})
    assert len(cid) == 16 and int(cid, 16) >= 0
    assert cid != candidate_id("What is x?", {"A": "1", "B": "3"})
    assert cid != candidate_id("what is x?", {"A": "1", "B": "2"})
    # Pinned value: the hash is part of the public schema and must never drift.
    assert candidate_id("What is x?", {"A": "1", "B": "2"}) == "1c0b103134b1a0d9"
    assert (
        CandidateRecord(question="What is x?", options={"A": "1", "B": "2"}, answer="A").id == cid
    )


def test_question_key_normalizes_white_space_and_case() -> None:
    assert question_key("  What   IS\n x? ") == "what is x?"


def test_run_lifecycle(store: Store) -> None:
    first = store.create_run("gate", domain="fenicsx", config={"rounds": 5, "screens": ["a"]})
    assert store.create_run("gate", run_id=first) == first  # resuming is a no-op
    second = store.create_run("rescreen", run_id="rescreen-1")
    assert [r["id"] for r in store.runs()] == [first, second]
    assert store.latest_run()["id"] == second
    assert store.latest_run("gate")["id"] == first
    assert store.latest_run("agent-eval") is None
    run = store.get_run(first)
    assert run["status"] == "running" and run["finished_at"] is None
    assert run["config"] == {"rounds": 5, "screens": ["a"]}
    store.set_run_status(first, "finished")
    assert store.get_run(first)["finished_at"] >= run["created_at"]
    with pytest.raises(BadInput, match="unknown run status"):
        store.set_run_status(first, "done")
    with pytest.raises(BadInput, match="no run"):
        store.set_run_status("missing", "failed")
    assert store.get_run("missing") is None


def test_candidate_round_trip_and_idempotence(store: Store) -> None:
    run_id = store.create_run("gate")
    record = _candidate(
        run_id, answer_value="0.060723", solution="print(1)", meta={"ü": 1}, family="poisson"
    )
    assert store.add_candidate(record) == (record.id, True)
    assert store.add_candidate(record) == (record.id, False)
    assert store.add_candidate(_candidate("")) == (record.id, False)
    got = store.get_candidate(record.id)
    assert got.model_dump(exclude={"created_at"}) == record.model_dump(exclude={"created_at"})
    assert got.created_at > 0
    assert store.query("SELECT count(*) AS n FROM candidates")[0]["n"] == 1
    raw = store.query("SELECT CAST(meta AS BLOB) AS m FROM candidates")[0]["m"]
    assert raw.decode() == json.dumps({"ü": 1}, ensure_ascii=False)  # UTF-8 kept
    assert store.get_candidate("0" * 16) is None


def test_exact_duplicate_question_points_to_earliest(store: Store) -> None:
    run_id = store.create_run("gate")
    first = _candidate(run_id, "What is  the L2 norm?")
    second = _candidate(run_id, "what is the l2 NORM?", options={**OPTIONS, "D": "2.0"})
    third = _candidate(run_id, "WHAT IS THE L2 NORM?", options={**OPTIONS, "D": "3.0"})
    other = _candidate(run_id, "What is the H1 seminorm?")
    for record in (first, second, third, other):
        assert store.add_candidate(record)[1]
    assert len({first.id, second.id, third.id}) == 3
    assert store.get_candidate(first.id).duplicate_of is None
    assert store.get_candidate(second.id).duplicate_of == first.id
    assert store.get_candidate(third.id).duplicate_of == first.id
    assert store.get_candidate(other.id).duplicate_of is None
    rows = store.query("SELECT id FROM candidates WHERE duplicate_of IS NOT NULL ORDER BY rowid")
    assert [r["id"] for r in rows] == [second.id, third.id]


def test_attempts_are_idempotent_on_run_and_round(store: Store) -> None:
    run_id = store.create_run("gate")
    cid, _ = store.add_candidate(_candidate(run_id))
    assert store.add_attempt(run_id, 0, candidate_id=cid, status="candidate", seconds=1.5)
    assert not store.add_attempt(run_id, 0, candidate_id=cid, status="candidate")
    assert store.add_attempt(
        run_id, 1, candidate_id=None, status="generator-failed", reason="no options.json"
    )
    assert store.done_rounds(run_id) == {0, 1}
    rows = store.attempts(run_id)
    assert [(r["round"], r["status"], r["detail"]) for r in rows] == [
        (0, "candidate", {}),
        (1, "generator-failed", {}),
    ]
    assert store.attempts() == rows
    with pytest.raises(BadInput, match="FOREIGN KEY"):
        store.add_attempt("no-such-run", 0, candidate_id=None, status="candidate")
    with pytest.raises(BadInput, match="FOREIGN KEY"):
        store.add_attempt(run_id, 2, candidate_id="0" * 16, status="candidate")
    assert store.done_rounds(run_id) == {0, 1}


def test_gate_results_are_idempotent(store: Store) -> None:
    run_id = store.create_run("gate")
    cid, _ = store.add_candidate(_candidate(run_id))
    assert store.add_gate_result(run_id, cid, "verify", outcome="pass", detail={"printed": "1"})
    assert not store.add_gate_result(run_id, cid, "verify", outcome="fail")
    assert store.add_gate_result(run_id, cid, "screen", screen="m1", outcome="pass")
    assert store.add_gate_result(run_id, cid, "screen", screen="m2", outcome="error")
    assert not store.add_gate_result(run_id, cid, "screen", screen="m2", outcome="pass")
    assert store.gate_result(run_id, cid, "verify")["detail"] == {"printed": "1"}
    assert store.gate_result(run_id, cid, "verify")["outcome"] == "pass"
    assert store.gate_result(run_id, cid, "screen", "m2")["outcome"] == "error"
    # A retried gate may replace its earlier result explicitly.
    assert store.add_gate_result(run_id, cid, "screen", screen="m2", outcome="pass", replace=True)
    assert store.gate_result(run_id, cid, "screen", "m2")["outcome"] == "pass"
    assert len(store.gate_results(run_id=run_id)) == 3
    assert [r["screen"] for r in store.gate_results(candidate_id=cid, gate="screen")] == [
        "m1",
        "m2",
    ]
    assert store.gate_result(run_id, cid, "solve") is None
    with pytest.raises(BadInput, match="unknown gate outcome"):
        store.add_gate_result(run_id, cid, "solve", outcome="maybe")


def test_model_calls_and_call_keys(store: Store) -> None:
    run_id = store.create_run("gate")
    first = store.add_model_call(_call(cost=0.01), run_id=run_id, role="screen", call_key="k:0")
    again = store.add_model_call(_call(cost=0.02), run_id=run_id, role="screen", call_key="k:0")
    assert again == first
    error = store.add_model_call(
        _call(error="timeout", response=None, tools=[{"type": "function"}]), role="solver"
    )
    unkeyed = store.add_model_call(_call(), role="solver")
    assert len({first, error, unkeyed}) == 3
    stored = store.model_call("k:0")
    assert stored["cost"] == 0.01 and stored["input_tokens"] == 10
    assert stored["reasoning_tokens"] == 2 and stored["messages"][0]["content"] == "Q"
    assert stored["response"] == {"text": "A"} and stored["tools"] is None
    assert store.model_call("k:1") is None
    assert [c["error"] for c in store.model_calls(role="solver")] == ["timeout", None]
    assert store.model_calls(role="solver")[0]["tools"] == [{"type": "function"}]
    assert len(store.model_calls(run_id=run_id)) == 1
    assert len(store.model_calls()) == 3


def test_recorder_keys_every_call_of_an_episode(store: Store) -> None:
    run_id = store.create_run("agent-eval")
    record = store.recorder(run_id=run_id, candidate_id="c1", role="agent", call_key="ep:1")
    for _ in range(3):
        record(_call())
    keys = [c["call_key"] for c in store.model_calls(candidate_id="c1")]
    assert keys == ["ep:1", "ep:1#2", "ep:1#3"]
    # A resumed episode re-issuing the same calls adds nothing.
    replay = store.recorder(run_id=run_id, candidate_id="c1", role="agent", call_key="ep:1")
    for _ in range(3):
        replay(_call())
    assert len(store.model_calls(run_id=run_id)) == 3
    unkeyed = store.recorder(role="judge")
    unkeyed(_call())
    unkeyed(_call())
    assert len(store.model_calls(role="judge")) == 2


def test_events(store: Store) -> None:
    run_id = store.create_run("gate")
    store.add_event(run_id, "progress", {"round": 1})
    store.add_event(None, "warning", None)
    assert [(e["kind"], e["data"]) for e in store.events()] == [
        ("progress", {"round": 1}),
        ("warning", {}),
    ]
    assert len(store.events(run_id, "progress")) == 1


def test_candidates_of_a_run_include_the_ones_it_tested(store: Store) -> None:
    gate = store.create_run("gate")
    rescreen = store.create_run("rescreen")
    a, _ = store.add_candidate(_candidate(gate, "Question A?"))
    b, _ = store.add_candidate(_candidate(gate, "Question B?"))
    store.add_gate_result(rescreen, a, "screen", screen="m", outcome="pass")
    assert [c.id for c in store.candidates(gate)] == [a, b]
    assert [c.id for c in store.candidates(rescreen)] == [a]
    assert [c.id for c in store.candidates()] == [a, b]


def _gate_run(store: Store) -> str:
    """A small gate run covering every funnel stage."""
    run_id = store.create_run("gate", domain="fenicsx")
    store.add_attempt(run_id, 0, candidate_id=None, status="generator-failed", reason="format")
    outcomes = [  # verify, screens (m1, m2), solve
        ("fail", [], None),
        ("pass", ["fail"], None),
        ("pass", ["pass", "fail"], None),
        ("pass", ["pass", "pass"], "fail"),
        ("pass", ["pass", "pass"], "pass"),
        ("pass", ["pass", "pass"], "pass"),  # a duplicate of the previous question
    ]
    for rnd, (verify, screens, solve) in enumerate(outcomes, start=1):
        question = "Q5?" if rnd == 6 else f"Q{rnd}?"
        options = {**OPTIONS, "D": str(rnd)}
        cid, _ = store.add_candidate(_candidate(run_id, question, options=options))
        store.add_gate_result(run_id, cid, "verify", outcome=verify, reason=f"v-{verify}")
        for spec, outcome in zip(["m1", "m2"], screens, strict=False):
            store.add_gate_result(run_id, cid, "screen", screen=spec, outcome=outcome)
        if solve:
            store.add_gate_result(run_id, cid, "solve", screen="agent", outcome=solve)
        store.add_attempt(run_id, rnd, candidate_id=cid, status="candidate")
    store.add_model_call(_call(cost=0.5), run_id=run_id, role="screen")
    store.add_model_call(_call(), run_id=run_id, role="screen")
    return run_id


def test_views(store: Store) -> None:
    run_id = _gate_run(store)
    funnel = store.query("SELECT * FROM v_funnel WHERE run_id = ?", (run_id,))
    assert funnel == [
        {
            "run_id": run_id,
            "kind": "gate",
            "domain": "fenicsx",
            "status": "running",
            "attempts": 7,
            "candidates": 6,
            "generated": 6,
            "generator_failed": 1,
            "near_duplicates": 0,
            "verified": 5,
            "invariant": 0,  # gate 1b did not run in this run
            "screen_passed": 3,
            "solved": 2,
            "unsolved": 1,
            "accepted": 2,
            "accepted_unique": 1,
            "duplicates": 1,
            "errors": 0,
        }
    ]
    status = store.query(
        "SELECT status, screen, solved_by_screens FROM v_candidate_status ORDER BY created_at"
    )
    assert [r["status"] for r in status] == [
        "rejected-verify",
        "rejected-screen",
        "rejected-screen",
        "unsolved",
        "accepted",
        "accepted",
    ]
    assert status[2] == {"status": "rejected-screen", "screen": "fail", "solved_by_screens": "m2"}
    rejections = store.query(
        "SELECT stage, outcome, n FROM v_rejections WHERE run_id = ? ORDER BY stage", (run_id,)
    )
    assert rejections == [
        {"stage": "generator", "outcome": "generator-failed", "n": 1},
        {"stage": "screen", "outcome": "fail", "n": 2},
        {"stage": "solve", "outcome": "fail", "n": 1},
        {"stage": "verify", "outcome": "fail", "n": 1},
    ]
    usage = store.query("SELECT * FROM v_model_usage")
    assert usage[0]["calls"] == 2 and usage[0]["cost"] == 0.5 and usage[0]["unpriced_calls"] == 1
    assert usage[0]["input_tokens"] == 20


def test_latest_gate_result_wins_across_runs(store: Store) -> None:
    gate = store.create_run("gate")
    cid, _ = store.add_candidate(_candidate(gate))
    store.add_gate_result(gate, cid, "verify", outcome="pass")
    store.add_gate_result(gate, cid, "screen", screen="m1", outcome="pass")
    store.add_gate_result(gate, cid, "solve", screen="agent", outcome="pass")
    assert store.query("SELECT status FROM v_candidate_status")[0]["status"] == "accepted"
    rescreen = store.create_run("rescreen")
    store.add_gate_result(rescreen, cid, "screen", screen="m1", outcome="fail")
    assert store.query("SELECT status FROM v_candidate_status")[0]["status"] == "rejected-screen"


def test_query_is_plain_read_only_sql(store: Store) -> None:
    run_id = _gate_run(store)
    rows = store.query(
        "SELECT gate, outcome, count(*) AS n FROM gate_results WHERE run_id = :run"
        " GROUP BY gate, outcome ORDER BY gate, outcome",
        {"run": run_id},
    )
    assert {"gate": "verify", "outcome": "pass", "n": 5} in rows
    detail = store.query("SELECT detail, reason FROM gate_results WHERE gate = 'verify' LIMIT 1")
    assert detail == [{"detail": {}, "reason": "v-fail"}]
    with pytest.raises(BadInput, match="bad SQL query"):
        store.query("SELEKT 1")
    with pytest.raises(BadInput, match="readonly"):
        store.query("DELETE FROM runs")
    assert store.get_run(run_id) is not None
    store.add_event(run_id, "still-writable")  # query_only is switched back off


DOCS = Path(__file__).resolve().parents[2] / "docs" / "schema.md"


def test_documented_queries_run_and_every_column_is_documented(store: Store) -> None:
    run_id = _gate_run(store)
    store.add_model_call(_call(error="timeout", response=None), run_id=run_id, role="solver")
    text = DOCS.read_text()
    blocks = re.findall(r"```sql\n(.*?)```", text, flags=re.DOTALL)
    assert len(blocks) >= 6
    results = [store.query(sql) for sql in blocks]
    assert all(results), "every example returns rows on a populated database"
    assert results[0] == [
        {
            "attempts": 7,
            "candidates": 6,
            "verified": 5,
            "screen_passed": 3,
            "accepted": 2,
            "accepted_unique": 1,
        }
    ]
    for kind in ("table", "view"):
        for row in store.query("SELECT name FROM sqlite_master WHERE type = ?", (kind,)):
            assert f"`{row['name']}`" in text
            for column in store.query(f"PRAGMA table_info({row['name']})"):
                assert column["name"] in text, (row["name"], column["name"])
