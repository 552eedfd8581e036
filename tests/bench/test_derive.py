"""`bench derive` / `bench verify` on a small SciToolEval-format fixture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scigate.bench import _derive, execute_task, read_tasks, run_tasks, same_answer, write_tasks
from scigate.bench._answer import Underivable
from scigate.cli._bench import app
from scigate.tools import format_value, get_tool

runner = CliRunner()
ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"


def _value(tool: str, smiles: str) -> str:
    return format_value(get_tool(tool).call_single(smiles).value)


FIXTURE = [
    # 1: level 1, right answer (rounded as SciToolEval does)
    {"question": "Molecular weight of CCO?", "tool_path": ["SMILESToWeight"], "Parameter": "CCO",
     "answer": "46.07", "level": 1},
    # 2: the reference answer holds ethanol's Chi0v/Chi1v whatever the molecule
    {"question": "Chi0v and Chi1v of aspirin?", "tool_path": ["GetChi0v", "GetChi1v"],
     "Parameter": ASPIRIN, "answer": "2.1543; 1.0233", "level": 1},
    # 3: level 2 without an answer, fan-out from the SMILES of step 1
    {"question": "Formula and heavy atoms of aspirin?",
     "Standard_Toolpath": ["NameToSMILES", "GetMolFormula", "GetHeavyAtomsNum"],
     "Parameter": "aspirin", "level": 2},
    # 4: several substances and no rule
    {"question": "Which has more heavy atoms?", "tool_path": ["NameToSMILES", "GetHeavyAtomsNum"],
     "Parameter": ["methane", "ethane"]},
    # 5: a web tool
    {"question": "FASTA of insulin?", "tool_path": ["GetFASTAFromName"], "Parameter": "insulin"},
    # 6: no path at all
    {"question": "What is life?"},
    # 7: types that do not connect
    {"question": "Formula into SMILES", "tool_path": ["GetMolarMassFromFormula", "GetKappa1"],
     "Parameter": "C2H6O"},
]  # fmt: skip


@pytest.fixture
def fixture_file(tmp_path: Path) -> Path:
    path = tmp_path / "scitooleval.jsonl"
    path.write_text("".join(json.dumps(t) + "\n" for t in FIXTURE))
    return path


def test_derive_adds_executed_answers_and_reasons(fixture_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "derived.jsonl"
    result = runner.invoke(
        app, ["derive", str(fixture_file), "--out", str(out), "--workers", "1", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["total"] == 7 and report["derived"] == 3
    reasons = {r["task"]: r["reason"] for r in report["not_derived"]}
    assert "2 parameters and no rule" in reasons[4]
    assert reasons[5] == "GetFASTAFromName needs the network"
    assert reasons[6] == "no tool_path"
    assert "step 2 (GetKappa1) needs 'smiles' of type SMILES" in reasons[7]
    assert report["source_answer_differs"] == [2]
    rows = read_tasks(out)
    assert len(rows) == 7 and rows[3] == FIXTURE[3]  # underived tasks are kept unchanged
    assert rows[0]["answer"] == _value("SMILESToWeight", "CCO")
    assert "source_answer" not in rows[0]  # 46.07 agrees with 46.069 at SciToolEval's rounding
    assert rows[1]["answer"] == f"{_value('GetChi0v', ASPIRIN)}; {_value('GetChi1v', ASPIRIN)}"
    assert rows[1]["source_answer"] == "2.1543; 1.0233"
    assert rows[2]["answer"] == "C9H8O4; 13"
    plan = rows[2]["plan"]
    assert plan["edges"] == [["entity", "step 1"], ["step 1", "step 2"], ["step 1", "step 3"]]
    assert plan["runs"][0]["values"] == {"GetMolFormula": "C9H8O4", "GetHeavyAtomsNum": 13}
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_verify_flags_a_wrong_stored_answer(fixture_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "derived.jsonl"
    runner.invoke(app, ["derive", str(fixture_file), "--out", str(out), "--workers", "1"])
    good = runner.invoke(app, ["verify", str(out), "--workers", "1"])
    assert good.exit_code == 0, good.output
    assert "3 of 7 stored answers re-derived; 0 disagree" in good.stdout
    rows = read_tasks(out)
    rows[2]["answer"] = "C9H8O4; 14"
    bad_file = tmp_path / "tampered.jsonl"
    write_tasks(bad_file, rows)
    bad = runner.invoke(app, ["verify", str(bad_file), "--workers", "1", "--json"])
    assert bad.exit_code == 1
    listed = [t for t in json.loads(bad.stdout)["tasks"] if t["status"] == "disagrees"]
    assert listed == [
        {"task": 3, "status": "disagrees", "stored": "C9H8O4; 14", "executed": "C9H8O4; 13",
         "reason": None}
    ]  # fmt: skip
    # the source file's level-1 answer for aspirin is ethanol's: verify says so
    source = runner.invoke(app, ["verify", str(fixture_file), "--workers", "1"])
    assert source.exit_code == 1 and "task 2: disagrees: stored '2.1543; 1.0233'" in source.stdout


def test_a_task_with_a_plan_that_no_longer_runs_is_an_error(tmp_path: Path) -> None:
    task = {"question": "q", "tool_path": ["GetKappa1"], "Parameter": "C1CC(", "answer": "3",
            "plan": {"tool_path": ["GetKappa1"]}}  # fmt: skip
    path = tmp_path / "t.jsonl"
    write_tasks(path, [task])
    result = runner.invoke(app, ["verify", str(path), "--workers", "1", "--json"])
    assert result.exit_code == 1
    assert json.loads(result.stdout)["tasks"][0]["status"] == "error"


def test_parallel_workers_give_the_same_outcomes(fixture_file: Path) -> None:
    tasks = read_tasks(fixture_file) * 3
    seen: list[tuple[int, int]] = []
    parallel = run_tasks("derive", tasks, workers=2, progress=lambda d, t: seen.append((d, t)))
    serial = run_tasks("derive", tasks, workers=1, cache=False)
    assert [o.model_dump() for o in parallel] == [o.model_dump() for o in serial]
    assert seen[-1] == (21, 21) and [o.index for o in parallel] == list(range(21))


def test_an_executor_gives_the_same_outcomes(fixture_file: Path) -> None:
    from scigate.executor import make_executor

    tasks = read_tasks(fixture_file) * 3
    seen: list[tuple[int, int]] = []
    executor = make_executor("local", workers=2)
    spread = run_tasks(
        "derive", tasks, executor=executor, progress=lambda d, t: seen.append((d, t))
    )
    serial = run_tasks("derive", tasks, workers=1, cache=False)
    assert [o.model_dump() for o in spread] == [o.model_dump() for o in serial]
    assert seen[-1] == (21, 21)


def test_a_chunk_the_executor_cannot_run_makes_its_tasks_errors(
    fixture_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scigate.bench import _derive
    from scigate.executor import make_executor

    def broken(kind, chunk, cache):
        raise RuntimeError("worker lost")

    monkeypatch.setattr(_derive, "_work", broken)
    tasks = read_tasks(fixture_file)
    outcomes = run_tasks("verify", tasks, executor=make_executor("local", workers=2, retries=1))
    assert [o.index for o in outcomes] == list(range(len(tasks)))
    assert {o.status for o in outcomes} == {"error"}  # never "agrees" by default
    assert all("worker lost" in (o.reason or "") for o in outcomes)


def test_cli_executor_option_is_checked(fixture_file: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["verify", str(fixture_file), "--executor", "spark"])
    assert result.exit_code == 2 and "unknown executor" in result.output
    result = runner.invoke(app, ["verify", str(fixture_file), "--ray-address", "127.0.0.1:1"])
    assert result.exit_code == 2 and "--ray-address needs executor 'ray'" in result.output


def test_rules_and_formats_turn_values_into_the_stored_answer() -> None:
    base = {"question": "q", "tool_path": ["NameToSMILES", "GetHeavyAtomsNum"],
            "Parameter": ["methane", "ethanol", "propane"]}  # fmt: skip
    rule = {"op": "max", "output": "GetHeavyAtomsNum"}
    with pytest.raises(Underivable, match="2 parameters tie for the max"):
        execute_task({**base, "plan": {"rule": rule}})
    below = {"op": "max", "output": "GetHeavyAtomsNum",
             "constraints": [{"output": "GetHeavyAtomsNum", "cmp": "<", "value": 3}]}  # fmt: skip
    assert execute_task({**base, "plan": {"rule": below}}).answer == "methane"
    count = {
        "op": "count",
        "constraints": [{"output": "GetHeavyAtomsNum", "cmp": ">=", "value": 3}],
    }
    assert execute_task({**base, "plan": {"rule": count}}).answer == "2"
    mc = {**base, "format": "multiple choice", "options": {"A": "methane", "B": "ethanol"},
          "plan": {"rule": below}}  # fmt: skip
    assert execute_task(mc).answer == "A"
    tf = {**base, "format": "true/false", "plan": {"rule": count, "claim": "3"}}
    assert execute_task(tf).answer == "False"
    assert execute_task({**tf, "plan": {"rule": count, "claim": "2"}}).answer == "True"
    with pytest.raises(Underivable, match="0 options equal"):
        execute_task({**mc, "options": {"A": "propane", "B": "ethanol"}})


def test_a_rule_output_that_is_not_a_tool_name_is_underivable() -> None:
    # was a TypeError (unhashable list) escaping execute_task instead of a one-line reason
    base = {"question": "q", "tool_path": ["NameToSMILES", "GetHeavyAtomsNum"],
            "Parameter": ["methane", "ethanol"]}  # fmt: skip
    for rule in (
        {"op": "value", "output": ["GetHeavyAtomsNum"]},
        {"op": "max", "output": ["GetHeavyAtomsNum"]},
        {"op": "max"},
    ):
        task = {**base, "Parameter": "methane"} if rule["op"] == "value" else base
        with pytest.raises(Underivable, match="which is not an output of the plan"):
            execute_task({**task, "plan": {"rule": rule}})


def test_same_answer_tolerances() -> None:
    assert same_answer("46.069", "46.069") and same_answer(" C9H8O4 ;13", "c9h8o4; 13")
    assert not same_answer("46.07", "46.069")
    assert same_answer("46.07", "46.069", rel_tol=1e-3)


def test_same_answer_tells_formulas_and_small_numbers_apart() -> None:
    """A stored answer that differs only in a formula's case, or a small value that is
    off by a factor, is another answer (bench verify must not agree)."""
    assert not same_answer("CO", "Co") and not same_answer("CO2", "Co2")
    assert same_answer("aspirin", "Aspirin") and same_answer("True", "true")
    assert not same_answer("2e-10", "5e-10")  # within the old absolute 1e-9
    assert same_answer("2e-10", "2.000001e-10") and same_answer("0", "1e-12")
    assert not same_answer("1; 2", "1")


def test_writes_are_atomic(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("keep\n")

    def rows():
        yield {"a": 1}
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError):
        write_tasks(out, rows())
    assert out.read_text() == "keep\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


def test_bad_files_are_one_line_exit_2(tmp_path: Path) -> None:
    broken = tmp_path / "b.jsonl"
    broken.write_text('{"question": "q"}\nnot json\n')
    result = runner.invoke(app, ["verify", str(broken)])
    assert result.exit_code == 2 and "b.jsonl:2: not valid JSON" in result.stderr
    missing = runner.invoke(app, ["derive", str(tmp_path / "nope.jsonl"), "--out", str(broken)])
    assert missing.exit_code == 2 and "cannot read benchmark file" in missing.stderr
    assert "Traceback" not in result.output + missing.output


def test_written_tasks_hold_no_credential_value(tmp_path, monkeypatch) -> None:
    """A model-worded task echoing the caller's key must not carry it into the file."""
    monkeypatch.setenv("SCIGATE_TEST_API_KEY", "sk-test-abcdef123456")
    out = tmp_path / "tasks.jsonl"
    write_tasks(out, [{"question": "with key sk-test-abcdef123456", "answer": "1"}])
    text = out.read_text()
    assert "sk-test-abcdef123456" not in text
    assert read_tasks(out)[0]["question"] == "with key [redacted SCIGATE_TEST_API_KEY]"


