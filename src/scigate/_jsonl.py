"""Reading JSONL files of objects with one-line errors (a leaf module: no scigate imports
besides errors), shared by the agent benchmarks and the bench package."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scigate.errors import BadInput


def read_objects(path: str | Path, what: str = "file") -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) for every non-blank line of a JSONL file; `BadInput` naming
    the file (as `what`) or the line when it cannot be read, is not JSON or not an object,
    or holds no objects at all."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"cannot read {what} {p}: {exc}") from None
    rows = []
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BadInput(f"{p}:{no}: not valid JSON ({exc.msg})") from None
        if not isinstance(raw, dict):
            raise BadInput(f"{p}:{no}: expected a JSON object")
        rows.append((no, raw))
    if not rows:
        raise BadInput(f"{what} {p} holds no tasks")
    return rows
