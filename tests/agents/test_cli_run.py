"""`scigate agent run` shows the whole trajectory of every method."""

import json
import re

import pytest

from scigate.agents import METHODS

from .conftest import spec

INCHIKEY = "LFQSCWFLJHTTHZ-UHFFFAOYSA-N"


def _run(capsys, *args: str) -> str:
    from scigate.cli._agent import app

    app(args=["run", *args], standalone_mode=False)
    return " ".join(capsys.readouterr().out.split())  # undo rich's line wrapping


@pytest.mark.parametrize("method", METHODS)
def test_every_method_shows_its_tool_calls_and_answer(method, capsys, tmp_path):
    text = _run(
        capsys,
        "--model",
        spec("policy"),
        "--method",
        method,
        "--known-ratio",
        "1.0",
        "--memory",
        str(tmp_path / "m.db"),
        "--parameter",
        "CCO",
        "What is the molecular weight of CCO?",
    )
    # the tool call with the arguments the --parameter value fed, and the tool's output
    assert re.search(r"ok SMILESToWeight args \{\"smiles\": \"CCO\"\} → 46\.06", text), text
    assert "summary → 46.06" in text and "Answer: 46.06" in text
    assert "candidates for" in text  # what the method could choose from
    if method == "react" or method == "reflexion":
        assert "thought Thought:" in text
    else:
        assert "tool chain" in text and "SMILESToWeight" in text


def test_evo_shows_requests_candidates_and_gate_scores(capsys, tmp_path):
    text = _run(
        capsys,
        "--model",
        spec("policy"),
        "--known-ratio",
        "1.0",
        "--memory",
        str(tmp_path / "m.db"),
        "--parameter",
        "CCO",
        "What is the InChIKey and the molecular weight of the molecule with SMILES CCO?",
    )
    assert "difficulty tools=3 entities=1 → complex" in text
    assert "Active tool requests • convert SMILES string to standard InChI" in text
    assert "candidates for convert InChI string into InChIKey: known [" in text
    gate = re.findall(
        r"gate (.+?) rerank top-1 (\S+), top-2 (\S+); "
        r"x=\[f=([\d.]+), m=([\d.]+), s=([\d.]+), p=([\d.]+)\] α=([\d.]+) "
        r"UCB\(known=([\d.-]+), unknown=([\d.-]+)\) → (known|unknown): (\S+)",
        text,
    )
    assert [g[0] for g in gate] == [
        "convert SMILES string to standard InChI",
        "convert InChI string into InChIKey",
        "calculate average molecular weight of molecule from SMILES",
    ]
    assert all(float(g[6]) == pytest.approx(0.5) and g[7] == "0.800" for g in gate)
    assert [g[11] for g in gate] == ["ConvertSmilesToInchi", "InChIToInChIKey", "SMILESToWeight"]
    assert (
        f'ok InChIToInChIKey args {{"inchi": "InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3"}} → {INCHIKEY}'
        in text
    )


def test_evo_shows_the_unknown_search_and_the_unknown_tool(capsys, tmp_path):
    # the bandit always explores: candidates come from the unknown set's sparse attributes
    from scigate.cli._agent import app

    app(
        args=[
            "run",
            "--model",
            spec("policy"),
            "--known-ratio",
            "0.0",
            "--memory",
            str(tmp_path / "m.db"),
            "--parameter",
            "CCO",
            "What is the molecular weight of CCO?",
        ],
        standalone_mode=False,
    )
    text = " ".join(capsys.readouterr().out.split())
    assert (
        "candidates for What is the molecular weight of CCO?: known [all 0 known tools] unknown ["
        in text
    )
    assert "ok SMILESToWeight [unknown tool] args" in text


def test_no_call_is_explained(capsys, tmp_path):
    text = _run(
        capsys,
        "--model",
        spec("no_arguments"),
        "--method",
        "scitoolagent",
        "--known-ratio",
        "1.0",
        "--parameter",
        "CCO",
        "What is the molecular weight of CCO?",
    )
    lines = re.findall(
        r"no call SMILESToWeight(?: \(attempt (\d)\))?: argument extraction failed", text
    )
    assert lines[:3] == ["", "2", "3"]  # first try and two retries, per attempt of the plan


def test_json_trajectory_and_several_parameters(capsys):
    from scigate.cli._agent import app

    app(
        args=[
            "run",
            "--model",
            spec("policy"),
            "--method",
            "scitoolagent",
            "--known-ratio",
            "1.0",
            "--parameter",
            "CCO",
            "--parameter",
            "CCCCO",
            "--json",
            "Which molecule has the largest molecular weight?",
        ],
        standalone_mode=False,
    )
    traj = json.loads(capsys.readouterr().out)
    step = traj["steps"][0]
    assert step["tool"] == "SMILESToWeight"
    assert step["arguments"] == [{"smiles": "CCO"}, {"smiles": "CCCCO"}]
    kinds = {e["kind"] for e in traj["events"]}
    assert {"candidates", "chain", "tool", "answer"} <= kinds


def test_domain_selects_the_rerank_category_and_bad_domain_is_bad_input(capsys, tmp_path):
    from scigate.cli._agent import app
    from scigate.errors import BadInput

    app(
        args=[
            "run",
            "--model",
            spec("policy"),
            "--known-ratio",
            "1.0",
            "--memory",
            str(tmp_path / "m.db"),
            "--domain",
            "chemistry",
            "--parameter",
            "CCO",
            "--json",
            "What is the InChIKey and the molecular weight of the molecule with SMILES CCO?",
        ],
        standalone_mode=False,
    )
    traj = json.loads(capsys.readouterr().out)
    reranks = [e for e in traj["events"] if e["kind"] == "llm" and e["purpose"] == "rerank"]
    assert len(reranks) == 3 and traj["route"] == "complex"
    with pytest.raises(BadInput, match="--domain"):
        app(
            args=["run", "--model", spec("policy"), "--domain", "physics", "q?"],
            standalone_mode=False,
        )


def test_missing_provider_key_is_bad_input_before_any_work(monkeypatch, tmp_path):
    from scigate.cli._agent import app
    from scigate.errors import BadInput

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    db = tmp_path / "runs.db"
    with pytest.raises(BadInput, match="OPENAI_API_KEY"):
        app(
            args=["run", "--model", "openai/gpt-5.4-mini", "--db", str(db), "What is 2+2?"],
            standalone_mode=False,
        )
    assert not db.exists()  # nothing was started


def test_run_offers_the_whole_library_by_default(capsys, tmp_path):
    """Without --known-ratio a ReAct agent is offered SMILESToWeight for a weight question
    (at the evaluation split's 0.5 it is not, and answers with another tool)."""
    args = ["--model", spec("policy"), "--method", "react", "--parameter", "CCO"]
    text = _run(capsys, *args, "What is the molecular weight of CCO?")
    assert re.search(r"candidates for .*known \[SMILESToWeight", text), text
    assert "ok SMILESToWeight" in text and "Answer: 46.069" in text
    split = _run(capsys, *args, "--known-ratio", "0.5", "What is the molecular weight of CCO?")
    assert "ok SMILESToWeight" not in split


def test_known_ratio_is_explained_in_the_help():
    from typer.testing import CliRunner

    from scigate.cli._agent import app

    for verb in ("run", "eval"):
        r = CliRunner().invoke(app, [verb, "--help"], env={"COLUMNS": "200"})
        assert "unknown" in r.stdout and "tool search" in r.stdout, r.stdout
