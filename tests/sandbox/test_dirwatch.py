"""`_dirwatch.DirWaiter`: a spool watcher wakes when a run's request lands (inotify),
not a poll period later; a run flooding its spool costs a bounded rate of listings;
ending the watcher does not wait out its idle period."""

from __future__ import annotations

import os
import select
import threading
import time
from pathlib import Path

import pytest

from _wait import wait_until
from scigate.sandbox._dirwatch import DirWaiter


@pytest.fixture
def dir_fd(tmp_path: Path):
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    yield fd
    os.close(fd)


#: a wait's own timeout, far beyond the test's deadline: a wait that returns at all
#: was woken by the entry (the order of events), not by its timeout
FOREVER = 3600.0


def _waiting(waiter: DirWaiter) -> threading.Thread:
    """A thread blocked in `waiter.wait(FOREVER)` (once it has started)."""
    entered = threading.Event()
    real = waiter.wait

    def wait() -> None:
        entered.set()
        real(FOREVER)

    thread = threading.Thread(target=wait, daemon=True)
    thread.start()
    assert entered.wait(60)
    return thread


def _returns(waiter: DirWaiter, thread: threading.Thread, what: str) -> None:
    try:
        wait_until(lambda: not thread.is_alive(), message=f"{what} did not wake the wait")
    except AssertionError:
        waiter.wake()  # a failing test leaves no thread behind
        thread.join()
        raise


def _pending(waiter: DirWaiter) -> bool:
    """Whether inotify has an event queued for the waiter (what wakes its select)."""
    assert waiter.notify is not None
    return bool(select.select([waiter.notify], [], [], 0)[0])


def test_a_new_entry_wakes_the_wait(tmp_path: Path, dir_fd: int) -> None:
    waiter = DirWaiter(dir_fd)
    assert waiter.notifies  # inotify on every Linux CI runs on
    t0 = time.monotonic()
    waiter.wait(0.2)  # the control: nothing lands, the timeout passes
    assert time.monotonic() - t0 >= 0.19
    thread = _waiting(waiter)
    (tmp_path / "x.req").write_text("r")
    _returns(waiter, thread, "a file written")
    thread = _waiting(waiter)
    os.replace(tmp_path / "x.req", tmp_path / "y.req")  # renamed in
    _returns(waiter, thread, "a file renamed in")
    waiter.close()


def test_the_directory_is_watched_by_descriptor(tmp_path: Path) -> None:
    """Renamed away after it was opened (and a new one put in its place), the directory
    the descriptor names is still the one watched."""
    spool = tmp_path / "spool"
    spool.mkdir()
    fd = os.open(spool, os.O_RDONLY | os.O_DIRECTORY)
    waiter = DirWaiter(fd)
    spool.rename(tmp_path / "moved")
    spool.mkdir()
    (spool / "decoy").write_text("x")  # inotify queues an event as the write closes
    assert not _pending(waiter)  # the new directory is not watched
    (tmp_path / "moved" / "real").write_text("x")
    assert _pending(waiter)  # the control: an entry where it is watched is queued
    thread = _waiting(waiter)
    _returns(waiter, thread, "an entry in the watched directory")
    waiter.close()
    os.close(fd)


def test_a_flood_of_entries_costs_a_bounded_rate_of_returns(tmp_path: Path, dir_fd: int) -> None:
    stop = threading.Event()

    def flood() -> None:
        i = 0
        while not stop.is_set():
            (tmp_path / f"f{i % 50}").write_text("x")
            i += 1

    thread = threading.Thread(target=flood)
    thread.start()
    waiter = DirWaiter(dir_fd, min_gap=0.01)
    returns, t0 = 0, time.monotonic()
    while time.monotonic() - t0 < 0.5:
        waiter.wait(1)
        returns += 1
    stop.set()
    thread.join()
    waiter.close()
    assert returns <= 0.5 / 0.01 + 2
