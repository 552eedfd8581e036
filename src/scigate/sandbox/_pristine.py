"""A warm server's state as it was before any run, so no run can pass data to the next.

Loaded by path by the warm server (`_warm_server.py`, standard library only). Runs of
one server share what the server holds and what its sandbox keeps between processes:
its shared memory mappings (MPI/UCX segments in /dev/shm and SysV segments), its open
descriptors (pipes, sockets, epoll instances every forked child inherits), the private
tmpfs directories (/tmp, /dev/shm, /run, /dev/mqueue), SysV IPC objects and POSIX
message queues of its IPC namespace, and the keyrings of its user namespace. So:

- `Pristine.capture()` records, once the modules are imported, the shared writable
  mappings with their bytes, the entries of the private directories, and the SysV IPC
  objects that exist;
- `detach_child()`, in each forked run before the script, points every inherited
  descriptor but stdio at /dev/null (the numbers stay taken, so a library writing to
  "its" descriptor cannot hit a file the run opens later);
- `Pristine.restore()`, after each run once every process of it is reaped, puts the
  shared mappings' bytes back (a run may write into them while it runs, alone on its
  server; making them private in the child instead costs ~40 ms per run, faulting in
  10 MB of MPI/UCX segments), removes every entry of the private directories and every
  SysV object the run made, clears the keyrings and says what it could not remove (the
  server then retires: the caller replaces it by a fresh one).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import stat

PRIVATE_DIRS = ("/tmp", "/dev/shm", "/run", "/dev/mqueue")
_IPC_RMID = 0
_KEYCTL_CLEAR = 7
# KEY_SPEC_SESSION_KEYRING, KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING
_KEYRINGS = (-3, -4, -5)
_SYS_KEYCTL = {"x86_64": 250, "aarch64": 219}.get(platform.machine())

_libc = ctypes.CDLL(None, use_errno=True)
_libc.memcmp.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]


def shared_mappings() -> list[tuple[int, int, str]]:
    """(start, end, perms) of every shared writable mapping of this process."""
    found = []
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split()
            perms = parts[1]
            if perms[1] == "w" and perms[3] == "s":
                start, end = (int(x, 16) for x in parts[0].split("-"))
                found.append((start, end, perms))
    return found


def detach_child(keep: tuple[int, ...] = ()) -> None:
    """In a forked run: every inherited descriptor above 2 except `keep` is pointed at
    /dev/null (pipes, sockets and epoll instances the server's libraries hold)."""
    null = os.open("/dev/null", os.O_RDWR)
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > 2 and fd != null and fd not in keep:
            with contextlib.suppress(OSError):
                os.dup2(null, fd)
    os.close(null)


def _sysv_ids() -> set[tuple[str, int]]:
    ids = set()
    for kind in ("shm", "sem", "msg"):
        with contextlib.suppress(OSError), open(f"/proc/sysvipc/{kind}") as f:
            next(f, None)
            for line in f:
                parts = line.split()
                if len(parts) > 1:
                    ids.add((kind, int(parts[1])))
    return ids


def _remove_sysv(kind: str, ident: int) -> bool:
    if kind == "shm":
        return _libc.shmctl(ident, _IPC_RMID, None) == 0
    if kind == "sem":
        return _libc.semctl(ident, 0, _IPC_RMID) == 0
    return _libc.msgctl(ident, _IPC_RMID, None) == 0


def _mount_points() -> set[str]:
    try:
        with open("/proc/self/mountinfo") as f:
            return {line.split()[4] for line in f if len(line.split()) > 4}
    except OSError:
        return set()


def _walk(root: str, mounts: set[str]) -> list[tuple[str, os.stat_result]]:
    """(path, lstat) of every entry under `root`, parents before children; mount points
    below it are listed, never entered (the host's binds, read-only)."""
    found = []
    stack = [root]
    while stack:
        here = stack.pop()
        try:
            entries = list(os.scandir(here))
        except OSError:
            continue
        for entry in entries:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            found.append((entry.path, st))
            if stat.S_ISDIR(st.st_mode) and entry.path not in mounts:
                stack.append(entry.path)
    return found


class Pristine:
    """What a server holds before its first run, and the means to return to it."""

    def __init__(self) -> None:
        self.mappings: list[tuple[int, int, ctypes.Array[ctypes.c_char]]] = []
        self.entries: dict[str, tuple[int, int, int, int]] = {}
        self.sysv: set[tuple[str, int]] = set()

    @classmethod
    def capture(cls) -> Pristine:
        """Record the state to return to after every run."""
        self = cls()
        for start, end, _ in shared_mappings():
            saved = ctypes.create_string_buffer(end - start)
            ctypes.memmove(saved, start, end - start)
            self.mappings.append((start, end, saved))
        mounts = _mount_points()
        for root in PRIVATE_DIRS:
            for path, st in _walk(root, mounts):
                self.entries[path] = (st.st_dev, st.st_ino, st.st_mode, st.st_size)
        self.sysv = _sysv_ids()
        return self

    def _own(self, path: str, st: os.stat_result) -> bool:
        known = self.entries.get(path)
        return known is not None and known[:2] == (st.st_dev, st.st_ino)

    def restore(self) -> list[str]:
        """Return to the captured state; what could not be removed (empty when clean)."""
        for start, end, saved in self.mappings:
            if _libc.memcmp(ctypes.c_void_p(start), saved, end - start) != 0:
                ctypes.memmove(start, saved, end - start)
        mounts = _mount_points()
        keep = set(mounts)  # mount points and their ancestors stay (the host's binds)
        for m in mounts:
            parent = os.path.dirname(m)
            while parent not in keep and parent != "/":
                keep.add(parent)
                parent = os.path.dirname(parent)
        for root in PRIVATE_DIRS:
            self._clear(root, mounts, keep)
        for kind, ident in _sysv_ids() - self.sysv:
            _remove_sysv(kind, ident)
        if _SYS_KEYCTL is not None:
            for ring in _KEYRINGS:
                _libc.syscall(_SYS_KEYCTL, _KEYCTL_CLEAR, ring)
        left = [
            path
            for root in PRIVATE_DIRS
            for path, st in _walk(root, mounts)
            if not (self._own(path, st) or path in keep)
        ]
        left += [f"sysv {kind} {ident}" for kind, ident in _sysv_ids() - self.sysv]
        return left

    def _clear(self, root: str, mounts: set[str], keep: set[str]) -> None:
        """Remove every entry under `root` that is neither the server's own nor a mount
        point or one of its ancestors (those are descended into instead)."""
        try:
            entries = list(os.scandir(root))
        except OSError:
            return
        for entry in entries:
            path = entry.path
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if path in mounts:
                continue
            own = self._own(path, st)
            if own and not stat.S_ISDIR(st.st_mode):
                known = self.entries[path]
                with contextlib.suppress(OSError):
                    if st.st_mode != known[2]:
                        os.chmod(path, stat.S_IMODE(known[2]))
                    if stat.S_ISREG(st.st_mode) and st.st_size != known[3]:
                        os.truncate(path, known[3])
                continue
            if stat.S_ISDIR(st.st_mode) and (own or path in keep):
                with contextlib.suppress(OSError):
                    os.chmod(path, stat.S_IMODE(st.st_mode) | stat.S_IRWXU)
                self._clear(path, mounts, keep)
                continue
            _remove(path, st)


def _remove(path: str, st: os.stat_result) -> None:
    """Remove a file or a whole directory tree a run left, whatever modes it set."""
    if not stat.S_ISDIR(st.st_mode):
        with contextlib.suppress(OSError):
            os.unlink(path)
        return
    with contextlib.suppress(OSError):
        os.chmod(path, stat.S_IRWXU)
    try:
        entries = list(os.scandir(path))
    except OSError:
        entries = []
    for entry in entries:
        with contextlib.suppress(OSError):
            _remove(entry.path, entry.stat(follow_symlinks=False))
    with contextlib.suppress(OSError):
        os.rmdir(path)
