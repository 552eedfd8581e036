"""The tool graph: I/O edges, derived tool view, paths, expansion, JSON round trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scigate.errors import BadInput
from scigate.tools import ToolGraph, library_graph, load_library, tool


def _registry() -> dict:
    reg: dict = {}

    def make(name: str, inputs: list[str], outputs: list[str]) -> None:
        @tool(name=name, functionality=f"{name} tool", inputs=inputs, outputs=outputs,
              category="chemistry", source="test", registry=reg)  # fmt: skip
        def body(x: str) -> str:
            return x

    make("SMILESToInChI", ["SMILES"], ["InChI"])
    make("InChIToInChIKey", ["InChI"], ["InChIKey"])
    make("SMILESToInChIKey", ["SMILES"], ["InChIKey"])
    make("IsValidInChIKey", ["InChIKey"], ["True or False"])
    make("Canonicalize", ["SMILES"], ["SMILES"])
    make("ProtLen", ["Protein sequence"], ["protein length"])
    make("Mutate", ["protein sequence"], ["protein sequence"])
    return reg


@pytest.fixture
def graph() -> ToolGraph:
    return ToolGraph.from_tools(_registry().values())


def test_io_edges(graph: ToolGraph) -> None:
    assert graph.consumers("SMILES") == ["Canonicalize", "SMILESToInChI", "SMILESToInChIKey"]
    assert graph.producers("InChIKey") == ["InChIToInChIKey", "SMILESToInChIKey"]
    assert graph.successors("SMILESToInChI") == ["InChIToInChIKey"]
    assert graph.predecessors("InChIToInChIKey") == ["SMILESToInChI"]
    assert graph.graph.has_edge("type:SMILES", "tool:SMILESToInChI")
    assert graph.graph.has_edge("tool:SMILESToInChI", "type:InChI")


def test_case_variants_are_one_type_node(graph: ToolGraph) -> None:
    assert "Protein sequence" not in graph.types
    assert graph.consumers("Protein sequence") == ["Mutate", "ProtLen"]
    assert "ProtLen" in graph.successors("Mutate")


def test_tool_view_carries_the_connecting_types(graph: ToolGraph) -> None:
    view = graph.tool_view()
    assert view["SMILESToInChI"]["InChIToInChIKey"]["via"] == ["InChI"]
    assert not view.has_edge("Canonicalize", "Canonicalize")  # no self-loops
    assert view.has_edge("Canonicalize", "SMILESToInChI")


def test_paths_smiles_to_inchikey(graph: ToolGraph) -> None:
    paths = graph.paths("SMILES", "InChIKey", max_len=2)
    assert paths[0] == ["SMILESToInChIKey"]
    assert ["SMILESToInChI", "InChIToInChIKey"] in paths
    assert ["Canonicalize", "SMILESToInChIKey"] in paths
    assert all(len(p) <= 2 for p in paths)
    assert graph.paths("SMILES", "InChIKey", max_len=1) == [["SMILESToInChIKey"]]
    assert graph.paths("InChIKey", "SMILES", max_len=3) == []
    longer = graph.paths("SMILES", "True or False", max_len=3)
    assert ["SMILESToInChI", "InChIToInChIKey", "IsValidInChIKey"] in longer


def test_expand_follows_io_edges_with_a_cap(graph: ToolGraph) -> None:
    one_hop = graph.expand(["InChIToInChIKey"], hops=1, max_size=20)
    assert one_hop[0] == "InChIToInChIKey"
    assert set(one_hop) == {"InChIToInChIKey", "SMILESToInChI", "IsValidInChIKey"}
    two_hops = graph.expand(["InChIToInChIKey"], hops=2, max_size=20)
    assert "Canonicalize" in two_hops and "ProtLen" not in two_hops
    assert len(graph.expand(["InChIToInChIKey"], hops=3, max_size=2)) == 2
    allowed = graph.expand(["InChIToInChIKey"], hops=2, allowed={"IsValidInChIKey"})
    assert set(allowed) == {"InChIToInChIKey", "IsValidInChIKey"}
    assert graph.expand(["NotATool"]) == []


def test_json_round_trip(graph: ToolGraph, tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    graph.save(path)
    data = json.loads(path.read_text())
    assert data["format"] == "scigate-tool-graph"
    assert {"source": "InChI", "target": "InChIToInChIKey", "relation": "input"} in data["edges"]
    again = ToolGraph.load(path)
    assert again.to_json() == graph.to_json()
    assert sorted(again.graph.edges) == sorted(graph.graph.edges)
    assert again.ontology("ProtLen")["inputs"] == ["Protein sequence"]


def test_bad_graph_files(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text('{"format": "other"}')
    with pytest.raises(BadInput, match="not a scigate tool graph"):
        ToolGraph.load(tmp_path / "x.json")
    with pytest.raises(BadInput, match="cannot read"):
        ToolGraph.load(tmp_path / "missing.json")


def test_remove_and_replace_tools(graph: ToolGraph) -> None:
    graph.remove_tool("IsValidInChIKey")
    assert "True or False" not in graph.types and not graph.has_tool("IsValidInChIKey")
    graph.add_tool({"name": "ProtLen", "inputs": ["DNA sequence"], "outputs": ["length"]})
    assert graph.consumers("protein sequence") == ["Mutate"]
    assert graph.consumers("DNA sequence") == ["ProtLen"]


def test_library_graph_links_smiles_inchi_inchikey() -> None:
    tools = load_library()
    if not {"SMILESToInChI", "InChIToInChIKey"} <= set(tools):
        pytest.skip("chemistry tools not present yet")
    graph = library_graph()
    assert len(graph.tools) == len(tools)
    assert "InChIToInChIKey" in graph.successors("SMILESToInChI")
    assert ["SMILESToInChI", "InChIToInChIKey"] in graph.paths("SMILES", "InChIKey", max_len=2)
