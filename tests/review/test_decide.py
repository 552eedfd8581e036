"""Decisions from reviews, the review summary, and machine verdicts left untouched."""

from __future__ import annotations

from pathlib import Path

import pytest

from scigate.errors import BadInput
from scigate.review import (
    OPENSCITOOLBENCH,
    TOOLGATE,
    decide,
    get_protocol,
    review_summary,
    summary_lines,
)
from scigate.store import Store

from .conftest import vote

ALL_YES = dict.fromkeys(TOOLGATE.criterion_keys(), "yes")


def test_decision_rule() -> None:
    p = TOOLGATE
    assert decide(p, {}) == "unreviewed"
    assert decide(p, {"a": ALL_YES, "b": ALL_YES}) == "pending"  # two of three
    assert decide(p, {"a": ALL_YES, "b": ALL_YES, "c": ALL_YES}) == "approved"
    # one reviewer unsure on one criterion: still a majority of yes
    assert decide(p, {"a": ALL_YES, "b": ALL_YES, "c": ALL_YES | {"distractors": "unsure"}}) == (
        "approved"
    )
    # two of three not yes on a criterion: rejected
    split = ALL_YES | {"needs_software": "no"}
    assert decide(p, {"a": ALL_YES, "b": split, "c": ALL_YES | {"needs_software": "unsure"}}) == (
        "rejected"
    )
    # any "no" on correctness sends back at once, even from the only reviewer
    assert decide(p, {"a": {"correct": "no"}}) == "sent-back"
    assert decide(p, {"a": ALL_YES, "b": ALL_YES, "c": ALL_YES | {"correct": "no"}}) == "sent-back"
    # an incomplete ballot does not count towards the three
    assert decide(p, {"a": ALL_YES, "b": ALL_YES, "c": {"correct": "yes"}}) == "pending"
    # OpenSciToolBench: correctness is answerability
    o = OPENSCITOOLBENCH
    assert decide(o, {"a": {"answerability": "no"}}) == "sent-back"
    assert decide(o, {"a": {"semantic_clarity": "no"}}) == "pending"


def test_protocol_names() -> None:
    assert get_protocol("opensci") is OPENSCITOOLBENCH
    assert get_protocol(" ToolGate ") is TOOLGATE
    with pytest.raises(BadInput, match="unknown review protocol 'x'"):
        get_protocol("x")


def test_summary_counts_and_machine_verdicts_unchanged(gate_db: tuple[Path, list[str]]) -> None:
    path, ids = gate_db
    with Store(path) as store:
        before = store.query("SELECT * FROM v_candidate_status")
        gates_before = store.query("SELECT * FROM gate_results ORDER BY id")
        for name in ("Ada", "Bo", "Cy"):
            vote(store, ids[4], name, "yes")  # approved
        vote(store, ids[8], "Ada", "yes")
        vote(store, ids[8], "Bo", ALL_YES | {"well_posed": "no"})
        vote(store, ids[8], "Cy", ALL_YES | {"well_posed": "unsure"})  # rejected
        vote(store, ids[10], "Ada", {"correct": "no"})  # sent back
        s = review_summary(store, [ids[4], ids[8], ids[10], ids[7]], TOOLGATE)
        assert store.query("SELECT * FROM v_candidate_status") == before
        assert store.query("SELECT * FROM gate_results ORDER BY id") == gates_before
    assert s["items"] == 4 and s["reviewed"] == 3 and s["reviews"] == 25
    assert s["decisions"] == {
        "approved": 1,
        "rejected": 1,
        "sent-back": 1,
        "pending": 0,
        "unreviewed": 1,
    }
    assert s["per_criterion"]["correct"] == {"yes": 6, "no": 1, "unsure": 0}
    assert s["per_criterion"]["well_posed"] == {"yes": 4, "no": 1, "unsure": 1}
    assert s["reviewers"] == ["Ada", "Bo", "Cy"]
    # 8 subjects with 3 ratings (2 items x 4 criteria) and one with a single rating
    # (dropped): 7 unanimous yes, one split yes/no/unsure. Worked by hand:
    # p_yes = 22/24, p_no = p_unsure = 1/24, P_e = (484 + 1 + 1)/576, P-bar = 7/8.
    p_e = 486 / 576
    assert s["fleiss_kappa"] == pytest.approx(round((7 / 8 - p_e) / (1 - p_e), 4))
    assert s["agreement_with_majority"]["Ada"] == {"subjects": 7, "agree": 7, "rate": 1.0}
    assert s["agreement_with_majority"]["Bo"] == {"subjects": 7, "agree": 7, "rate": 1.0}
    lines = summary_lines(s)
    assert "approved 1, rejected 1, sent-back 1, pending 0, unreviewed 1" in lines[1]


def test_rule_set_in_the_database_decides_everywhere(gate_db: tuple[Path, list[str]]) -> None:
    from _cli import run_main
    from scigate.review import default_protocol

    path, ids = gate_db
    with Store(path) as store:
        vote(store, ids[4], "Ada", "yes")
        assert default_protocol(store).reviewers == 3
    code, stdout, stderr = run_main(
        "review", "rule", "--db", str(path), "--protocol", "toolgate", "--reviewers", "1"
    )
    assert code == 0, stderr
    assert stdout.startswith("toolgate: majority of 1 reviewers")
    with Store(path) as store:
        protocol = default_protocol(store)
        assert protocol.reviewers == 1
        assert review_summary(store, [ids[4]], protocol)["decisions"]["approved"] == 1
    code, _, stderr = run_main(
        "review", "rule", "--db", str(path), "--protocol", "toolgate", "--reviewers", "0"
    )
    assert code == 2 and "--reviewers must be between 1 and 100" in stderr
