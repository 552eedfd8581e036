"""`EvalRow`: the typed record of one evaluated task (issue 24)."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from scigate.agents import EvalRow, summarize_rows

ROW = {
    "run": 0,
    "index": 2,
    "line": 3,
    "level": 1,
    "domain": "chemistry",
    "question": "q",
    "predicted_chain": ["A", "B"],
    "executed_chain": ["A"],
    "reference_chain": ["A", "B"],
    "tool_exact": 1.0,
    "tool_set_f1": 1.0,
    "tool_lcs": 1.0,
    "answer": "42",
    "reference_answer": "42",
    "status": "correct",
    "answer_correct": 1.0,
    "judged_by": "rules",
    "verdict": {"outcome": "correct", "by": "rules", "kind": "number", "reason": "equal"},
    "judge_reply": None,
    "learned": None,
    "route": "simple",
    "executed_ok": True,
    "error": None,
    "calls": 3,
    "unpriced_calls": 1,
    "input_tokens": 10,
    "output_tokens": 5,
    "latency": 0.5,
    "cost": 0.01,
    "estimated_tokens": False,
    "wall_seconds": 1.0,
    "model_free_seconds": 0.5,
    "reranker_calls": 1,
    "reranker_input_tokens": 2,
    "reranker_output_tokens": 1,
}


def test_a_row_round_trips_through_rows_jsonl_key_for_key_in_order() -> None:
    row = EvalRow.of(ROW)
    assert row.status == "correct" and row.predicted_chain == ["A", "B"]
    assert list(row.record()) == list(ROW)
    assert EvalRow.of(json.loads(json.dumps(row.record()))).record() == ROW
    assert row["status"] == "correct" and row.get("nope", 7) == 7


def test_an_old_row_keeps_only_what_it_held_and_reads_as_the_harness_always_did() -> None:
    old = {
        "run": 1,
        "index": 0,
        "reference_answer": None,  # before statuses: no reference answer
        "reference_chain": [],
        "tool_exact": 0.0,  # before n/a: an empty path scored
        "calls": 4,
        "input_tokens": 1,
        "output_tokens": 1,
        "latency": 0.0,
        "wall_seconds": 0.0,
        "estimated_tokens": False,
        "cost": None,
        "harness_note": "kept",  # a key this harness does not know
    }
    row = EvalRow.of(old)
    assert row.record() == old
    assert row.answer_status == "no-reference"
    assert row.tool_value("tool_exact") is None
    assert row.unpriced == 4  # no cost and no unpriced count: every call unpriced
    assert EvalRow.of({**old, "reference_answer": "x", "answer_correct": 1.0}).answer_status == (
        "correct"
    )


def test_a_row_missing_its_keys_or_with_bad_types_is_refused() -> None:
    with pytest.raises(ValidationError):
        EvalRow.of({"index": 0})
    with pytest.raises(ValidationError):
        EvalRow.of({**ROW, "calls": "many"})


def test_summaries_of_rows_and_of_their_json_agree() -> None:
    rows = [EvalRow.of({**ROW, "run": r, "index": i}) for r in range(2) for i in range(3)]
    assert summarize_rows(rows, runs=2) == summarize_rows([r.record() for r in rows], runs=2)
    assert summarize_rows(rows, runs=2)["cost"]["reranker_calls"] == 1.0
