"""Library loading, the vocabulary, chains, coverage and the general/fem tools."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from scigate.errors import BadInput
from scigate.tools import (
    VOCABULARY,
    ToolInputError,
    canonical_type,
    check_value,
    coverage,
    get_tool,
    list_tools,
    load_library,
    read_catalogue,
    run_chain,
    tool,
    unknown_types,
)
from scigate.tools._coverage import BUNDLED_CATALOGUE
from scigate.tools._vocabulary import parameter_types

CATALOGUE = BUNDLED_CATALOGUE


# ------------------------------------------------------------------ library loading


def test_load_library_registers_every_module() -> None:
    tools = load_library()
    modules = {t.fn.__module__.rsplit(".", 1)[-1] for t in tools.values()}
    assert {"general", "fem"} <= modules
    assert load_library() is tools  # idempotent


def test_loading_the_library_imports_no_heavy_package() -> None:
    code = (
        "import sys, scigate.tools as T; T.load_library();"
        "heavy = ['rdkit', 'Bio', 'pymatgen', 'dolfinx', 'basix', 'scipy', 'selfies',"
        " 'MDAnalysis', 'sklearn', 'torch', 'fastmcp', 'openai'];"
        "print(','.join(m for m in heavy if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"imported while loading the library: {out.stdout}"


def test_get_tool_suggests_close_names() -> None:
    assert get_tool("UnitConverter").name == "UnitConverter"
    with pytest.raises(BadInput, match="did you mean UnitConverter"):
        get_tool("UnitConvertor")
    with pytest.raises(BadInput, match="unknown tool"):
        get_tool("zzzzzzzz")


def test_list_tools_filters_and_sorts() -> None:
    fem = list_tools("fem")
    assert fem and all(t.spec.category == "fem" for t in fem)
    names = [t.name for t in fem]
    assert names == sorted(names)
    assert all(t.available() for t in list_tools(available_only=True))
    with pytest.raises(BadInput, match="unknown category"):
        list_tools("astrology")


# ------------------------------------------------------------------ vocabulary


def test_every_tool_type_is_in_the_vocabulary() -> None:
    missing = {
        f"{t.name}: {x}"
        for t in load_library().values()
        for x in unknown_types(t.spec.inputs + t.spec.outputs)
    }
    assert not missing, f"add these types to scigate/tools/_vocabulary.py: {sorted(missing)}"


def test_case_variants_share_one_term() -> None:
    assert canonical_type("Protein sequence") == "protein sequence"
    assert canonical_type("  molecular   formula ") == "Molecule Formula"
    assert canonical_type("Molecular weight") == "molecular weight"
    assert canonical_type("something new") == "something new"


@pytest.mark.parametrize(
    "term", [t for t in VOCABULARY if t.kind == "string"], ids=lambda t: t.name
)
def test_string_terms_accept_their_example_and_reject_bad_ones(term) -> None:  # type: ignore[no-untyped-def]
    if term.example is not None:
        assert term.validate(term.example) is None, term.name
    assert term.validate("") is not None
    if term.validator is not None:
        for bad in term.bad_examples:
            assert term.validate(bad) is not None, f"{term.name} accepted {bad!r}"


def test_check_value_raises_tool_input_error() -> None:
    assert check_value("SMILES", " CCO ") == "CCO"
    with pytest.raises(ToolInputError, match="invalid DNA sequence"):
        check_value("DNA sequence", "ATGXZ")
    with pytest.raises(ToolInputError, match="check digit"):
        check_value("CAS", "64-17-4")
    with pytest.raises(KeyError):
        check_value("no such type", "x")


def test_pair_types_span_two_parameters() -> None:
    reg: dict = {}

    @tool(name="Pair", functionality="f", inputs=["SMILES pair"], outputs=["number"],
          category="chemistry", source="test", registry=reg)  # fmt: skip
    def pair(smiles_a: str, smiles_b: str, radius: int = 2) -> float:
        return 1.0

    assert parameter_types(reg["Pair"]) == {"smiles_a": "SMILES pair", "smiles_b": "SMILES pair"}


# ------------------------------------------------------------------ chains


def _chain_registry() -> dict:
    reg: dict = {}

    @tool(name="Up", functionality="upper", inputs=["text"], outputs=["text"],
          category="general", source="test", registry=reg)  # fmt: skip
    def up(text: str) -> str:
        return text.upper()

    @tool(name="Split", functionality="split", inputs=["text"], outputs=["JSON"],
          category="general", source="test", registry=reg)  # fmt: skip
    def split(text: str) -> dict:
        return {"text": text[:2], "rest": text[2:]}

    @tool(name="Fail", functionality="fails", inputs=["text"], outputs=["text"],
          category="general", source="test", registry=reg)  # fmt: skip
    def fail(text: str) -> str:
        raise ToolInputError(f"cannot handle {text}")

    return reg


def test_chain_pipes_values_and_picks_dict_fields() -> None:
    reg = _chain_registry()
    out = run_chain("Up,Split,Up", "abcd", tools=reg)
    assert out.ok and out.value == "AB"
    assert [s.tool for s in out.steps] == ["Up", "Split", "Up"]
    assert out.steps[2].arguments == {"text": "AB"}


def test_chain_stops_at_the_first_failure_and_names_it() -> None:
    reg = _chain_registry()
    out = run_chain(["Up", "Fail", "Up"], "x", tools=reg)
    assert not out.ok and out.failed_step == "Fail"
    assert len(out.steps) == 2 and out.error.startswith("step 2 (Fail)")
    with pytest.raises(BadInput, match="unknown tool"):
        run_chain("Up,Nope", "x", tools=reg)
    with pytest.raises(BadInput, match="empty tool chain"):
        run_chain(" , ", "x", tools=reg)


def test_library_chain_smiles_to_inchikey() -> None:
    tools = load_library()
    if not {"SMILESToInChI", "InChIToInChIKey"} <= set(tools):
        pytest.skip("chemistry tools not present")
    out = run_chain("SMILESToInChI,InChIToInChIKey", "CCO")
    assert out.ok, out.error
    assert out.value == "LFQSCWFLJHTTHZ-UHFFFAOYSA-N"


# ------------------------------------------------------------------ coverage


def test_coverage_counts_exact_and_alias_matches(tmp_path: Path) -> None:
    reg: dict = {}

    @tool(name="MyWeight", functionality="f", inputs=["SMILES"], outputs=["molecular weight"],
          category="chemistry", source="RDKit", registry=reg, aliases=["SMILESToWeight"])  # fmt: skip
    def w(smiles: str) -> float:
        return 1.0

    @tool(name="UnitConverter", functionality="f", inputs=["Query"], outputs=["number"],
          category="general", source="x", registry=reg)  # fmt: skip
    def u(query: str) -> float:
        return 1.0

    catalogue = [
        {"name": "SMILESToWeight", "category": "Chemical Tool", "source": "rdkit"},
        {"name": "UnitConverter", "category": "Material Tool", "source": "chatmof"},
        {"name": "Other", "category": "Chemical Tool", "source": "rdkit"},
    ]
    path = tmp_path / "cat.json"
    path.write_text(json.dumps({"tools": catalogue}))
    report = coverage(read_catalogue(path), reg)
    assert (report["implemented"], report["exact"], report["alias"]) == (2, 1, 1)
    chem = next(r for r in report["by_category"] if r["category"] == "Chemical Tool")
    assert (chem["total"], chem["implemented"], chem["percent"]) == (2, 1, 50.0)
    assert report["library_tools_not_in_catalogue"] == []


def test_read_catalogue_rejects_bad_files(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="cannot read"):
        read_catalogue(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{nope")
    with pytest.raises(BadInput, match="not JSON"):
        read_catalogue(tmp_path / "bad.json")
    (tmp_path / "empty.json").write_text('{"tools": [{"x": 1}]}')
    with pytest.raises(BadInput, match="no list of tool records"):
        read_catalogue(tmp_path / "empty.json")


def test_coverage_of_the_real_catalogue() -> None:
    report = coverage(read_catalogue(CATALOGUE), load_library())
    assert report["catalogue_tools"] == 485
    assert report["implemented"] >= 1  # UnitConverter and DownloadPapers at least
    assert {"UnitConverter", "DownloadPapers"} <= {r["name"] for r in report["tools"] if r["match"]}


# ------------------------------------------------------------------ general tools


@pytest.mark.parametrize(
    ("value", "src", "dst", "expected"),
    [
        (1.0, "km", "m", 1000.0),
        (0.0, "degC", "degF", 32.0),
        (300.0, "K", "degC", 26.85),
        (1.0, "g/cm^3", "kg/m3", 1000.0),
        (8.314462618, "J/(mol*K)", "cal/mol/K", 1.98720425864),
        (1.0, "Ha", "eV", 27.211386245988),
        (1.0, "mM", "mol/L", 1e-3),
        (1.0, "m s-2", "cm/s^2", 100.0),
        (1.0, "bar", "Pa", 1e5),
        (1.0, "kDa", "g", 1.66053906660e-21),
    ],
)
def test_convert_units(value: float, src: str, dst: str, expected: float) -> None:
    result = get_tool("ConvertUnits").call(value=value, from_unit=src, to_unit=dst)
    assert result.ok, result.error
    assert result.value == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(
    ("src", "dst", "message"),
    [
        ("km", "s", "different dimensions"),
        ("furlong", "m", "unknown unit"),
        ("", "m", "empty unit"),
    ],
)
def test_convert_units_rejects_bad_units(src: str, dst: str, message: str) -> None:
    result = get_tool("ConvertUnits").call(value=1.0, from_unit=src, to_unit=dst)
    assert not result.ok and message in result.error


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("__import__('os').system('true')", "unsupported syntax"),
        ("__import__('os')", "unknown function"),
        ("(1).__class__", "unsupported syntax"),
        ("x + 1", "unknown name"),
        ("9 ** 9 ** 9", "too large"),
        ("(10 ** 10000) ** 20", "too large"),
        ("1 / 0", "division by zero"),
        ("factorial(100000)", "factorial"),
        ("sqrt(-1)", "cannot evaluate"),
        ("[1, 2]", "unsupported syntax"),
        ("lambda: 1", "unsupported syntax"),
    ],
)
def test_expression_evaluator_refuses_code_and_huge_numbers(expression: str, message: str) -> None:
    result = get_tool("EvaluateExpression").call(expression=expression)
    assert not result.ok and message in result.error


def test_expression_evaluator_computes() -> None:
    t = get_tool("EvaluateExpression")
    assert t.call(expression="2^10").value == 1024
    assert t.call(expression="-(3 - 5) * 2 % 3").value == 1
    assert t.call(expression="max(1, 2, 3) + round(2.567, 2)").value == pytest.approx(5.57)


def test_statistics_tools() -> None:
    stats = get_tool("DescriptiveStatistics").call(values=[5.0]).value
    assert stats["mean"] == 5.0 and stats["stdev"] is None
    assert not get_tool("DescriptiveStatistics").call(values=[]).ok
    fit = get_tool("LinearRegression")
    assert not fit.call(x=[1, 1], y=[2, 3]).ok
    assert "differ in length" in fit.call(x=[1, 2, 3], y=[1, 2]).error


ATOM_FEED = """<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title type="html">ArXiv Query: search_query=all:graph</title>
  <entry>
    <id>http://arxiv.org/abs/1704.01212v2</id>
    <published>2017-04-04T17:56:00Z</published>
    <title>Neural Message Passing for
      Quantum Chemistry</title>
    <summary>Supervised learning on molecules has incredible potential.</summary>
    <author><name>Justin Gilmer</name></author>
    <author><name>Samuel S. Schoenholz</name></author>
    <link href="http://arxiv.org/abs/1704.01212v2" rel="alternate" type="text/html"/>
    <link title="pdf" href="http://arxiv.org/pdf/1704.01212v2" rel="related" type="application/pdf"/>
  </entry>
