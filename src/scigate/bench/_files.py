"""Reading and atomically writing benchmark files (SciToolEval-format JSONL)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from scigate._atomic import atomic_writer
from scigate._jsonl import read_objects
from scigate._secrets import redactor


def read_tasks(path: str | Path) -> list[dict[str, Any]]:
    """The task objects of a JSONL file, every field kept; `BadInput` naming the bad line."""
    return [raw for _, raw in read_objects(path, "benchmark file")]


def write_tasks(path: str | Path, tasks: Iterable[dict[str, Any]]) -> int:
    """Write tasks as JSONL through a temporary file renamed into place (never half-written),
    redacted of the caller's credential values (a model-worded task may echo one);
    returns how many were written."""
    p = Path(path)
    redact = redactor()
    count = 0
    with atomic_writer(p) as fh:
        for task in tasks:
            fh.write(redact(json.dumps(task, ensure_ascii=False, default=str)) + "\n")
            count += 1
    return count
