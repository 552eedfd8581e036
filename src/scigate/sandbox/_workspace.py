"""Fresh temporary workspaces for sandboxed runs."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from scigate._process import pid_alive
from scigate.errors import BadInput

#: Temporary directories the sandbox makes carry the maker's pid, so a later process
#: can tell the leftovers of a killed run (dead pid) from those of a live one.
_STAMPED = re.compile(r"^scigate-(ws|warm|etc)-(\d+)-")
_swept = False


def sweep_stale(parent: Path | None = None) -> list[Path]:
    """Remove sandbox directories left by processes that no longer exist (a killed run's
    workspaces can hold a candidate's files); the removed paths."""
    root = Path(parent or tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = list(os.scandir(root))
    except OSError:
        return removed
    for entry in entries:
        match = _STAMPED.match(entry.name)
        if not match or not entry.is_dir(follow_symlinks=False):
            continue
        pid = int(match.group(2))
        if pid != os.getpid() and not pid_alive(pid):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(Path(entry.path))
    return removed


def fresh_workspace(
    source: Path | None = None, *, exclude: Iterable[str] = (), parent: Path | None = None
) -> Path:
    """A new temporary directory, optionally a copy of `source` without `exclude` names.

    Excluded names are matched against every file and directory name at any depth
    (glob patterns allowed, e.g. {"answer.txt", "*.pyc"}). The copy follows no link and
    copies regular files and directories only (`_hostfs.copy_tree`): a symlink, FIFO
    or device in `source` is refused with `UnsafeWorkspaceFile`. The caller removes the
    directory when done.
    """
    if parent is not None and not Path(parent).is_dir():
        raise BadInput(f"workspace parent directory does not exist: {parent}")
    if source is not None and not Path(source).is_dir():
        raise BadInput(f"workspace source directory does not exist: {source}")
    global _swept
    if not _swept:  # once per process: leftovers of killed runs go before new work starts
        _swept = True
        sweep_stale()
    root = Path(tempfile.mkdtemp(prefix=f"scigate-ws-{os.getpid()}-", dir=parent))
    if source is not None:
        from scigate.sandbox._hostfs import copy_tree

        try:
            copy_tree(Path(source), root, exclude=tuple(exclude), what="workspace source")
        except BaseException:
            shutil.rmtree(root, ignore_errors=True)
            raise
    return root


def _open_dir(name: str, dir_fd: int | None) -> int:
    return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)


def open_workspace(workspace: Path) -> int:
    """A descriptor of the workspace directory itself; BadInput when its last component
    is a symlink (what sandboxed code may have planted there is never followed)."""
    try:
        return _open_dir(str(workspace), None)
    except OSError as exc:
        why = "is a symlink" if os.path.islink(workspace) else f"cannot be opened ({exc})"
        raise BadInput(f"sandbox workspace {why}: {workspace}") from exc


def real_dirs(workspace: Path, *parts: str) -> int:
    """A descriptor of workspace/parts..., each part made a real directory: the host
    never follows what a run may have left there (a symlink or a file in the way is
    removed and replaced by an empty directory). The caller closes the descriptor."""
    fd = open_workspace(workspace)
    try:
        for part in parts:
            try:
                child = _open_dir(part, fd)
            except FileNotFoundError:
                os.mkdir(part, 0o755, dir_fd=fd)
                child = _open_dir(part, fd)
            except OSError:  # a symlink (ELOOP), a file (ENOTDIR): not ours to follow
                os.unlink(part, dir_fd=fd)
                os.mkdir(part, 0o755, dir_fd=fd)
                child = _open_dir(part, fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_new_file(path: Path, text: str | bytes) -> None:
    """Create `path` (which must not exist yet: a link or file a run left under that name
    is an error, never written through) and write `text` (str: as UTF-8) to it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "wb") as f:
        f.write(text.encode() if isinstance(text, str) else text)


def named_paths(command: str) -> tuple[str, ...]:
    """Absolute paths of existing files a shell command names (its script, its config),
    so an isolated run can read them; directories are not included (a command naming
    the caller's run directory should not expose all of it)."""
    import shlex

    try:
        words = shlex.split(command)
    except ValueError:
        return ()
    found = []
    for word in words:
        for part in word.split("=", 1)[-1:]:
            if part.startswith("/") and os.path.isfile(part):
                found.append(os.path.normpath(part))
    return tuple(dict.fromkeys(found))
