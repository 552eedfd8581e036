"""Writing output files whole or not at all."""

from __future__ import annotations

from pathlib import Path

from scigate.errors import BadInput


def write_text_atomic(path: Path, text: str) -> None:
    """Write `text` to a temporary file beside `path`, then rename it into place; a file
    that cannot be written is bad input, and no temporary file is left behind."""
    if path.is_dir():
        raise BadInput(f"cannot write {path}: it is a directory")
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise BadInput(f"cannot write {path}: {e.strerror or e}") from None
