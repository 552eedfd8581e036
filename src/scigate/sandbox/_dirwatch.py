"""Waiting for a directory to get a new entry: inotify where the kernel has it, else
a timed poll. `SpoolWatcher` (`_formcache`) waits on a run's spool this way, so a run's
request for a trusted compile is seen as it lands instead of up to a poll period later,
and an idle run costs the host no periodic listing.

The directory is watched through the descriptor the caller opened (its
`/proc/self/fd/N` name), so a run that renames or replaces the directory afterwards
changes nothing here. inotify is reached through libc with ctypes (the standard library
has no binding).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import time

IN_CLOSE_WRITE = 0x00000008
IN_MOVED_TO = 0x00000080
# an entry renamed in (how the hook writes), or a file closed after writing; not its
# creation, when a file written in place is still empty
MASK = IN_CLOSE_WRITE | IN_MOVED_TO


def _inotify_fd(dir_fd: int) -> int | None:
    """An inotify descriptor watching the directory open as `dir_fd`, or None."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, AttributeError):
        return None
    if fd < 0:
        return None
    if libc.inotify_add_watch(fd, f"/proc/self/fd/{dir_fd}".encode(), MASK) < 0:
        os.close(fd)
        return None
    return fd


class DirWaiter:
    """Waits until the directory open as `dir_fd` may have a new entry, `wake()` is
    called, or a timeout passes. Between two returns at least `min_gap` seconds pass, so
    a run that creates entries without end costs a bounded rate of listings."""

    def __init__(self, dir_fd: int, min_gap: float = 0.001) -> None:
        self.notify = _inotify_fd(dir_fd)
        self.wake_r, self.wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self.min_gap = min_gap
        self.last = 0.0

    @property
    def notifies(self) -> bool:
        """True when new entries wake `wait` (inotify), False when it only polls."""
        return self.notify is not None

    def wait(self, timeout: float) -> None:
        """Return when an entry may have been added, on `wake()`, or after `timeout`."""
        gap = self.last + self.min_gap - time.monotonic()
        if gap > 0:
            time.sleep(gap)
        fds = [self.wake_r] + ([self.notify] if self.notify is not None else [])
        with contextlib.suppress(InterruptedError):
            ready, _, _ = select.select(fds, [], [], timeout)
            for fd in ready:
                with contextlib.suppress(BlockingIOError, OSError):
                    while os.read(fd, 65536):
                        pass
        self.last = time.monotonic()

    def wake(self) -> None:
        """Make a pending or the next `wait` return now."""
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self.wake_w, b"x")

    def close(self) -> None:
        """Release the descriptors."""
        for fd in (self.notify, self.wake_r, self.wake_w):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
