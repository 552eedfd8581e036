"""One writer per run: an exclusive `flock` on a lock file beside the database, per run id.

The kernel releases a `flock` when its holder dies however it dies (SIGKILL included), so
a dead holder's lock is simply free: the next process takes it over and learns from the
file which process held it before. A live holder's lock refuses a second process with one
line naming that process. Within one process a lock is re-entrant (several `Store`
objects on one file may work on the same run).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import socket
import threading
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

from scigate._process import pid_alive
from scigate.errors import BadInput

__all__ = ["RunLock", "lock_path", "lock_run"]

_HELD: dict[tuple[str, str], RunLock] = {}  # (lock file, pid) -> this process's lock
_GUARD = threading.Lock()


def lock_path(db: str | Path, run_id: str) -> Path:
    """The lock file of `run_id` in the database `db`: `<db>.<run id>.lock` beside it."""
    db = Path(db).absolute()
    safe = run_id if re.fullmatch(r"[A-Za-z0-9._-]{1,120}", run_id) else None
    if safe is None:
        safe = hashlib.sha256(run_id.encode()).hexdigest()[:32]
    return db.with_name(f"{db.name}.{safe}.lock")


class RunLock:
    """This process's exclusive claim on one run of one database (see `lock_run`)."""

    def __init__(self, path: Path, run_id: str, fd: int, previous: dict[str, Any] | None):
        self.path = path
        self.run_id = run_id
        self._fd: int | None = fd
        self._count = 1
        self._pid = os.getpid()
        #: The record of a holder that died without releasing the lock (taken over), or None.
        self.taken_over_from = previous

    @property
    def held(self) -> bool:
        """Whether this process still holds the lock."""
        return self._fd is not None and os.getpid() == self._pid

    def release(self) -> None:
        """Give up one claim; the last one removes the lock file and unlocks it."""
        with _GUARD:
            if not self.held:
                return
            self._count -= 1
            if self._count > 0:
                return
            _HELD.pop((str(self.path), str(self._pid)), None)
            fd, self._fd = self._fd, None
            with suppress(FileNotFoundError):
                os.unlink(self.path)  # while still locked: a waiter re-checks the inode
            if fd is not None:
                os.close(fd)

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _read_holder(fd: int) -> dict[str, Any] | None:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"null")
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _refusal(run_id: str, db: Path, holder: dict[str, Any] | None) -> BadInput:
    who = "another process"
    if holder and isinstance(holder.get("pid"), int):
        who = f"process {holder['pid']}"
        if holder.get("host") and holder["host"] != socket.gethostname():
            who += f" on {holder['host']}"
        if isinstance(holder.get("since"), int | float):
            who += f" (since {time.strftime('%H:%M:%S', time.localtime(holder['since']))})"
        if holder.get("host") in (None, socket.gethostname()) and not pid_alive(holder["pid"]):
            who += ", which has exited while a process it started still holds the lock"
    return BadInput(
        f"run {run_id} in {db} is in use by {who}; wait for it to finish or stop it, then resume"
    )


def lock_run(db: str | Path, run_id: str) -> RunLock:
    """Claim `run_id` of database `db` for this process, or raise BadInput if a live
    process holds it. Re-entrant within a process; release with `RunLock.release()`."""
    path = lock_path(db, run_id)
    key = (str(path), str(os.getpid()))
    with _GUARD:
        mine = _HELD.get(key)
        if mine is not None and mine.held:
            mine._count += 1
            return mine
        while True:
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as e:
                raise BadInput(f"cannot lock run {run_id}: {path} ({e.strerror})") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _read_holder(fd)
                os.close(fd)
                raise _refusal(run_id, Path(db), holder) from None
            # The holder we waited on may have unlinked the file before unlocking it:
            # then our lock is on a dead inode, and we start again on a fresh file.
            try:
                same = os.stat(path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        previous = _read_holder(fd)
        if previous is not None and (
            previous.get("pid") == os.getpid() or not isinstance(previous.get("pid"), int)
        ):
            previous = None
        elif previous is not None and pid_alive(previous["pid"]):
            # A live process that no longer holds the flock (e.g. pid reuse): not a crash.
            previous = None
        record = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.time()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(record).encode(), 0)
        lock = RunLock(path, run_id, fd, previous)
        _HELD[key] = lock
        return lock
