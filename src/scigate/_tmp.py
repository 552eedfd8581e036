"""Temporary directories that scigate makes: pid-stamped, removed on every exit path,
and swept at start when the process that made them was killed.

Names are `scigate-<kind>-<pid>-<random>` under `tempfile.gettempdir()`. A directory is
removed by its context manager (exceptions and Ctrl-C included; the CLI turns SIGTERM
into Ctrl-C) or, for `scigate_mkdtemp`, at interpreter exit; what a SIGKILL leaves behind
is removed by `sweep_stale_tempdirs()`, which the CLI calls at start: every directory of
this pattern whose pid is no longer alive.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
from pathlib import Path

from scigate._process import pid_alive

__all__ = ["scigate_mkdtemp", "scigate_tempdir", "sweep_stale_tempdirs"]

_NAME = re.compile(r"^scigate-(?P<kind>[A-Za-z0-9_]+)-(?P<pid>\d+)-[^/]+$")


def _prefix(kind: str) -> str:
    if not re.fullmatch(r"[A-Za-z0-9_]+", kind):
        raise ValueError(f"temporary directory kind must be letters, digits or _: {kind!r}")
    return f"scigate-{kind}-{os.getpid()}-"


def scigate_tempdir(kind: str, dir: str | Path | None = None) -> tempfile.TemporaryDirectory:
    """A `tempfile.TemporaryDirectory` named `scigate-<kind>-<pid>-<random>`: use it as a
    context manager (it yields the path as a string) or call `.cleanup()`."""
    return tempfile.TemporaryDirectory(prefix=_prefix(kind), dir=dir, ignore_cleanup_errors=True)


_AT_EXIT: set[str] = set()
_OWNER = [0]


def _remove_at_exit() -> None:
    if os.getpid() != _OWNER[0]:  # a forked child must not remove its parent's directories
        return
    for path in list(_AT_EXIT):
        shutil.rmtree(path, ignore_errors=True)
    _AT_EXIT.clear()


def scigate_mkdtemp(kind: str, dir: str | Path | None = None) -> Path:
    """A directory like `tempfile.mkdtemp`, pid-stamped, removed when this process exits
    normally if the caller has not removed it already."""
    path = Path(tempfile.mkdtemp(prefix=_prefix(kind), dir=dir))
    if _OWNER[0] != os.getpid():
        _OWNER[0] = os.getpid()
        _AT_EXIT.clear()
        atexit.register(_remove_at_exit)
    _AT_EXIT.add(str(path))
    return path


def sweep_stale_tempdirs(root: str | Path | None = None) -> list[Path]:
    """Remove the `scigate-<kind>-<pid>-*` directories whose process is gone; returns them.

    Only directories owned by this user are touched; a live process's are left alone.
    """
    base = Path(root or tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(os.scandir(base))
    except OSError:
        return removed
    uid = os.getuid()
    for entry in entries:
        match = _NAME.match(entry.name)
        if not match:
            continue
        try:
            if not entry.is_dir(follow_symlinks=False) or entry.stat().st_uid != uid:
                continue
        except OSError:
            continue
        pid = int(match["pid"])
        if pid == os.getpid() or pid_alive(pid):
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        if not os.path.lexists(entry.path):
            removed.append(Path(entry.path))
    return removed
