"""`scigate tools ...` verbs through typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scigate.cli._tools import app
from scigate.tools import load_library
from scigate.tools._coverage import BUNDLED_CATALOGUE

runner = CliRunner()
CATALOGUE = BUNDLED_CATALOGUE


def test_list_json_and_table() -> None:
    result = runner.invoke(app, ["list", "--domain", "fem", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert rows and {r["category"] for r in rows} == {"fem"}
    assert {"name", "inputs", "outputs", "source", "available"} <= set(rows[0])
    table = runner.invoke(app, ["list", "--category", "general"])
    assert table.exit_code == 0 and "UnitConverter" in table.stdout
    bad = runner.invoke(app, ["list", "--domain", "astrology"])
    assert bad.exit_code == 2 and "unknown category" in bad.stderr


def test_show_prints_ontology_schema_and_examples() -> None:
    result = runner.invoke(app, ["show", "ConvertUnits"])
    assert result.exit_code == 0
    assert "from_unit" in result.stdout and "example" in result.stdout
    as_json = json.loads(runner.invoke(app, ["show", "ConvertUnits", "--json"]).stdout)
    assert as_json["inputs"] == ["number", "unit", "unit"] and as_json["examples"]
    missing = runner.invoke(app, ["show", "ConvertUnit"])
    assert missing.exit_code == 2
    assert "did you mean ConvertUnits" in missing.stderr and "Traceback" not in missing.output


def test_run_exit_codes() -> None:
    ok = runner.invoke(app, ["run", "EvaluateExpression", "--input", "2**8", "--json"])
    assert ok.exit_code == 0 and json.loads(ok.stdout) == {
        "ok": True,
        "value": 256,
        "display": "256",
    }
    plain = runner.invoke(app, ["run", "UnitConverter", "-i", "1 km to m"])
    assert plain.exit_code == 0 and "value: 1000" in plain.stdout
    failed = runner.invoke(app, ["run", "EvaluateExpression", "--input", "2 +", "--json"])
    assert failed.exit_code == 1 and json.loads(failed.stdout)["ok"] is False
    failed_plain = runner.invoke(app, ["run", "EvaluateExpression", "--input", "2 +"])
    assert failed_plain.exit_code == 1 and "cannot parse" in failed_plain.stderr
    unknown = runner.invoke(app, ["run", "NoSuchTool", "--input", "x"])
    assert unknown.exit_code == 2 and unknown.stderr.startswith("scigate: error: unknown tool")
    bad_args = runner.invoke(app, ["run", "ConvertUnits", "--input", "1", "--args", "{oops"])
    assert bad_args.exit_code == 2 and "--args is not valid JSON" in bad_args.stderr


def test_run_with_json_args_and_typed_input() -> None:
    result = runner.invoke(
        app,
        [
            "run",
            "ConvertUnits",
            "--input",
            "100",
            "--args",
            '{"from_unit": "degC", "to_unit": "K"}',
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["value"] == pytest.approx(373.15)
    stats = runner.invoke(app, ["run", "DescriptiveStatistics", "--input", "[1, 2, 3]", "--json"])
    assert json.loads(stats.stdout)["value"]["mean"] == 2.0


def test_chain_shows_every_step() -> None:
    if not {"SMILESToInChI", "InChIToInChIKey"} <= set(load_library()):
        pytest.skip("chemistry tools not present")
    result = runner.invoke(app, ["chain", "SMILESToInChI,InChIToInChIKey", "--input", "CCO"])
    assert result.exit_code == 0, result.output
    assert "1. SMILESToInChI ok" in result.stdout and "LFQSCWFLJHTTHZ-UHFFFAOYSA-N" in result.stdout
    failing = runner.invoke(
        app, ["chain", "SMILESToInChI,InChIToInChIKey", "-i", "C1CC(", "--json"]
    )
    assert failing.exit_code == 1
    data = json.loads(failing.stdout)
    assert data["failed_step"] == "SMILESToInChI" and len(data["steps"]) == 1
    unknown = runner.invoke(app, ["chain", "SMILESToInChI,Nope", "-i", "CCO"])
    assert unknown.exit_code == 2


def test_search_graph_and_coverage(tmp_path: Path) -> None:
    found = runner.invoke(app, ["search", "convert units of a quantity", "-k", "3", "--json"])
    assert found.exit_code == 0
    hits = json.loads(found.stdout)
    assert len(hits) == 3 and "UnitConverter" in [h["name"] for h in hits]
    assert runner.invoke(app, ["search", "quadrature rule"]).exit_code == 0
    out = tmp_path / "g.json"
    graph = runner.invoke(app, ["graph", "--out", str(out)])
    assert graph.exit_code == 0 and json.loads(out.read_text())["format"] == "scigate-tool-graph"
    cat = tmp_path / "cat.json"
    cat.write_text(
        json.dumps(
            {"tools": [{"name": "UnitConverter", "category": "Material Tool", "source": "x"}]}
        )
    )
    cov = runner.invoke(app, ["coverage", "--catalogue", str(cat), "--json"])
    assert cov.exit_code == 0 and json.loads(cov.stdout)["implemented"] == 1
    table = runner.invoke(app, ["coverage", "--catalogue", str(cat)])
    assert table.exit_code == 0 and "Material Tool" in table.stdout
    missing = runner.invoke(app, ["coverage", "--catalogue", str(tmp_path / "none.json")])
    assert missing.exit_code == 2 and "cannot read catalogue" in missing.stderr


def test_serve_mcp_rejects_unknown_transport() -> None:
    result = runner.invoke(app, ["serve-mcp", "--transport", "carrier-pigeon"])
    assert result.exit_code == 2 and "unknown transport" in result.stderr


def test_input_at_file_reads_the_content(tmp_path):
    """`--input @FILE` reads a file for tools that take content (CIF, PDB, sequences)."""
    from typer.testing import CliRunner

    from scigate.cli._tools import app

    seq = tmp_path / "seq.txt"
    seq.write_text("ATGGCC")
    result = CliRunner().invoke(
        app, ["run", "GetReverseComplement", "--input", f"@{seq}", "--json"]
    )
    assert result.exit_code == 0, result.output
    assert "GGCCAT" in result.output
    result = CliRunner().invoke(
        app, ["run", "GetReverseComplement", "--input", f"@{tmp_path / 'nope'}"]
    )
    assert result.exit_code == 2


def test_chain_prints_tool_text_literally() -> None:
    # a value or error that looks like rich markup is printed as it is, never parsed
    result = runner.invoke(app, ["chain", "GetMolFormula", "--input", "[/x]"])
    assert result.exit_code == 1, result.output
    assert "invalid SMILES '[/x]'" in result.stdout
