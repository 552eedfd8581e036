"""How much of the SciToolKG catalogue the library implements.

A catalogue tool is covered when a library tool has the same name or declares it in
`aliases` (an equivalent tool under another name). Counts are reported by catalogue
category and by catalogue source.

Two catalogue formats are read:

- the bundled JSON, ``{"tools": [{"name", "category", "functionality", "inputs",
  "outputs", "source", "security_check"}, ...]}`` (or just the list);
- the original SciToolKG graph as SciToolAgent persists it: a llama_index
  ``SimpleGraphStore`` file ``graph_store.json`` (or the persist directory holding it),
  ``{"graph_dict": {subject: [[relation, object], ...]}}``, built from the triplets of
  SciToolAgent's ``scripts/utils.py::create_triplets``: ``(tool, "is a", category)``,
  ``(tool, "has the functionality that", text)``, ``(tool, "inputs", type)`` and
  ``(type, "is the input of", tool)``, the same for outputs, ``(tool, "is sourced from",
  source)`` and ``(tool, "needs" | "does not need", "Security Check")``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scigate.errors import BadInput
from scigate.tools._tool import Tool

BUNDLED_CATALOGUE = Path(__file__).with_name("data") / "scitoolkg_catalogue.json"


GRAPH_STORE_FILE = "graph_store.json"  # llama_index's default persist name


def _relation(name: str) -> str:
    return " ".join(name.lower().split())


def records_from_graph(graph_dict: Any, path: str | Path) -> list[dict[str, Any]]:
    """Tool records from a SciToolKG `graph_dict` (subject -> [[relation, object], ...])."""
    if not isinstance(graph_dict, dict):
        raise BadInput(f"catalogue {path}: graph_dict is not an object")
    records = []
    for subject, edges in graph_dict.items():
        if not isinstance(edges, list) or not all(
            isinstance(e, list | tuple) and len(e) == 2 and all(isinstance(x, str) for x in e)
            for e in edges
        ):
            raise BadInput(f"catalogue {path}: edges of {subject!r} are not [relation, object]")
        rel = [(_relation(r), o) for r, o in edges]
        if not any(r in ("is a", "has the functionality that") for r, _ in rel):
            continue  # an I/O type, category or source node, not a tool
        first = {r: o for r, o in reversed(rel)}
        record: dict[str, Any] = {
            "name": subject,
            "category": first.get("is a", "?"),
            "functionality": first.get("has the functionality that", ""),
            "inputs": [o for r, o in rel if r == "inputs"],
            "outputs": [o for r, o in rel if r == "outputs"],
            "source": first.get("is sourced from", "?"),
        }
        if "needs" in first or "does not need" in first:
            record["security_check"] = "needs" in first
        records.append(record)
    return records


def read_catalogue(path: str | Path = BUNDLED_CATALOGUE) -> list[dict[str, Any]]:
    """The tool records of a SciToolKG catalogue: the bundled JSON ({"tools": [...]} or a
    list) or the original graph (`graph_store.json` or its directory)."""
    path = Path(path)
    if path.is_dir():
        path = path / GRAPH_STORE_FILE
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise BadInput(f"cannot read catalogue {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise BadInput(f"catalogue {path} is not JSON: {exc}") from None
    if isinstance(data, dict) and "graph_dict" in data:
        records = records_from_graph(data["graph_dict"], path)
        if not records:
            raise BadInput(f"catalogue {path}: the graph has no tool nodes")
        return records
    listed = data.get("tools") if isinstance(data, dict) else data
    if not isinstance(listed, list) or not all(isinstance(r, dict) and "name" in r for r in listed):
        raise BadInput(f"catalogue {path} has no list of tool records with names")
    return listed


def coverage(catalogue: list[dict[str, Any]], tools: dict[str, Tool]) -> dict[str, Any]:
    """Coverage of `catalogue` by `tools`: totals, per category and per source, with names."""
    by_name = {t.name: t.name for t in tools.values()}
    for t in tools.values():
        for alias in t.spec.aliases:
            by_name.setdefault(alias, t.name)
    rows: list[dict[str, Any]] = []
    for rec in catalogue:
        name = rec["name"]
        implemented_by = by_name.get(name)
        rows.append(
            {
                "name": name,
                "category": rec.get("category", "?"),
                "source": rec.get("source", "?"),
                "implemented_by": implemented_by,
                "match": None
                if implemented_by is None
                else ("exact" if implemented_by == name else "alias"),
            }
        )

    def group(key: str) -> list[dict[str, Any]]:
        table: dict[str, dict[str, int]] = {}
        for row in rows:
            entry = table.setdefault(
                row[key], {"total": 0, "implemented": 0, "exact": 0, "alias": 0}
            )
            entry["total"] += 1
            if row["match"]:
                entry["implemented"] += 1
                entry[row["match"]] += 1
        return [
            {key: k, **v, "percent": round(100 * v["implemented"] / v["total"], 1)}
            for k, v in sorted(table.items(), key=lambda kv: (-kv[1]["total"], kv[0]))
        ]

    implemented = sum(1 for r in rows if r["match"])
    catalogue_names = {r["name"] for r in rows}
    return {
        "catalogue_tools": len(rows),
        "implemented": implemented,
        "exact": sum(1 for r in rows if r["match"] == "exact"),
        "alias": sum(1 for r in rows if r["match"] == "alias"),
        "percent": round(100 * implemented / len(rows), 1) if rows else 0.0,
        "library_tools": len(tools),
        "library_tools_not_in_catalogue": sorted(
            t.name
            for t in tools.values()
            if t.name not in catalogue_names and not set(t.spec.aliases) & catalogue_names
        ),
        "by_category": group("category"),
        "by_source": group("source"),
        "tools": rows,
    }
