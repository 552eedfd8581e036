"""Fresh temporary workspaces for sandboxed runs."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from scigate.errors import BadInput


def fresh_workspace(
    source: Path | None = None, *, exclude: Iterable[str] = (), parent: Path | None = None
) -> Path:
    """A new temporary directory, optionally a copy of `source` without `exclude` names.

    Excluded names are matched against every file and directory name at any depth
    (glob patterns allowed, e.g. {"answer.txt", "*.pyc"}). The caller removes the
    directory when done.
    """
    if parent is not None and not Path(parent).is_dir():
        raise BadInput(f"workspace parent directory does not exist: {parent}")
    if source is not None and not Path(source).is_dir():
        raise BadInput(f"workspace source directory does not exist: {source}")
    root = Path(tempfile.mkdtemp(prefix="scigate-ws-", dir=parent))
    if source is not None:
        ignore = shutil.ignore_patterns(*exclude)
        shutil.copytree(source, root, ignore=ignore, dirs_exist_ok=True, symlinks=True)
    return root