# --- issue 22 item 7: SciToolEval level-2 tasks whose parameters are in the question ---
# SciToolEval is not bundled (its files stay out of this repository); this fixed sample has
# the shapes of its level-2 all-offline tasks: a Parameter, no Parameter and the molecule
# named in the question (98 of 379 there), several molecules with a path repeated per
# molecule, and tasks that must stay underived.
def _named(path: list[str], question: str) -> dict[str, object]:
    return {"tool_path": path, "question": question, "level": 2}


LEVEL2_SAMPLE = [
    {"tool_path": ["SMILESToInChI", "InChIToInChIKey"], "Parameter": "CCO",
     "question": "What is the InChIKey of the molecule with SMILES CCO?", "level": 2},
    {"tool_path": ["SlnToSmiles", "GetMolFormula"], "Parameter": "CH3C(=O)OH",
     "question": "Formula of the molecule with the SLN string CH3C(=O)OH?", "level": 2},
    {"tool_path": ["ConvertingPeptide2SMILES", "GetHeavyAtomsNum"], "Parameter": "GAVL",
     "question": "How many heavy atoms has the peptide GAVL?", "level": 2},
    _named(["NameToSMILES", "GetMolFormula", "GetExactMolceularWeight"],
           "What are the molecular formula and exact weight of the molecule with the name ethanol?"),
    _named(["NameToSMILES", "GetHeavyAtomsNum", "GetRotatableBondsNum"],
           "How many heavy atoms and rotatable bonds are in the molecule with the name aspirin?"),
    _named(["NameToSMILES", "GetRingsNum"],
           'Give the SMILES of the molecule with the molecule name "benzene," then its rings.'),
    _named(["NameToSMILES", "GetHeteroatomsNum"],
           "Determine how many heteroatoms in the molecule with name caffeine."),
    _named(["NameToSMILES", "CalculateTPSA"],
           "Calculate the TPSA for the molecule with the name glucose."),
    _named(["SELFIEStoSMILES", "GetHeavyAtomsNum"],
           "How many heavy atoms has the molecule with the SELFIES representation [C][C][O]?"),
    _named(["NameToSMILES"] * 3 + ["GetMolFormula"] * 3,
           "What are the formulas of the molecules with the names 'ethanol' 'benzene' and "
           "'methane'?"),
    # underived, each with its reason
    _named(["NameToSMILES", "NameToSMILES", "GetFormalCharge", "GetRotatableBondsNum"],
           "What is the formal charge of the molecule with the name caffeine and the number "
           "of rotatable bonds in the molecule with the name aspirin?"),
]  # fmt: skip


