"""Reading and atomically writing benchmark files (SciToolEval-format JSONL)."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from scigate._secrets import redactor
from scigate.errors import BadInput


def read_tasks(path: str | Path) -> list[dict[str, Any]]:
    """The task objects of a JSONL file, every field kept; `BadInput` naming the bad line."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"cannot read benchmark file {p}: {exc}") from None
    tasks = []
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BadInput(f"{p}:{no}: not valid JSON ({exc.msg})") from None
        if not isinstance(raw, dict):
            raise BadInput(f"{p}:{no}: expected a JSON object")
        tasks.append(raw)
    if not tasks:
        raise BadInput(f"benchmark file {p} holds no tasks")
    return tasks


def write_tasks(path: str | Path, tasks: Iterable[dict[str, Any]]) -> int:
    """Write tasks as JSONL through a temporary file renamed into place (never half-written),
    redacted of the caller's credential values (a model-worded task may echo one);
    returns how many were written."""
    p = Path(path)
    redact = redactor()
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    except OSError as exc:
        raise BadInput(f"cannot write {p}: {exc.strerror or exc}") from None
    count = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for task in tasks:
                fh.write(redact(json.dumps(task, ensure_ascii=False, default=str)) + "\n")
                count += 1
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return count
