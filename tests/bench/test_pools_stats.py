"""Issue 22 item 6: entity pools for a 900-task build from licensed sources, each with its
license; Table A5 statistics of a build beside the paper's; `bench derive` counts the
reasons of underived tasks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scigate.bench._catalog import has_orf
from scigate.bench._entities import load_entities, load_pools
from scigate.bench._stats import PAPER_A5, a5_lines, table_a5, task_shape
from scigate.cli._bench import app
from scigate.tools import get_tool

runner = CliRunner()
# at least this many distinct entities per kind: a 900-task build draws ~300 tasks per
# domain, each level-2-4 task from a pool of 20 (see _compose.POOL)
MINIMUM = {
    "molecule-name": 100,
    "molecule-smiles": 300,
    "protein": 80,
    "dna": 80,
    "crystal": 100,
    "formula": 200,
}


def test_pools_are_large_distinct_and_licensed() -> None:
    entities = load_entities()
    for kind, least in MINIMUM.items():
        values = [e.value for e in entities[kind]]
        assert len(values) >= least, kind
        assert len(set(values)) == len(values), kind
    pools = load_pools()
    assert set(pools) == {"molecules", "proteins", "dna", "crystals", "formulas"}
    for name, pool in pools.items():
        assert pool["license"].strip() and pool["source"].strip(), name
        assert pool["items"], name


@pytest.mark.parametrize(
    ("kind", "tool"),
    [
        ("crystal", "GetCrystalSystemFromCIF"),
        ("formula", "GetMolarMassFromFormula"),
        ("molecule-smiles", "SMILESToWeight"),
        ("protein", "ProteinIsoelectricPointCalculator"),
        ("dna", "CalculateSingleLinearDNAMolecularWeight"),
    ],
)
def test_every_pool_entity_runs_through_a_tool_of_its_type(kind: str, tool: str) -> None:
    t = get_tool(tool)
    param = t.required_parameters[0]
    bad = [e.name for e in load_entities()[kind] if not t.call({param: e.value}).ok]
    assert not bad, bad[:5]


def test_written_coding_sequences_are_real_orfs_of_their_peptide() -> None:
    peptides = {p["name"]: p["sequence"] for p in load_pools()["proteins"]["items"]}
    translate = get_tool("TranslateDNAtoAminoAcidSequence")
    orfs = [d for d in load_pools()["dna"]["items"] if d["name"].startswith("coding sequence")]
    assert len(orfs) >= 60
    for d in orfs:
        name = d["name"].removeprefix("coding sequence of ").removesuffix(" (ATG ... TAA)")
        assert has_orf(d["sequence"]), name
        got = translate.call({"dna": d["sequence"], "frame": 1, "to_stop": True}).value
        want = peptides[name] if peptides[name].startswith("M") else "M" + peptides[name]
        assert got == want, name


def _task(level: int, path: list[str], params: list[str], constraints: int, edges) -> dict:
    rule = None
    if constraints:
        rule = {
            "op": "max",
            "output": path[-1],
            "constraints": [{"output": path[0], "cmp": "<", "value": 1}] * constraints,
        }
    return {
        "level": level,
        "tool_path": path,
        "Parameter": params[0] if level == 1 else params,
        "plan": {"rule": rule, "edges": edges, "outputs": [path[-1]]},
    }


def test_table_a5_figures_of_a_small_set() -> None:
    chain = [["entity", "step 1"], ["step 1", "step 2"], ["step 2", "step 3"]]
    fan = [["entity", "step 1"], ["step 1", "step 2"], ["step 1", "step 3"]]
    tasks = [
        _task(1, ["SMILESToWeight"], ["CCO"], 0, [["entity", "step 1"]]),
        _task(1, ["SMILESToWeight"], ["CCC"], 0, [["entity", "step 1"]]),
        _task(3, ["A", "B", "C"], ["x", "y", "z", "w"], 2, chain),
        _task(3, ["A", "B", "D"], ["x", "y", "z", "v"], 1, fan),
    ]
    table = table_a5(tasks)
    one, three = table["1"]["built"], table["3"]["built"]
    assert one == {
        "tasks": 2,
        "path_mean": 1,
        "path_max": 1,
        "parameters": 1,
        "constraints": 0,
        "attributes": 1,
        "depth": 1,
        "reuse": 1,  # the same path twice
        "distinct_paths": 1,
        "distinct_entities": 2,
    }
    assert three["depth"] == 2.5  # a chain of 3, a fan-out of depth 2
    assert three["constraints"] == 1.5 and three["parameters"] == 4 and three["reuse"] == 0
    assert three["attributes"] == 2  # the objective and one constrained output
    assert table["3"]["paper"] == PAPER_A5[3]
    assert PAPER_A5[4]["path_mean"] == 5.21 and PAPER_A5[2]["constraints"] == 1.84
    lines = a5_lines(table)
    assert lines[2].startswith("| L1 | 2 (262) | 1 (1.57) | 1 (2) |")
    assert task_shape(tasks[2])["entities"] == ["x", "y", "z", "w"]


def test_derive_prints_counted_reasons(tmp_path: Path) -> None:
    rows = [
        {"question": "q1", "tool_path": ["GetFASTAFromName"], "Parameter": "insulin"},
        {"question": "q2", "tool_path": ["GetFASTAFromName"], "Parameter": "glucagon"},
        {"question": "q3"},
        {"question": "q4", "tool_path": ["SMILESToWeight"], "Parameter": "CCO", "level": 1},
    ]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ["derive", str(src), "--out", str(tmp_path / "out.jsonl"), "--workers", "1"]
    text = runner.invoke(app, args).stdout
    assert "not derived, by reason (3 tasks):" in text
    assert "     2  GetFASTAFromName needs the network" in text
    assert "     1  no tool_path" in text
    data = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    assert data["reason_counts"] == {"GetFASTAFromName needs the network": 2, "no tool_path": 1}


def test_a_kind_that_made_a_task_is_not_given_up_after_a_short_run_of_failures() -> None:
    from scigate.bench._attempt import AttemptOutcome, AttemptPlan
    from scigate.bench._build import GIVE_UP_AFTER, GIVE_UP_AFTER_PRODUCTIVE, BuildConfig, _Funnel

    funnel = _Funnel(BuildConfig(n=100, levels=[4], domains=["chemistry"]))
    state = funnel.rng.getstate()

    def settle(kind: str, passed: bool) -> None:
        plan = AttemptPlan(
            attempt=funnel.attempts + 1,
            level=4,
            format="multiple choice",
            domain="chemistry",
            kind=kind,
            rng_state=state,
        )
        funnel.pending[(4, "multiple choice")] += 1
        funnel.pending_domain["chemistry"] += 1
        task = {"question": f"q{funnel.attempts}", "id": str(funnel.attempts)}
        out = AttemptOutcome(
            attempt=plan.attempt,
            stage="verify" if passed else "compose",
            status="passed" if passed else "rejected",
            task=task if passed else None,
            rng_state=state,
        )
        funnel.apply(plan, out)

    settle("molecule-smiles", True)
    for _ in range(GIVE_UP_AFTER):
        settle("molecule-smiles", False)
        settle("molecule-name", False)
    assert funnel.limit("chemistry", 4, "molecule-name") == GIVE_UP_AFTER
    assert funnel.limit("chemistry", 4, "molecule-smiles") == GIVE_UP_AFTER_PRODUCTIVE
    planned = {funnel.plan(funnel.attempts + 1, 0).kind for _ in range(20)}
    assert planned == {"molecule-smiles"}  # molecule-name is given up, smiles is not
