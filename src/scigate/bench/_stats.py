"""Table A5 statistics of a built benchmark, beside the paper's figures.

Per level, from the tasks as built: path length (mean, max), input parameters (the
entities of `Parameter`), constraints (of the selection rule), attributes (distinct tool
outputs the answer uses: the objective and the constrained outputs, or the outputs of a
single-entity task), reasoning depth (the longest dependency chain of the typed plan), and
reuse (tool paths that more than one task of the level follows: the skills a solved task
leaves for the next).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from scigate.bench._answer import task_entities, task_path

# OpenSciToolBench, Table A5 (SciToolAgent-Evo paper): per level.
PAPER_A5: dict[int, dict[str, float]] = {
    1: {
        "tasks": 262,
        "path_mean": 1.57,
        "path_max": 2,
        "parameters": 1.00,
        "constraints": 0.00,
        "attributes": 1.14,
        "depth": 1.00,
        "reuse": 54,
    },
    2: {
        "tasks": 238,
        "path_mean": 2.26,
        "path_max": 4,
        "parameters": 3.23,
        "constraints": 1.84,
        "attributes": 1.45,
        "depth": 2.18,
        "reuse": 31,
    },
    3: {
        "tasks": 213,
        "path_mean": 3.68,
        "path_max": 6,
        "parameters": 4.11,
        "constraints": 3.25,
        "attributes": 2.61,
        "depth": 3.52,
        "reuse": 26,
    },
    4: {
        "tasks": 187,
        "path_mean": 5.21,
        "path_max": 10,
        "parameters": 1.61,
        "constraints": 4.76,
        "attributes": 4.12,
        "depth": 4.88,
        "reuse": 17,
    },
}
COLUMNS = (
    "tasks",
    "path_mean",
    "path_max",
    "parameters",
    "constraints",
    "attributes",
    "depth",
    "reuse",
)


def _depth(task: dict[str, Any], path: list[str]) -> int:
    """The longest chain of steps each consuming the previous one's output, from the
    executed plan's edges (the path's length when it has none)."""
    edges = (task.get("plan") or {}).get("edges")
    if not isinstance(edges, list):
        return len(path)
    parents: dict[int, list[int]] = {}
    for source, target in edges:
        if str(source).startswith("step "):
            parents.setdefault(int(str(target).split()[1]), []).append(int(str(source).split()[1]))
    depth: dict[int, int] = {}
    for i in range(1, len(path) + 1):  # steps are numbered in path order
        depth[i] = 1 + max((depth[j] for j in parents.get(i, []) if j in depth), default=0)
    return max(depth.values(), default=0)


def _attributes(task: dict[str, Any], path: list[str]) -> int:
    rule = (task.get("plan") or {}).get("rule")
    if rule and rule.get("op") in ("max", "min"):
        used = {rule.get("output"), *(c.get("output") for c in rule.get("constraints") or [])}
        return len(used - {None})
    runs = (task.get("plan") or {}).get("outputs")
    if isinstance(runs, list) and runs:
        return len(runs)
    return 1


def task_shape(task: dict[str, Any]) -> dict[str, Any]:
    """One task's Table A5 figures (what `table_a5` aggregates; a build stores it with
    each accepted attempt, so `bench report` can print the table from the run database)."""
    path = task_path(task)
    rule = (task.get("plan") or {}).get("rule") or {}
    return {
        "level": int(task.get("level") or 0),
        "path": path,
        "parameters": len(task_entities(task)),
        "constraints": len(rule.get("constraints") or []),
        "attributes": _attributes(task, path),
        "depth": _depth(task, path),
        "entities": [str(e)[:80] for e in task_entities(task)],
    }


def aggregate(shapes: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per level ("1".."4"): the built figures of COLUMNS (and distinct paths and
    entities) and the paper's, side by side."""
    by_level: dict[int, list[dict[str, Any]]] = {}
    for sh in shapes:
        by_level.setdefault(int(sh["level"]), []).append(sh)
    out: dict[str, dict[str, Any]] = {}
    for level in sorted(by_level):
        rows = by_level[level]
        n = len(rows)
        paths = Counter(tuple(r["path"]) for r in rows)

        def mean(key: str, rows: list[dict[str, Any]] = rows) -> float:
            return round(sum(r[key] for r in rows) / len(rows), 2)

        built = {
            "tasks": n,
            "path_mean": round(sum(len(r["path"]) for r in rows) / n, 2),
            "path_max": max(len(r["path"]) for r in rows),
            "parameters": mean("parameters"),
            "constraints": mean("constraints"),
            "attributes": mean("attributes"),
            "depth": mean("depth"),
            "reuse": sum(1 for c in paths.values() if c > 1),
            "distinct_paths": len(paths),
            "distinct_entities": len({e for r in rows for e in r.get("entities", [])}),
        }
        out[str(level)] = {"built": built, "paper": PAPER_A5.get(level)}
    return out


def table_a5(tasks: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Table A5 of `tasks` per level, beside the paper's figures."""
    return aggregate([task_shape(t) for t in tasks])


def a5_lines(table: dict[str, dict[str, Any]]) -> list[str]:
    """Markdown table rows: each level's built figure with the paper's in parentheses."""
    head = "| level | " + " | ".join(c.replace("_", " ") for c in COLUMNS) + " |"
    lines = [head, "| --- |" + " --- |" * len(COLUMNS)]
    for level, row in table.items():
        paper = row["paper"] or {}
        cells = [
            f"{row['built'][c]:g} ({paper[c]:g})" if c in paper else f"{row['built'][c]:g}"
            for c in COLUMNS
        ]
        lines.append(f"| L{level} | " + " | ".join(cells) + " |")
    return lines


__all__ = ["COLUMNS", "PAPER_A5", "a5_lines", "aggregate", "table_a5", "task_shape"]