</feed>
"""


def test_download_papers_parses_the_arxiv_feed(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, text=ATOM_FEED)

    class ReplayClient(httpx.Client):
        def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            kwargs["transport"] = httpx.MockTransport(answer)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(httpx, "Client", ReplayClient)
    result = get_tool("DownloadPapers").call(keywords="message passing", max_results=1)
    assert result.ok, result.error
    paper = result.value[0]
    assert paper["title"] == "Neural Message Passing for Quantum Chemistry"
    assert paper["authors"] == ["Justin Gilmer", "Samuel S. Schoenholz"]
    assert paper["pdf"] == "http://arxiv.org/pdf/1704.01212v2"
    params = seen[0].url.params
    assert params["search_query"] == "all:message AND all:passing"
    assert params["max_results"] == "1"


def test_fem_tools_reject_unknown_names() -> None:
    dim = get_tool("BasixElementDimension")
    if not dim.available():
        pytest.skip("basix not installed")
    assert "unknown element family" in dim.call(family="Nope", cell="triangle", degree=1).error
    assert "unknown cell type" in dim.call(family="P", cell="circle", degree=1).error
    assert dim.call(family="Lagrange", cell="tetrahedron", degree=3).value == 20
    tab = get_tool("BasixTabulate").call(family="P", cell="triangle", degree=1, points=[[0.1]])
    assert not tab.ok and "2-coordinate" in tab.error


# the original SciToolKG graph: llama_index SimpleGraphStore (graph_store.json), written here
GRAPH_FIXTURE = Path(__file__).with_name("data") / "scitoolkg_graph_store.json"


def test_read_catalogue_reads_the_original_graph_format(tmp_path: Path) -> None:
    records = {r["name"]: r for r in read_catalogue(GRAPH_FIXTURE)}
    assert set(records) == {
        "SMILESToWeight",
        "SafetySummary",
        "MolSimilarity",
        "NotInTheLibraryTool",
    }
    assert records["SafetySummary"] == {
        "name": "SafetySummary",
        "category": "Chemical Tool",
        "functionality": "Query the safety information of a given molecule CAS number",
        "inputs": ["CAS"],
        "outputs": ["safety information"],
        "source": "Python Package(chemcrow)",
        "security_check": True,
    }
    assert records["SMILESToWeight"]["security_check"] is False
    assert records["MolSimilarity"]["inputs"] == ["SMILES", "SMILES"]
    # a persist directory holding graph_store.json is read the same way
    (tmp_path / "graph_store.json").write_text(GRAPH_FIXTURE.read_text())
    assert read_catalogue(tmp_path) == list(records.values())
    report = coverage(read_catalogue(GRAPH_FIXTURE), load_library())
    assert report["catalogue_tools"] == 4
    assert {r["name"] for r in report["tools"] if r["match"]} == {
        "SMILESToWeight",
        "SafetySummary",
        "MolSimilarity",
    }
    by_source = {r["source"]: r for r in report["by_source"]}
    assert by_source["Web API"]["implemented"] == 0


def test_read_catalogue_rejects_malformed_graphs(tmp_path: Path) -> None:
    bad = tmp_path / "graph_store.json"
    bad.write_text(json.dumps({"graph_dict": {"T": [["is a"]]}}))
    with pytest.raises(BadInput, match="not \\[relation, object\\]"):
        read_catalogue(bad)
    bad.write_text(json.dumps({"graph_dict": {"SMILES": [["is the input of", "T"]]}}))
    with pytest.raises(BadInput, match="no tool nodes"):
        read_catalogue(bad)
    with pytest.raises(BadInput, match="cannot read"):
        read_catalogue(tmp_path / "empty_dir_without_graph")
