"""The gate's named reads of the run database (`store/_gate_reads.py`), on a hand-made
database whose answers are worked out below."""

from __future__ import annotations

from pathlib import Path

import pytest

from scigate.llm import ModelCallRecord, Usage
from scigate.store import CandidateRecord, Store


def _cand(question: str, run_id: str) -> CandidateRecord:
    return CandidateRecord(
        run_id=run_id,
        question=question,
        options={"A": "1", "B": "2", "C": "3", "D": "4"},
        answer="B",
    )


@pytest.fixture
def db(tmp_path: Path):
    """Run g (kind gate) and its rescreen r over four candidates:

    - a: verified; screen S fails it in g (a screen answered it), passes it later in r;
    - b: verified; gate 1b fails it in g;
    - c: not verified;
    - d: verified; gate 1b and screen S pass it in g.
    """
    store = Store(tmp_path / "r.db")
    g = store.create_run("gate", config={})
    r = store.create_run("rescreen", config={})
    ids = {}
    for name in "abcd":
        ids[name], _ = store.add_candidate(_cand(f"question {name} about meshes", g))
        store.add_event(g, "generated", {"candidate_id": ids[name]})
    a, b, c, d = (ids[n] for n in "abcd")
    for cid in (a, b, d):
        store.add_gate_result(g, cid, "verify", outcome="pass", detail={"printed": "2"})
    store.add_gate_result(g, c, "verify", outcome="fail", reason="wrong value")
    store.add_gate_result(g, b, "invariance", outcome="fail")
    store.add_gate_result(g, d, "invariance", outcome="pass")
    store.add_gate_result(g, a, "screen", screen="S", outcome="fail")
    store.add_gate_result(g, d, "screen", screen="S", outcome="pass")
    store.add_gate_result(r, a, "screen", screen="S", outcome="pass")
    call = ModelCallRecord(spec="S", settings={"temperature": 0.5}, usage=Usage(input_tokens=3))
    for _ in range(2):
        store.add_model_call(call, run_id=g, candidate_id=a, role="screen")
    store.add_model_call(call, run_id=r, role="judge")
    yield store, g, r, ids
    store.close()


def test_verification_invariance_and_screens(db) -> None:
    store, _, r, ids = db
    a, b, _, d = (ids[n] for n in "abcd")
    assert store.verified_candidate_ids() == {a, b, d}
    assert store.latest_not_passed_ids("invariance") == {b}
    assert store.screened_out_ids() == set()  # a's latest S result (in r) is a pass
    assert store.screened_out_ids(excluding_run=r) == {a}
    # survivors of generation runs only: a failed S in g, b failed gate 1b, c unverified
    (survivor,) = store.survivor_questions()
    assert survivor["id"] == d and survivor["question"] == "question d about meshes"
    assert '"B": "2"' in survivor["options_json"]  # the raw JSON, not decoded


def test_generated_candidates_and_gate_results(db) -> None:
    store, g, r, ids = db
    generated = {row["id"]: row for row in store.generated_candidates(g)}
    assert set(generated) == set(ids.values()) and store.generated_candidates(r) == []
    assert generated[ids["a"]]["options"]["B"] == "2"  # decoded
    results = store.all_gate_results()
    assert len(results) == 9 and [x["id"] for x in results] == sorted(x["id"] for x in results)
    assert results[0]["detail"] == {"printed": "2"}


def test_model_usage_by_candidate_and_by_run(db) -> None:
    store, g, r, ids = db
    (usage,) = store.candidate_model_usage()
    assert (usage["candidate_id"], usage["run_id"], usage["role"]) == (ids["a"], g, "screen")
    assert usage["calls"] == 2 and usage["input_tokens"] == 6
    assert store.model_call_settings([usage["first_id"]]) == {
        usage["first_id"]: {"temperature": 0.5}
    }
    assert store.model_call_settings([]) == {}
    by_run = [(m["run_id"], m["role"], m["calls"]) for m in store.models_by_run()]
    assert by_run == [(g, "screen", 2), (r, "judge", 1)]