def test_level2_sample_coverage_with_parameters_from_the_question() -> None:
    outcomes = run_tasks("derive", LEVEL2_SAMPLE, workers=1)
    derived = [o for o in outcomes if o.status == "derived"]
    assert len(derived) / len(outcomes) >= 0.85, [o.line() for o in outcomes]
    assert all(o.reason for o in outcomes if o.status != "derived")
    by_index = {o.index: o for o in outcomes}
    assert by_index[3].answer == "C2H6O; 46.0419"
    assert by_index[3].task["plan"]["parameters"] == {"from": "question", "values": ["ethanol"]}
    assert "Parameter" not in by_index[3].task  # the task is kept as it was, plus answer/plan
    assert by_index[8].answer == "3"  # the SELFIES found in the question


def test_a_path_repeated_per_parameter_joins_the_parts_in_order(tmp_path: Path) -> None:
    task = LEVEL2_SAMPLE[9]
    done = _derive.execute(task)
    assert done.answer == "C2H6O; C6H6; CH4"  # the question's order, not sorted
    assert done.plan["rule"] == {"op": "join", "per_parameter": ["NameToSMILES", "GetMolFormula"]}
    assert [p["runs"][0]["entity"] for p in done.plan["parts"]] == ["ethanol", "benzene", "methane"]
    # a Parameter list with the path repeated per parameter joins the same way
    listed = {"question": "Formulas?", "tool_path": task["tool_path"],
              "Parameter": ["methane", "ethanol", "benzene"]}  # fmt: skip
    assert _derive.execute(listed).answer == "CH4; C2H6O; C6H6"
    # the derived file re-verifies (its plan records the join)
    path, out = tmp_path / "t.jsonl", tmp_path / "d.jsonl"
    write_tasks(path, [task, listed])
    assert (
        runner.invoke(app, ["derive", str(path), "--out", str(out), "--workers", "1"]).exit_code
        == 0
    )
    verified = runner.invoke(app, ["verify", str(out), "--workers", "1"])
    assert verified.exit_code == 0 and "2 of 2 stored answers re-derived" in verified.stdout


