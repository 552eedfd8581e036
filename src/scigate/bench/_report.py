"""The funnel of a `bench build` run from the run database: attempts per level and
format, how many were accepted, and where the others were rejected."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from scigate.errors import BadInput


def build_funnel(db: str | Path, run_id: str | None = None) -> dict[str, Any]:
    """Per (level, format) cell: attempts, accepted and rejections by stage, for one build
    run (default: the latest)."""
    from scigate.store import Store

    if not Path(db).exists():
        raise BadInput(f"database not found: {db}")
    with Store(db, create=False) as store:
        run = store.get_run(run_id) if run_id else store.latest_run("bench-build")
        if run is None or run["kind"] != "bench-build":
            raise BadInput(f"no bench build run {run_id or ''} in {db}".replace("  ", " "))
        attempts = store.attempts(run["id"])
    cells: dict[str, dict[str, Any]] = {}
    stages: Counter[str] = Counter()
    for a in attempts:
        d = a["detail"]
        key = f"L{d.get('level')}/{d.get('format')}"
        cell = cells.setdefault(key, {"attempts": 0, "accepted": 0, "rejected": Counter()})
        cell["attempts"] += 1
        if a["status"] == "accepted":
            cell["accepted"] += 1
        else:
            cell["rejected"][d.get("stage", "?")] += 1
            stages[d.get("stage", "?")] += 1
    return {
        "run_id": run["id"],
        "status": run["status"],
        "attempts": len(attempts),
        "accepted": sum(c["accepted"] for c in cells.values()),
        "rejected": dict(stages),
        "cells": {k: {**v, "rejected": dict(v["rejected"])} for k, v in sorted(cells.items())},
    }
