"""The output directory of an evaluation, written as it runs so that it can be resumed.

``manifest.json`` holds what the evaluation is (method, settings, a digest of the tasks,
the models); ``rows.jsonl`` gets one row per finished task, flushed and fsynced before
the next one is reported, keyed by (run, index); ``accumulation.jsonl`` gets one report
per finished knowledge accumulation. A kill can tear only the last, unterminated line of
``rows.jsonl``: resuming drops it and runs every (run, index) that has no row.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from scigate._atomic import write_text_atomic
from scigate._secrets import redact
from scigate.errors import BadInput

MANIFEST = "manifest.json"
ROWS = "rows.jsonl"
ACCUMULATION = "accumulation.jsonl"


def atomic_write(path: Path, text: str) -> None:
    """Write `text` to `path` whole or not at all (`scigate._atomic`)."""
    write_text_atomic(path, text)


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The complete rows of a JSONL file keyed by (run, epoch, index); a torn last line (no
    newline: the process was killed while writing it) is cut off the file and dropped."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise BadInput(f"cannot read {path}: {exc}") from None
    end = data.rfind(b"\n") + 1
    if end < len(data):
        with open(path, "r+b") as fh:
            fh.truncate(end)
    rows: list[dict[str, Any]] = []
    seen: set[tuple[int, int, int]] = set()
    for no, line in enumerate(data[:end].splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            key = (int(row["run"]), int(row.get("epoch", 0)), int(row["index"]))
        except (ValueError, TypeError, KeyError):
            raise BadInput(f"{path}:{no}: not a row of an evaluation; cannot resume") from None
        if key not in seen:
            seen.add(key)
            rows.append(row)
    return rows


class EvalDir:
    """An evaluation's output directory, opened fresh or to resume."""

    def __init__(self, directory: str | Path, manifest: dict[str, Any], *, resume: bool) -> None:
        self.path = Path(directory)
        manifest = json.loads(json.dumps(manifest, default=str))  # as stored (tuples: lists)
        rows_file = self.path / ROWS
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            stored = self._manifest()
            if resume:
                if stored is not None and stored != manifest:
                    differ = sorted(
                        k for k in {*stored, *manifest} if stored.get(k) != manifest.get(k)
                    )
                    raise BadInput(
                        f"--resume: {self.path} holds an evaluation with other settings "
                        f"({', '.join(differ)}); use another --out for this one"
                    )
                self.rows = read_rows(rows_file)
                self.accumulation = read_jsonl(self.path / ACCUMULATION)
            else:
                if rows_file.exists() and rows_file.stat().st_size > 0:
                    raise BadInput(
                        f"{rows_file} already holds rows: pass --resume to continue that "
                        "evaluation, or choose another --out"
                    )
                self.rows, self.accumulation = [], []
                self._clear_leftovers()
            atomic_write(self.path / MANIFEST, json.dumps(manifest, indent=2, default=str))
            self._rows = open(rows_file, "ab")  # noqa: SIM115 - held open while tasks end
        except OSError as exc:
            raise BadInput(f"cannot write the evaluation to {self.path}: {exc}") from None

    def _manifest(self) -> dict[str, Any] | None:
        try:
            return json.loads((self.path / MANIFEST).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise BadInput(f"{self.path / MANIFEST} is unreadable: {exc}") from None

    def _clear_leftovers(self) -> None:
        """A fresh start must not inherit what an earlier start left (it had no rows)."""
        for p in [self.path / ACCUMULATION, *self.path.glob("memory-run*.db*")]:
            with contextlib.suppress(FileNotFoundError):
                p.unlink()

    def memory_path(self, run: int) -> Path:
        """Where Evo's memory of run `run` lives (kept, so that a resumed run has it)."""
        return self.path / f"memory-run{run}.db"

    def append_row(self, row: dict[str, Any]) -> None:
        """Append one finished task's row and make it durable before returning."""
        self._rows.write((redact(json.dumps(row, default=str)) + "\n").encode())
        self._rows.flush()
        os.fsync(self._rows.fileno())

    def append_accumulation(self, entry: dict[str, Any]) -> None:
        """Record a finished knowledge accumulation (a resumed run does not repeat it)."""
        with open(self.path / ACCUMULATION, "a", encoding="utf-8") as fh:
            fh.write(redact(json.dumps(entry, default=str)) + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def close(self) -> None:
        """Close the rows file."""
        self._rows.close()


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Complete JSON lines of a file (a torn last line is ignored); [] when it is missing."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    out = []
    for line in data[: data.rfind(b"\n") + 1].splitlines():
        with contextlib.suppress(ValueError):
            value = json.loads(line)
            if isinstance(value, dict):
                out.append(value)
    return out
