"""Writing files whole or not at all: the one home for atomic writes.

Every output file scigate writes (reports, exports, releases, benchmark files, evaluation
results, cached vectors) goes through a temporary file beside its destination that is
flushed, fsynced and renamed into place; on any failure the temporary file is removed and
the destination is untouched. A destination that cannot be written is bad input (one line,
exit 2 on the CLI), never a traceback. Temporary names are unique per call (`mkstemp`), so
two writers of one destination never share a temporary file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from scigate.errors import BadInput

__all__ = ["atomic_path", "atomic_writer", "write_bytes_atomic", "write_text_atomic"]


def _cannot(path: Path, exc: OSError) -> BadInput:
    return BadInput(f"cannot write {path}: {exc.strerror or exc}")


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside `path` for a library that writes by name (pyarrow, numpy);
    renamed onto `path` when the block ends without an error, removed otherwise."""
    dest = Path(path)
    if dest.is_dir():
        raise BadInput(f"cannot write {dest}: it is a directory")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
        os.close(fd)
    except OSError as exc:
        raise _cannot(dest, exc) from None
    tmp = Path(name)
    try:
        yield tmp
        os.replace(tmp, dest)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise _cannot(dest, exc) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def atomic_writer(path: str | Path, mode: str = "w") -> Iterator[IO[Any]]:
    """An open file ("w": text in UTF-8, "wb": bytes) whose content replaces `path` only
    when the block ends without an error, flushed and fsynced first."""
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', not {mode!r}")
    with atomic_path(path) as tmp:
        try:
            fh = open(tmp, mode, encoding=None if "b" in mode else "utf-8")  # noqa: SIM115
        except OSError as exc:
            raise _cannot(Path(path), exc) from None
        with fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write `text` (UTF-8) to `path` whole or not at all."""
    with atomic_writer(path) as fh:
        fh.write(text)


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write `data` to `path` whole or not at all."""
    with atomic_writer(path, "wb") as fh:
        fh.write(data)
