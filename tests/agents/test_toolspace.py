"""ToolSpace is the library's split, known graph and retrieval index seen from an agent."""

import pytest

from scigate.agents import Memory, ToolSpace
from scigate.errors import BadInput
from scigate.tools import ToolSplit, make_split

HIDDEN = {"InChIToInChIKey", "SMILESToInChIKey"}


@pytest.fixture
def space(tools, embedder):
    return ToolSpace(tools, set(tools) - HIDDEN, embedder=embedder)


def test_split_graph_and_views_come_from_the_library(space, tools):
    assert isinstance(space.split, ToolSplit) and space.unknown == HIDDEN
    assert space.known == set(space.split.known) == set(tools) - HIDDEN
    assert space.graph.tools == sorted(space.known)
    sparse = space.ontology("InChIToInChIKey")
    assert set(sparse) == {"name", "functionality", "inputs", "outputs"}
    assert space.describe("InChIToInChIKey") == (
        f"InChIToInChIKey: {sparse['functionality']} | Input: InChI | Output: InChIKey"
    )
    assert "| Category: chemistry" in space.describe("SMILESToInChI")
    assert space.io_types("SMILESToInChI") == (["SMILES"], ["InChI"])
    with pytest.raises(BadInput, match="differ"):
        ToolSpace(tools, make_split({"SMILESToWeight": tools["SMILESToWeight"]}))


def test_retrieval_is_restricted_and_expanded_along_the_known_graph(space):
    known = space.retrieve("convert InChI string into InChIKey", k=5)
    assert len(known) == 5 and not {n for n, _ in known} & HIDDEN
    assert all(0.0 <= s <= 1.0 for _, s in known)
    unknown = space.retrieve("convert InChI string into InChIKey", k=5, among="unknown")
    assert unknown[0][0] == "InChIToInChIKey" and {n for n, _ in unknown} <= HIDDEN
    request = "convert SMILES string to standard InChI"
    seeds = [n for n, _ in space.retrieve(request, k=5)]
    names = [n for n, _ in space.retrieve(request, k=5, hops=3, limit=10)]
    assert len(names) == 10 and names[:5] == seeds
    assert not set(names) & HIDDEN
    reachable = set(space.graph.expand(names[:5], hops=3, max_size=len(space.known)))
    assert set(names[5:]) <= reachable
    assert space.retrieve("   ") == []


def test_migration_moves_a_tool_into_graph_and_index(space):
    query = "zorbulate an InChI into its InChIKey"
    space.retrieve(query, k=1)  # the index exists before the migration
    assert "InChIToInChIKey" not in space.graph.producers("InChIKey")
    space.migrate(
        "InChIToInChIKey",
        {"functionality": "Zorbulate an InChI into its InChIKey.", "category": "chemistry"},
    )
    assert space.is_known("InChIToInChIKey") and space.split.migrated == ["InChIToInChIKey"]
    onto = space.ontology("InChIToInChIKey")
    assert onto["inputs"] == ["InChI"] and onto["outputs"] == ["InChIKey"]  # kept from the view
    assert "InChIToInChIKey" in space.graph.producers("InChIKey")
    assert space.retrieve(query, k=1)[0][0] == "InChIToInChIKey"
    assert space.retrieve(query, k=5, among="unknown")[0][0] == "SMILESToInChIKey"
    space.migrate("InChIToInChIKey", {"functionality": "again"})  # already known: no change
    space.migrate("NoSuchTool", {"functionality": "x"})
    assert space.ontology("InChIToInChIKey")["functionality"].startswith("Zorbulate")


def test_memory_persists_the_split_and_replays_migrations(tmp_path, tools):
    split = make_split(tools, seed=4, known_ratio=0.5)
    name = split.unknown_names[0]
    with Memory(tmp_path / "m.db") as mem:
        assert mem.split(tools) is None
        mem.save_split(split)
        mem.migrate_tool(name, {"functionality": "done", "inputs": ["x"], "outputs": ["y"]})
        restored = mem.split(tools)
        assert restored == make_split(tools, seed=4, known_ratio=0.5)
        assert mem.split_config() == {"ratio": 0.5, "seed": 4}
        more = dict(tools)
        del more[split.known_names[0]]
        assert split.known_names[0] not in mem.split(more).known
    split.migrate(name, {"functionality": "done", "inputs": ["x"], "outputs": ["y"]})
    with Memory(tmp_path / "m2.db") as mem:
        mem.save_split(split)
        assert mem.migrations() == {name: split.known[name]}
        assert mem.summary()["migrated_tools"] == 1
        assert mem.split(tools).unknown_names == sorted(set(split.unknown_names) | {name})
