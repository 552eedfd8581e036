"""`_dirwatch.DirWaiter`: a spool watcher wakes when a run's request lands (inotify),
not a poll period later; a run flooding its spool costs a bounded rate of listings;
ending the watcher does not wait out its idle period."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from scigate.sandbox._dirwatch import DirWaiter


@pytest.fixture
def dir_fd(tmp_path: Path):
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    yield fd
    os.close(fd)


def _later(seconds: float, action) -> None:
    threading.Timer(seconds, action).start()


def test_a_new_entry_wakes_the_wait(tmp_path: Path, dir_fd: int) -> None:
    waiter = DirWaiter(dir_fd)
    assert waiter.notifies  # inotify on every Linux CI runs on
    t0 = time.monotonic()
    waiter.wait(0.2)  # the control: nothing lands, the timeout passes
    assert time.monotonic() - t0 >= 0.19
    _later(0.05, lambda: (tmp_path / "x.req").write_text("r"))
    t0 = time.monotonic()
    waiter.wait(10)
    assert time.monotonic() - t0 < 2
    _later(0.05, lambda: os.replace(tmp_path / "x.req", tmp_path / "y.req"))  # renamed in
    t0 = time.monotonic()
    waiter.wait(10)
    assert time.monotonic() - t0 < 2
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
    _later(0.05, lambda: (spool / "decoy").write_text("x"))
    t0 = time.monotonic()
    waiter.wait(0.3)
    assert time.monotonic() - t0 >= 0.29  # the new directory is not watched
    _later(0.05, lambda: (tmp_path / "moved" / "real").write_text("x"))
    t0 = time.monotonic()
    waiter.wait(10)
    assert time.monotonic() - t0 < 2
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
