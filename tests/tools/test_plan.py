"""Typed plans: fan-out, linear steps, mismatch messages, entity checks, the CLI verb."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from scigate.cli._tools import app
from scigate.errors import BadInput
from scigate.tools import Tool, get_tool, make_plan, run_chain, run_plan, tool

runner = CliRunner()


def _counting_tools() -> tuple[dict[str, Tool], list[str]]:
    """Three toy tools (no RDKit) that record every call they get."""
    registry: dict[str, Tool] = {}
    calls: list[str] = []

    @tool(name="ToSmiles", functionality="name to SMILES", inputs=["molecule name"],
          outputs=["SMILES"], category="general", source="test", registry=registry)  # fmt: skip
    def to_smiles(name: str) -> str:
        calls.append(f"ToSmiles({name})")
        return {"ethanol": "CCO", "methanol": "CO"}[name]

    @tool(name="Formula", functionality="formula", inputs=["SMILES"],
          outputs=["Molecule Formula"], category="general", source="test", registry=registry)  # fmt: skip
    def formula(smiles: str) -> str:
        calls.append(f"Formula({smiles})")
        return {"CCO": "C2H6O", "CO": "CH4O"}[smiles]

    @tool(name="Length", functionality="SMILES length", inputs=["SMILES"],
          outputs=["number"], category="general", source="test", registry=registry)  # fmt: skip
    def length(smiles: str) -> int:
        calls.append(f"Length({smiles})")
        return len(smiles)

    return registry, calls


def test_fan_out_one_molecule_into_several_descriptors() -> None:
    path = ["GetMolFormula", "GetHeavyAtomsNum", "GetKappa1"]
    plan = make_plan(path)
    assert plan.entity_type == "SMILES"
    assert plan.edges() == [("entity", "step 1"), ("entity", "step 2"), ("entity", "step 3")]
    assert plan.outputs == [1, 2, 3]
    run = run_plan(plan, "CC(=O)Oc1ccccc1C(=O)O")
    assert run.ok, run.error
    expected = {n: get_tool(n).call_single("CC(=O)Oc1ccccc1C(=O)O").value for n in path}
    assert run.values == expected
    assert run.values["GetMolFormula"] == "C9H8O4" and run.values["GetHeavyAtomsNum"] == 13
    assert run.answer().startswith("C9H8O4; 13; ")


def test_linear_name_to_smiles_to_formula_to_mass() -> None:
    plan = make_plan(["NameToSMILES", "GetMolFormula", "GetMolarMassFromFormula"])
    assert plan.entity_type == "molecule name"
    assert plan.edges() == [("entity", "step 1"), ("step 1", "step 2"), ("step 2", "step 3")]
    assert plan.outputs == [3]
    run = run_plan(plan, "ethanol")
    assert run.ok, run.error
    assert [s.arguments for s in run.steps] == [
        {"name": "ethanol"},
        {"smiles": "CCO"},
        {"formula": "C2H6O"},
    ]
    assert run.value == pytest.approx(46.069, abs=1e-2)


def test_fan_out_from_a_step_not_from_the_previous_one() -> None:
    """The chain pipes the formula into a SMILES argument and fails; the plan binds by type."""
    path = ["NameToSMILES", "GetMolFormula", "GetHeavyAtomsNum"]
    chained = run_chain(path, "ethanol")
    assert not chained.ok and "invalid SMILES 'C2H6O'" in chained.error
    plan = make_plan(path)
    assert plan.edges()[-1] == ("step 1", "step 3")
    run = run_plan(plan, "ethanol")
    assert run.ok, run.error
    assert run.values == {"GetMolFormula": "C2H6O", "GetHeavyAtomsNum": 3}
    assert run.answer() == "C2H6O; 3"


def test_mismatch_names_the_step_and_the_types_before_anything_runs() -> None:
    registry, calls = _counting_tools()
    with pytest.raises(BadInput) as err:
        make_plan(["Formula", "Length", "ToSmiles"], tools=registry)
    message = str(err.value)
    assert "step 3 (ToSmiles)" in message
    assert "molecule name" in message and "entity is SMILES" in message
    assert "step 1 Formula -> Molecule Formula" in message
    assert calls == []


def test_entity_of_the_wrong_type_is_named_at_its_step() -> None:
    run = run_plan(make_plan(["GetMolFormula", "GetHeavyAtomsNum"]), "C2H6O")
    assert not run.ok and run.failed_step == 1 and run.steps == []
    assert run.error.startswith("step 1 (GetMolFormula) takes the entity as SMILES")
    assert "'C2H6O' is not one" in run.error


def test_a_failing_step_stops_the_plan() -> None:
    registry, calls = _counting_tools()
    plan = make_plan(["ToSmiles", "Formula", "Length"], tools=registry)
    run = run_plan(plan, "propanol", tools=registry)
    assert not run.ok and run.failed_step == 1 and run.answer() is None
    assert "step 1 (ToSmiles)" in run.error and calls == ["ToSmiles(propanol)"]


def test_cache_shares_identical_calls_and_off_runs_everything() -> None:
    registry, calls = _counting_tools()
    plan = make_plan(["ToSmiles", "Formula", "Length"], tools=registry)
    cache: dict = {}
    first = run_plan(plan, "ethanol", tools=registry, cache=cache)
    second = run_plan(plan, "ethanol", tools=registry, cache=cache)
    assert first.values == second.values == {"Formula": "C2H6O", "Length": 3}
    assert len(calls) == 3
    run_plan(plan, "ethanol", tools=registry)
    assert len(calls) == 6


def test_given_constants_fill_untyped_extra_arguments() -> None:
    plan = make_plan(
        ["NameToSMILES", "CountSMARTSMatches"],
        given={"CountSMARTSMatches": {"smarts": "[OX2H]"}},
    )
    run = run_plan(plan, "glycerol")
    assert run.ok, run.error
    assert run.value == 3
    with pytest.raises(BadInput, match=r"step 2 \(CountSMARTSMatches\) needs 'smarts'"):
        make_plan(["NameToSMILES", "CountSMARTSMatches"])


def test_aliases_resolve_to_library_tools() -> None:
    plan = make_plan(["SMILESToWeight", "GetKappa1"])
    assert plan.steps[0].requested == "SMILESToWeight" and plan.steps[0].tool != ""
    assert run_plan(plan, "CCO").ok


def test_cli_plan_shows_the_dag_and_exit_codes() -> None:
    ok = runner.invoke(
        app, ["plan", "NameToSMILES,GetMolFormula,GetHeavyAtomsNum", "--input", "aspirin"]
    )
    assert ok.exit_code == 0, ok.output
    assert "GetHeavyAtomsNum(smiles (SMILES) <- step 1)" in ok.stdout
    assert "answer: C9H8O4; 13" in ok.stdout
    as_json = runner.invoke(
        app, ["plan", "GetMolFormula,GetHeavyAtomsNum", "--input", "CCO", "--json"]
    )
    data = json.loads(as_json.stdout)
    assert as_json.exit_code == 0 and data["answer"] == "C2H6O; 3"
    assert data["steps"][1]["bindings"] == {"smiles": "entity"}
    failed = runner.invoke(app, ["plan", "GetMolFormula,GetHeavyAtomsNum", "--input", "C2H6O"])
    assert failed.exit_code == 1 and "not one: invalid SMILES" in failed.stderr
    bad = runner.invoke(app, ["plan", "GetMolarMassFromFormula,GetKappa1", "--input", "C2H6O"])
    assert bad.exit_code == 2 and "step 2 (GetKappa1)" in bad.stderr
    assert "Traceback" not in bad.output
    bad_args = runner.invoke(app, ["plan", "GetKappa1", "--input", "CCO", "--args", '{"a": 1}'])
    assert bad_args.exit_code == 2 and "--args maps tool names" in bad_args.stderr
