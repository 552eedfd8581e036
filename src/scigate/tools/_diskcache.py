"""Small on-disk caches of what every process would otherwise rebuild: the tool
library's argument schemas and the search index's vectors.

Files live under the user cache directory (`$SCIGATE_CACHE_DIR`, else
`$XDG_CACHE_HOME/scigate`, else `~/.cache/scigate`), in `library/`. Each file records the
key it was built for (a hash of the library's sources and the versions that shape the
content); a missing, stale, unreadable or corrupted file is ignored and rebuilt, never
trusted. Writes are atomic (a temporary file renamed into place) and best effort: a
read-only cache directory only costs the rebuild. Nothing is unpickled.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from scigate._cachedir import user_cache_dir

SUBDIR = "library"


def cache_dir() -> Path:
    """scigate's user cache directory (`scigate._cachedir.user_cache_dir`)."""
    return user_cache_dir()


@lru_cache(maxsize=1)
def library_key() -> str:
    """A hash of the tool library's content: scigate's version, Python's and pydantic's,
    and every file of `scigate.tools` (sources and bundled data)."""
    import pydantic

    from scigate import __version__

    root = Path(__file__).resolve().parent
    digest = hashlib.sha256(f"{__version__}|{sys.version}|{pydantic.VERSION}".encode())
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(root)).encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _path(name: str) -> Path:
    return cache_dir() / SUBDIR / name


def _write_atomic(path: Path, data: bytes) -> None:
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def read_json(name: str, key: str) -> Any | None:
    """The data stored under `name` for `key`; None when missing, stale or corrupted."""
    try:
        stored = json.loads(_path(name).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(stored, dict) or stored.get("key") != key:
        return None
    return stored.get("data")


def write_json(name: str, key: str, data: Any) -> None:
    """Store `data` under `name` for `key` (best effort)."""
    payload = json.dumps({"key": key, "data": data}, ensure_ascii=False, allow_nan=False)
    _write_atomic(_path(name), payload.encode("utf-8"))


def read_array(name: str, key: str, shape: tuple[int, ...]) -> Any | None:
    """The array stored under `name` for `key` with exactly `shape`; None otherwise."""
    import numpy as np

    try:
        with np.load(_path(name), allow_pickle=False) as stored:
            if str(stored["key"]) != key:
                return None
            data = stored["data"]
    except Exception:  # missing, truncated, not an npz, wrong fields: rebuild
        return None
    if data.shape != shape or not np.isfinite(data).all():
        return None
    return data


def write_array(name: str, key: str, data: Any) -> None:
    """Store the array `data` under `name` for `key` (best effort)."""
    import io

    import numpy as np

    buffer = io.BytesIO()
    np.savez(buffer, key=np.array(key), data=data)
    _write_atomic(_path(name), buffer.getvalue())
