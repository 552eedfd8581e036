"""The known/unknown split: seeded, stratified, hides attributes, migrates, persists."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from scigate.errors import BadInput
from scigate.tools import ToolSplit, load_library, make_split


def _records() -> list[dict]:
    out = []
    for cat, n in [("chemistry", 10), ("biology", 6), ("materials", 3), ("general", 1)]:
        for i in range(n):
            out.append(
                {
                    "name": f"{cat}{i}",
                    "functionality": f"Compute property number {i} of a {cat} object from its input carefully.",
                    "inputs": ["SMILES"],
                    "outputs": ["number"],
                    "category": cat,
                    "source": "test",
                    "objects": ["thing"],
                    "scenarios": ["testing"],
                }
            )
    return out


def test_split_is_reproducible_and_seed_dependent() -> None:
    a, b = make_split(_records(), seed=7), make_split(_records(), seed=7)
    assert a.known_names == b.known_names
    others = {tuple(make_split(_records(), seed=s).known_names) for s in range(5)}
    assert len(others) > 1


def test_split_is_stratified_by_category() -> None:
    split = make_split(_records(), seed=1, known_ratio=0.5)
    known = Counter(split.known[n]["category"] for n in split.known)
    assert known == {"chemistry": 5, "biology": 3, "materials": 2, "general": 1}
    assert set(split.known).isdisjoint(split.unknown)
    assert len(split.known) + len(split.unknown) == 20
    assert len(make_split(_records(), known_ratio=0.0).known) == 0
    with pytest.raises(BadInput):
        make_split(_records(), known_ratio=1.5)


def test_unknown_tools_expose_only_minimal_attributes() -> None:
    split = make_split(_records(), seed=3)
    name = split.unknown_names[0]
    view = split.view(name)
    assert set(view) == {"name", "functionality", "inputs", "outputs"}
    assert view["functionality"].endswith("...")
    assert len(view["functionality"].split()) <= 7
    known = split.view(split.known_names[0])
    assert {"category", "objects", "scenarios"} <= set(known)
    with pytest.raises(BadInput):
        split.view("nope")


def test_migration_moves_a_tool_into_the_known_graph() -> None:
    split = make_split(_records(), seed=3)
    name = split.unknown_names[0]
    assert not split.known_graph().has_tool(name)
    with pytest.raises(BadInput, match="incomplete ontology"):
        split.migrate(name, {"inputs": ["SMILES"]})
    record = split.migrate(
        name,
        {
            "functionality": "Computes a property.",
            "inputs": ["SMILES"],
            "outputs": ["molecular weight"],
            "category": "chemistry",
            "objects": ["small molecule"],
            "scenarios": ["screening"],
        },
    )
    assert record["outputs"] == ["molecular weight"]
    assert split.is_known(name) and name not in split.unknown and split.migrated == [name]
    assert split.known_graph().producers("molecular weight") == [name]
    with pytest.raises(BadInput, match="already known"):
        split.migrate(name, record)
    with pytest.raises(BadInput, match="not an unknown tool"):
        split.migrate("nope", record)


def test_split_round_trips_through_json(tmp_path: Path) -> None:
    split = make_split(_records(), seed=11)
    split.migrate(split.unknown_names[0], {"functionality": "x", "inputs": [], "outputs": []})
    path = tmp_path / "split.json"
    split.save(path)
    again = ToolSplit.load(path)
    assert again == split
    assert again.known_names == split.known_names and again.migrated == split.migrated
    (tmp_path / "bad.json").write_text('{"seed": "x"}')
    with pytest.raises(BadInput):
        ToolSplit.load(tmp_path / "bad.json")


def test_split_of_the_library() -> None:
    tools = load_library()
    split = make_split(seed=0)
    assert len(split.known) + len(split.unknown) == len(tools)
    assert abs(len(split.known) - len(tools) / 2) <= 5  # half, per category, rounded


def test_split_from_named_known_tools() -> None:
    seeded = make_split(_records(), seed=5, known_ratio=0.5)
    again = ToolSplit.from_known(_records(), seeded.known_names, seed=5, known_ratio=0.5)
    assert again == seeded
    chosen = ToolSplit.from_known(_records(), ["chemistry0", "biology1", "not-a-tool"])
    assert chosen.known_names == ["biology1", "chemistry0"]
    assert chosen.known_ratio == pytest.approx(2 / 20) and len(chosen.unknown) == 18
    view = chosen.view("chemistry1")
    assert set(view) == {"name", "functionality", "inputs", "outputs"}
    assert view["functionality"].endswith("...")
    assert chosen.known["chemistry0"]["scenarios"] == ["testing"]
