"""Issue 22 items 3-5: every acceptance check of a built item rejects what it exists to
reject (margins, constraint necessity, vacuous constraints, a deciding objective, tool
necessity, distractor type), and an accepted item carries its checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scigate.bench import BuildConfig, build, read_tasks
from scigate.bench._catalog import given_for
from scigate.bench._compose import (
    CHECKS,
    CheckFailed,
    Draft,
    distractor_checks,
    nice_between,
    rule_checks,
    tool_checks,
)
from scigate.bench._entities import load_entities
from scigate.cli._bench import app
from scigate.tools import make_plan

runner = CliRunner()
# four candidates, two outputs: a (the objective) and b
VALUES = {"a": [1.0, 2.0, 3.0, 4.0], "b": [10.0, 20.0, 30.0, 40.0]}


def test_a_threshold_at_a_hundredth_of_a_percent_is_rejected() -> None:
    values = {"a": [1.0, 2.0, 3.0, 4.0], "b": [11.0, 20.0, 30.0, 11.0011]}
    rule = {
        "op": "max",
        "output": "a",
        "constraints": [{"output": "b", "cmp": "<", "value": 11.0001}],
    }
    with pytest.raises(CheckFailed, match=r"^margin: "):
        rule_checks(values, rule, 0.02)
    # thresholds are placed in the middle of the gap, never the first round number above
    assert nice_between(11.0, 11.0011, set(), margin=0.02) is None
    x = nice_between(10.0, 14.0, set(), margin=0.02)
    assert x is not None and abs(x - 12.0) / 12.0 < 0.1


def test_a_droppable_constraint_is_rejected() -> None:
    # b < 35 excludes candidate 4, which the min of a never selects
    rule = {"op": "min", "output": "a", "constraints": [{"output": "b", "cmp": "<", "value": 35}]}
    with pytest.raises(CheckFailed, match=r"^constraint needed: "):
        rule_checks(VALUES, rule, 0.02)  # the min of a is candidate 1 with or without it


def test_a_vacuous_constraint_is_rejected() -> None:
    rule = {"op": "max", "output": "a", "constraints": [{"output": "b", "cmp": "<", "value": 50}]}
    with pytest.raises(CheckFailed, match=r"^vacuous constraint: "):
        rule_checks(VALUES, rule, 0.02)


def test_an_objective_that_decides_nothing_is_rejected() -> None:
    values = {"a": [1.0, 2.0, 3.0, 4.0], "b": [10.0, 20.0, 30.0, 40.0], "c": [4.0, 3.0, 2.0, 1.0]}
    # b > 25 leaves 3 and 4, c > 1.5 leaves 1, 2, 3: only candidate 3 meets both
    rule = {
        "op": "max",
        "output": "a",
        "constraints": [
            {"output": "b", "cmp": ">", "value": 25},
            {"output": "c", "cmp": ">", "value": 1.5},
        ],
    }
    with pytest.raises(CheckFailed, match=r"^objective: .*decides nothing"):
        rule_checks(values, rule, 0.02)
    good = {"op": "max", "output": "a", "constraints": [{"output": "b", "cmp": "<", "value": 35}]}
    assert set(rule_checks(VALUES, good, 0.02)) == set(CHECKS[:4])


def test_a_tool_free_task_at_level_4_is_rejected() -> None:
    path = ["TranscribeDNAtoRNA", "GetReverseComplement"]
    plan = make_plan(path, entity_type="DNA sequence", given=given_for(path))
    outputs = [plan.steps[i - 1].tool for i in plan.outputs]
    with pytest.raises(CheckFailed, match=r"^tool needed: no scientific tool needed"):
        tool_checks(4, plan, outputs)
    assert "tool needed" in tool_checks(1, plan, outputs)  # level 1: allowed, labelled
    science = ["TranscribeDNAtoRNA", "CalculateRNAMolecularWeight", "GetReverseComplement"]
    plan = make_plan(science, entity_type="DNA sequence", given=given_for(science))
    outputs = [plan.steps[i - 1].tool for i in plan.outputs]
    tool_checks(4, plan, outputs)
    with pytest.raises(CheckFailed, match=r"^tool needed: the answer does not use"):
        tool_checks(4, plan, outputs[:1])


def test_a_distractor_of_another_type_is_rejected() -> None:
    e = load_entities()["formula"][0]
    draft = Draft(
        level=1,
        domain="materials",
        kind="formula",
        path=["GetAverageElectronegativity"],
        entities=[e],
        core="2.345",
        outputs=["GetAverageElectronegativity"],
        runs=[],
        precision="3 significant figures",
        distractors=[
            {"value": "2.9", "how": "same path on X", "type": "average electronegativity"},
            {"value": "3", "how": "path CountElementsInFormula", "type": "count"},
        ],
    )
    with pytest.raises(CheckFailed, match=r"^distractor type: '3'"):
        distractor_checks(draft)
    near = {"value": "2.3449", "how": "same path on Y", "type": "average electronegativity"}
    draft.distractors = [*draft.distractors[:1], near]
    with pytest.raises(CheckFailed, match=r"equals the answer to 3 significant figures"):
        distractor_checks(draft)
    draft.distractors = draft.distractors[:1]
    assert distractor_checks(draft)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("checks")
    out, db = root / "bench.jsonl", root / "runs.db"
    config = BuildConfig(n=8, levels=[1, 2], seed=4)
    report = build(config, db, out)
    assert report.accepted == 8
    return out, db


def test_an_accepted_item_carries_its_checks(built) -> None:
    out, db = built
    from scigate.store import Store

    for t in read_tasks(out):
        assert set(CHECKS) | {"rules", "verify"} <= set(t["checks"]), t["checks"]
        if t["level"] == 1 and t["format"] == "question & answer" and t.get("precision"):
            assert "three significant figures" in t["question"]
    with Store(db) as store:
        accepted = [a for a in store.attempts(store.latest_run("bench-build")["id"])
                    if a["status"] == "accepted"]  # fmt: skip
    assert all(set(CHECKS) <= set(a["detail"]["checks"]) for a in accepted)


def test_bench_report_prints_rejections_per_check(built) -> None:
    _, db = built
    funnel = json.loads(runner.invoke(app, ["report", "--db", str(db), "--json"]).stdout)
    assert set(CHECKS) <= set(funnel["checks"])
    assert all(funnel["checks"][c]["passed"] >= 8 for c in CHECKS)
    rejected = sum(v["rejected"] for v in funnel["checks"].values())
    assert rejected == funnel["attempts"] - funnel["accepted"]
    text = runner.invoke(app, ["report", "--db", str(db)]).stdout
    failed = [c for c in CHECKS if funnel["checks"][c]["rejected"]]
    for c in failed:  # a compose rejection is shown under the check that failed
        assert f"{c} " in text, text