@pytest.mark.parametrize(
    ("task", "reason"),
    [
        (LEVEL2_SAMPLE[10], "2 parameters and tools that differ per parameter (GetFormalCharge x1, "
         "GetRotatableBondsNum x1): which tool takes which parameter is not stated"),
        (_named(["NameToSMILES", "GetMolFormula"], "Formula of the molecule with the name acetic "
                "acid?"), "the question names 'acetic' followed by 'acid': where the name ends "
         "is not stated"),
        (_named(["NameToSMILES", "GetMolFormula"], "Formulas of the molecule with the name "
                "'caffeine' and the SMILES 'CCO'?"), "the question names a SMILES besides the "
         "molecule name(s) the path starts from"),
        (_named(["NameToSMILES", "GetMolFormula"], "Formulas of the molecules with the names "
                "'ethanol' 'benzene'?"), "2 parameters and no rule"),
        (_named(["NameToSMILES", "GetMolFormula"], "What is the formula of caffeine?"),
         "the question names no molecule in the form 'the molecule with the name X'"),
        ({**LEVEL2_SAMPLE[9], "options": {"A": "x", "B": "y"}}, "3 parameters joined in order, "
         "but the task is multiple choice"),
    ],
)  # fmt: skip
def test_parameters_that_do_not_map_unambiguously_stay_underived(task, reason) -> None:
    [outcome] = run_tasks("derive", [task], workers=1)
    assert outcome.status == "underivable" and reason in outcome.reason


def test_reason_counts_groups_the_reasons() -> None:
    outcomes = run_tasks(
        "derive",
        [
            _named(["NameToSMILES", "GetMolFormula"], "the molecule with the name zzqxmol?"),
            _named(["NameToSMILES", "GetMolFormula"], "the molecule with the name qqzxmol?"),
            {"question": "What is life?"},
            LEVEL2_SAMPLE[0],
        ],
        workers=1,
    )
    counts = _derive.reason_counts(outcomes)
    assert [n for _, n in counts] == [2, 1] and counts[1][0] == "no tool_path"
    assert "could not resolve the name '…'" in counts[0][0]
