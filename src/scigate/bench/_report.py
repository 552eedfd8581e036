"""The funnel of a `bench build` run from the run database: attempts per level and
format, how many were accepted, and where the others were rejected: by stage, and by
check (an item's acceptance checks, `_compose.CHECKS`, then the later stages), as the
gate funnel counts rejections per screen; and the accepted tasks' Table A5 statistics."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from scigate.bench._attempt import STAGES
from scigate.bench._compose import CHECKS
from scigate.bench._stats import aggregate
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
    checks: Counter[str] = Counter()
    passed: Counter[str] = Counter()
    shapes = []
    for a in attempts:
        d = a["detail"]
        key = f"L{d.get('level')}/{d.get('format')}"
        cell = cells.setdefault(key, {"attempts": 0, "accepted": 0, "rejected": Counter()})
        cell["attempts"] += 1
        passed.update(list(d.get("checks") or {}))
        if a["status"] == "accepted":
            cell["accepted"] += 1
            if d.get("shape"):
                shapes.append(d["shape"])
        else:
            stage = d.get("stage", "?")
            # a compose rejection is counted by the check that failed (margin, ...)
            check = d.get("check") or stage
            cell["rejected"][check if stage == "compose" else stage] += 1
            stages[stage] += 1
            checks[check] += 1
    return {
        "run_id": run["id"],
        "status": run["status"],
        "attempts": len(attempts),
        "accepted": sum(c["accepted"] for c in cells.values()),
        "rejected": dict(stages),
        "checks": {
            c: {"passed": passed[c], "rejected": checks[c]}
            for c in [*CHECKS, *STAGES]
            if passed[c] or checks[c]
        },
        "cells": {k: {**v, "rejected": dict(v["rejected"])} for k, v in sorted(cells.items())},
        # per level, the accepted tasks' Table A5 figures beside the paper's
        "table_a5": aggregate(shapes),
    }
