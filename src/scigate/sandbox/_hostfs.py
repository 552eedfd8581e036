"""Host-side reads of files a sandboxed party wrote, without following anything it made.

Sandboxed code (a model's tool calls, a candidate's solution.py, a `--solver-cmd`) writes
into its workspace, and the host reads some of it afterwards: a generator's candidate
files, a solver command's answer.txt, the output of each MPI rank. Any of those names can
be a symlink to a host file, a FIFO that blocks the reader forever, a device, or a file
of gigabytes. Every such read goes through this module:

- the directory (`base`) is the host's own: a path it chose (followed as usual) or an
  open directory descriptor; only the `name` beneath it is untrusted;
- `name` is resolved beneath `base` without following a link at any component:
  `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)` where the
  kernel has it (Linux 5.6), else one `O_NOFOLLOW` open per component; absolute names
  and `..` are refused before any system call;
- the file is opened `O_NONBLOCK | O_NOCTTY | O_CLOEXEC` (a FIFO never blocks), then
  `fstat` must show a regular file no larger than the caller's limit, and at most
  limit + 1 bytes are read, so a file that grows meanwhile is caught too.

Problems raise `UnsafeWorkspaceFile` (a `BadInput`) with a plain message ("answer.txt is
a symlink", "answer.txt is a FIFO, not a regular file", "question.md is 52428800 bytes;
the limit is 65536"). A missing file is not a problem of that kind: `read_bytes` and
`read_text` raise `FileNotFoundError`, `read_text_if_exists` returns None.

`copy_tree` copies a sandbox-written directory with the same primitives: regular files
and directories only (a link or special file is refused, or skipped on request), with
caps on each file, on the total and on the number of entries.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fnmatch
import os
import platform
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from scigate.errors import BadInput

__all__ = [
    "CopyStats",
    "UnsafeWorkspaceFile",
    "copy_tree",
    "entry_kind",
    "open_dir",
    "openat2_available",
    "read_bytes",
    "read_text",
    "read_text_if_exists",
]

Base = str | os.PathLike[str] | int

#: Defaults of `copy_tree`: per file, in total, entries (files and directories), depth.
COPY_FILE_LIMIT = 64 << 20
COPY_TOTAL_LIMIT = 256 << 20
COPY_MAX_ENTRIES = 10_000
COPY_MAX_DEPTH = 64

_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC | os.O_NOFOLLOW
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
_CHUNK = 1 << 20

# openat2(2): struct open_how and the RESOLVE_* flags of <linux/openat2.h>.
_SYS_OPENAT2 = {"x86_64": 437, "aarch64": 437, "arm64": 437}.get(platform.machine())
_RESOLVE_NO_MAGICLINKS = 0x02
_RESOLVE_NO_SYMLINKS = 0x04
_RESOLVE_BENEATH = 0x08
_RESOLVE = _RESOLVE_BENEATH | _RESOLVE_NO_SYMLINKS | _RESOLVE_NO_MAGICLINKS


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


class UnsafeWorkspaceFile(BadInput):
    """A file a sandboxed party wrote cannot be read safely: a link, a special file, a
    file over its size limit, too many entries. `name` is the path as given, `problem`
    one word: symlink, fifo, device, socket, directory, not-a-file, too-large, outside,
    unreadable, too-many."""

    def __init__(self, message: str, *, name: str = "", problem: str = "") -> None:
        super().__init__(message)
        self.name = name
        self.problem = problem


_openat2_state: bool | None = None  # None: not probed yet


def openat2_available() -> bool:
    """Whether the kernel (and any seccomp filter) lets this process use openat2."""
    global _openat2_state
    if _openat2_state is None:
        _openat2_state = _probe_openat2()
    return _openat2_state


def _probe_openat2() -> bool:
    if _SYS_OPENAT2 is None:
        return False
    try:
        root = os.open("/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fd = _openat2(root, ".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except (OSError, AttributeError):
        return False
    finally:
        os.close(root)
    os.close(fd)
    return True


_syscall = None


def _openat2(dir_fd: int, name: str, flags: int) -> int:
    """openat2(dir_fd, name, flags, RESOLVE_BENEATH|NO_SYMLINKS|NO_MAGICLINKS); OSError."""
    global _syscall
    if _syscall is None:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.syscall
        fn.restype = ctypes.c_long
        fn.argtypes = [
            ctypes.c_long,
            ctypes.c_int,
            ctypes.c_char_p,
            ctypes.c_void_p,
            ctypes.c_size_t,
        ]
        _syscall = fn
    how = _OpenHow(flags=flags, mode=0, resolve=_RESOLVE)
    fd = _syscall(_SYS_OPENAT2, dir_fd, os.fsencode(name), ctypes.byref(how), ctypes.sizeof(how))
    if fd < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), name)
    return int(fd)


def _parts(name: str | os.PathLike[str]) -> list[str]:
    text = os.fspath(name)
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if text.startswith("/") or ".." in parts or "\0" in text:
        raise UnsafeWorkspaceFile(
            f"{text} is not a path inside its directory", name=text, problem="outside"
        )
    return parts


def _label(what: str, name: str) -> str:
    return f"{what} {name}" if what else name


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    return "special file"


_ARTICLE = {
    "directory": "a directory",
    "fifo": "a FIFO",
    "socket": "a socket",
    "character device": "a character device",
    "block device": "a block device",
    "special file": "a special file",
}
_PROBLEM = {"character device": "device", "block device": "device", "special file": "not-a-file"}


def _not_regular(
    label: str, name: str, kind: str, wanted: str = "regular file"
) -> UnsafeWorkspaceFile:
    if kind == "symlink":
        return UnsafeWorkspaceFile(f"{label} is a symlink", name=name, problem="symlink")
    return UnsafeWorkspaceFile(
        f"{label} is {_ARTICLE.get(kind, 'a ' + kind)}, not a {wanted}",
        name=name,
        problem=_PROBLEM.get(kind, kind),
    )


def _open_base(base: Base) -> tuple[int, bool]:
    """A descriptor of `base` and whether this module opened it (and must close it)."""
    if isinstance(base, int):
        return base, False
    return os.open(os.fspath(base), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC), True


def _diagnose(
    dir_fd: int, parts: list[str], name: str, what: str, final_dir: bool
) -> Exception | None:
    """Why `parts` cannot be opened beneath `dir_fd`: the first component that is a link,
    not a directory, missing, or a final component of the wrong type (None: no reason
    found, e.g. the tree changed meanwhile)."""
    fd, owned = dir_fd, []
    whole = "/".join(_parts(name))
    try:
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            shown = "/".join(parts[: i + 1])
            label = _label(what, name) if shown == whole else f"{_label(what, name)}: {shown}"
            try:
                st = os.stat(part, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                return FileNotFoundError(errno.ENOENT, f"{_label(what, name)} does not exist", name)
            except OSError as exc:
                return UnsafeWorkspaceFile(
                    f"cannot read {_label(what, name)}: {exc.strerror}",
                    name=name,
                    problem="unreadable",
                )
            kind = _kind(st.st_mode)
            if kind == "symlink":
                return _not_regular(label, name, kind)
            if not last or final_dir:
                if kind != "directory":
                    if not last:
                        return FileNotFoundError(errno.ENOTDIR, f"{label} is not a directory", name)
                    return _not_regular(label, name, kind, "directory")
                if not last:
                    fd = os.open(part, _DIR_FLAGS, dir_fd=fd)
                    owned.append(fd)
            elif kind != "file":
                return _not_regular(label, name, kind)
        return None
    except OSError as exc:
        return UnsafeWorkspaceFile(
            f"cannot read {_label(what, name)}: {exc.strerror}", name=name, problem="unreadable"
        )
    finally:
        for f in owned:
            os.close(f)


def _open_beneath(dir_fd: int, parts: list[str], flags: int) -> int:
    """Open `parts` beneath `dir_fd` following no link; OSError as the system gives it."""
    if not parts:
        return os.open(".", flags, dir_fd=dir_fd)
    if openat2_available():
        return _openat2(dir_fd, "/".join(parts), flags)
    fd, owned = dir_fd, []
    try:
        for part in parts[:-1]:
            fd = os.open(part, _DIR_FLAGS, dir_fd=fd)
            owned.append(fd)
        return os.open(parts[-1], flags | os.O_NOFOLLOW, dir_fd=fd)
    finally:
        for f in owned:
            os.close(f)


def _open(dir_fd: int, parts: list[str], name: str, what: str, *, directory: bool) -> int:
    """A descriptor of the regular file (or directory) `parts`, checked by fstat."""
    flags = _DIR_FLAGS if directory else _READ_FLAGS
    try:
        fd = _open_beneath(dir_fd, parts, flags)
    except OSError as exc:
        reason = _diagnose(dir_fd, parts, name, what, directory)
        if reason is None and exc.errno == errno.ENOENT:
            reason = FileNotFoundError(errno.ENOENT, f"{_label(what, name)} does not exist", name)
        if reason is None and exc.errno in (errno.ELOOP, errno.EXDEV):
            reason = UnsafeWorkspaceFile(
                f"{_label(what, name)}: a directory on its way is a symlink",
                name=name,
                problem="symlink",
            )
        if reason is None:
            reason = UnsafeWorkspaceFile(
                f"cannot read {_label(what, name)}: {exc.strerror}", name=name, problem="unreadable"
            )
        raise reason from None
    try:
        st = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise
    kind = _kind(st.st_mode)
    if kind != ("directory" if directory else "file"):
        os.close(fd)
        raise _not_regular(
            _label(what, name), name, kind, "directory" if directory else "regular file"
        )
    return fd


def open_dir(base: Base, name: str | os.PathLike[str] = ".", *, what: str = "") -> int:
    """A descriptor (O_DIRECTORY, close-on-exec) of the directory `name` beneath `base`,
    reached without following links; the caller closes it. A link or anything but a
    directory raises `UnsafeWorkspaceFile`, a missing one `FileNotFoundError`."""
    text = os.fspath(name)
    parts = _parts(text)
    base_fd, owned = _open_base(base)
    try:
        return _open(base_fd, parts, text, what, directory=True)
    finally:
        if owned:
            os.close(base_fd)


def entry_kind(base: Base, name: str | os.PathLike[str]) -> str | None:
    """What `name` beneath `base` is, without following links: "file", "directory",
    "symlink", "fifo", "socket", "character device", "block device"; None when it (or a
    directory on the way) does not exist. A link on the way raises `UnsafeWorkspaceFile`."""
    text = os.fspath(name)
    parts = _parts(text)
    if not parts:
        return "directory"
    base_fd, owned = _open_base(base)
    try:
        try:
            parent = _open(base_fd, parts[:-1], text, "", directory=True)
        except FileNotFoundError:
            return None
        try:
            st = os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
        except (FileNotFoundError, NotADirectoryError):
            return None
        finally:
            os.close(parent)
        return _kind(st.st_mode)
    finally:
        if owned:
            os.close(base_fd)


def _read_fd(fd: int, label: str, name: str, limit: int) -> bytes:
    size = os.fstat(fd).st_size
    if size > limit:
        raise UnsafeWorkspaceFile(
            f"{label} is {size} bytes; the limit is {limit}", name=name, problem="too-large"
        )
    chunks, total = [], 0
    while total <= limit:
        chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > limit:
        raise UnsafeWorkspaceFile(
            f"{label} grew past the limit of {limit} bytes while being read",
            name=name,
            problem="too-large",
        )
    return b"".join(chunks)


def read_bytes(base: Base, name: str | os.PathLike[str], *, limit: int, what: str = "") -> bytes:
    """The bytes of the regular file `name` beneath `base` (a trusted path or directory
    descriptor), reached without following links, at most `limit` bytes.

    `what` prefixes the name in messages ("candidate file question.md is a symlink").
    A missing file raises `FileNotFoundError`; a link at any component, a FIFO, device,
    socket or directory, or a file over `limit` raises `UnsafeWorkspaceFile`."""
    text = os.fspath(name)
    parts = _parts(text)
    if not parts:
        raise _not_regular(_label(what, text), text, "directory")
    base_fd, owned = _open_base(base)
    try:
        fd = _open(base_fd, parts, text, what, directory=False)
    finally:
        if owned:
            os.close(base_fd)
    try:
        return _read_fd(fd, _label(what, text), text, limit)
    except OSError as exc:
        raise UnsafeWorkspaceFile(
            f"cannot read {_label(what, text)}: {exc.strerror}", name=text, problem="unreadable"
        ) from None
    finally:
        os.close(fd)


def read_text(
    base: Base,
    name: str | os.PathLike[str],
    *,
    limit: int,
    what: str = "",
    errors: Literal["strict", "replace"] = "strict",
) -> str:
    """`read_bytes` decoded as UTF-8; with errors="strict" undecodable bytes raise
    `UnsafeWorkspaceFile` (problem "unreadable")."""
    data = read_bytes(base, name, limit=limit, what=what)
    try:
        return data.decode("utf-8", errors=errors)
    except UnicodeDecodeError as exc:
        text = os.fspath(name)
        raise UnsafeWorkspaceFile(
            f"{_label(what, text)} is not UTF-8 text (byte {exc.start})",
            name=text,
            problem="unreadable",
        ) from None


def read_text_if_exists(
    base: Base,
    name: str | os.PathLike[str],
    *,
    limit: int,
    what: str = "",
    errors: Literal["strict", "replace"] = "strict",
) -> str | None:
    """`read_text`, or None when `name` (or a directory on its way) does not exist."""
    try:
        return read_text(base, name, limit=limit, what=what, errors=errors)
    except FileNotFoundError:
        return None


@dataclass
class CopyStats:
    """What `copy_tree` copied (paths relative to the source) and what it skipped."""

    files: int = 0
    directories: int = 0
    bytes: int = 0
    skipped: list[str] = field(default_factory=list)


def copy_tree(
    src: Base,
    dest: str | os.PathLike[str],
    *,
    name: str | os.PathLike[str] = ".",
    exclude: Iterable[str] = (),
    specials: Literal["refuse", "skip"] = "refuse",
    file_limit: int = COPY_FILE_LIMIT,
    total_limit: int = COPY_TOTAL_LIMIT,
    max_entries: int = COPY_MAX_ENTRIES,
    max_depth: int = COPY_MAX_DEPTH,
    what: str = "",
) -> CopyStats:
    """Copy the directory `name` beneath `src` (a trusted path or descriptor) into `dest`
    (created if missing; the host's own directory) following no link.

    Names matching an `exclude` glob are left out at any depth before they are looked
    at. Regular files (permission bits and times kept, set-id bits dropped) and
    directories are copied; a symlink, FIFO, socket or device raises
    `UnsafeWorkspaceFile` (`specials="refuse"`) or is left out and listed in
    `CopyStats.skipped` ("skip"). A file over `file_limit`, a total over `total_limit`,
    more than `max_entries` entries or a nesting deeper than `max_depth` raises. Files
    are created with O_EXCL: a name already in `dest` raises `FileExistsError`. On an
    error `dest` may hold part of the copy; the caller removes it."""
    copier = _Copier(
        patterns=tuple(exclude),
        specials=specials,
        file_limit=file_limit,
        total_limit=total_limit,
        max_entries=max_entries,
        max_depth=max_depth,
        what=what,
    )
    src_fd = open_dir(src, name, what=what)
    try:
        Path(dest).mkdir(parents=True, exist_ok=True)
        dest_fd = os.open(os.fspath(dest), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            copier.copy_dir(src_fd, dest_fd, "", 0)
        finally:
            os.close(dest_fd)
    finally:
        os.close(src_fd)
    return copier.stats


@dataclass
class _Copier:
    patterns: tuple[str, ...]
    specials: str
    file_limit: int
    total_limit: int
    max_entries: int
    max_depth: int
    what: str
    stats: CopyStats = field(default_factory=CopyStats)

    def _unsafe(self, message: str, rel: str, problem: str) -> UnsafeWorkspaceFile:
        return UnsafeWorkspaceFile(message, name=rel, problem=problem)

    def copy_dir(self, src_fd: int, dest_fd: int, prefix: str, depth: int) -> None:
        with os.scandir(src_fd) as it:
            names = sorted(entry.name for entry in it)
        for entry_name in names:
            if any(fnmatch.fnmatch(entry_name, p) for p in self.patterns):
                continue
            rel = prefix + entry_name
            label = _label(self.what, rel)
            s = self.stats
            if s.files + s.directories + len(s.skipped) >= self.max_entries:
                raise self._unsafe(
                    f"the directory to copy has more than {self.max_entries} entries "
                    f"(files and directories); the limit is {self.max_entries}",
                    rel,
                    "too-many",
                )
            st = os.stat(entry_name, dir_fd=src_fd, follow_symlinks=False)
            kind = _kind(st.st_mode)
            if kind == "directory":
                self._copy_subdir(src_fd, dest_fd, entry_name, rel, depth, st)
            elif kind == "file":
                self._copy_file(src_fd, dest_fd, entry_name, rel, label)
            elif self.specials == "skip":
                s.skipped.append(rel)
            else:
                raise _not_regular(label, rel, kind, "regular file or directory")

    def _copy_subdir(
        self, src_fd: int, dest_fd: int, entry_name: str, rel: str, depth: int, st: os.stat_result
    ) -> None:
        if depth + 1 > self.max_depth:
            raise self._unsafe(
                f"{_label(self.what, rel)} is nested more than {self.max_depth} directories deep",
                rel,
                "too-many",
            )
        sub = _open(src_fd, [entry_name], rel, self.what, directory=True)
        try:
            with contextlib.suppress(FileExistsError):
                os.mkdir(entry_name, 0o700, dir_fd=dest_fd)
            out = os.open(entry_name, _DIR_FLAGS, dir_fd=dest_fd)
            try:
                self.stats.directories += 1
                self.copy_dir(sub, out, rel + "/", depth + 1)
                os.chmod(out, (stat.S_IMODE(st.st_mode) & 0o777) | 0o700)
            finally:
                os.close(out)
        finally:
            os.close(sub)

    def _copy_file(self, src_fd: int, dest_fd: int, entry_name: str, rel: str, label: str) -> None:
        fd = _open(src_fd, [entry_name], rel, self.what, directory=False)
        try:
            fst = os.fstat(fd)
            if fst.st_size > self.file_limit:
                raise self._unsafe(
                    f"{label} is {fst.st_size} bytes; the limit is {self.file_limit}",
                    rel,
                    "too-large",
                )
            if self.stats.bytes + fst.st_size > self.total_limit:
                raise self._over_total(rel)
            out = os.open(
                entry_name,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                0o600,
                dir_fd=dest_fd,
            )
            try:
                written = self._pump(fd, out, rel, label)
                os.fchmod(out, stat.S_IMODE(fst.st_mode) & 0o777)
                os.utime(out, ns=(fst.st_atime_ns, fst.st_mtime_ns))
            finally:
                os.close(out)
        finally:
            os.close(fd)
        self.stats.files += 1
        self.stats.bytes += written

    def _pump(self, fd: int, out: int, rel: str, label: str) -> int:
        written = 0
        while chunk := os.read(fd, _CHUNK):
            written += len(chunk)
            if written > self.file_limit:
                raise self._unsafe(
                    f"{label} grew past the limit of {self.file_limit} bytes while being copied",
                    rel,
                    "too-large",
                )
            if self.stats.bytes + written > self.total_limit:
                raise self._over_total(rel)
            view = memoryview(chunk)
            while view:
                view = view[os.write(out, view) :]
        return written

    def _over_total(self, rel: str) -> UnsafeWorkspaceFile:
        return self._unsafe(
            f"the files to copy are more than {self.total_limit} bytes in total "
            f"(at {rel}); the limit is {self.total_limit}",
            rel,
            "too-large",
        )
