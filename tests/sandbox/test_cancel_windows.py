"""A cancel set at any moment of a run ends it at once and leaves no process behind.

Each test puts the cancel at one moment of a run's life, injected where the code reaches
that moment (a wrapped Popen, spawn, acquire or condition wait), never by sleeping: before
anything starts, as bwrap starts, while bwrap's namespace init sets itself up (the init
is frozen there, so the moment cannot pass before the cancel lands), while the run runs,
while the run waits for a warm server, while its warm server starts, and between getting
a server and sending it the run. The runs sleep 60 s and then leave a file: a cancel that
is lost shows in the reason, one that waited for the run to end as that file, a process
left behind as a holder of the run's workspace (no test measures how long a cancel took).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from test_sandbox_run import BWRAP_WORKS

from _wait import wait_until
from conftest import marked_pids, wait_gone
from scigate.sandbox import Limits, _runner, _warm
from scigate.sandbox._isolation import children
from scigate.sandbox._runner import shared_cache
from scigate.sandbox._warm import PoolKey, WarmPool, WarmServer, execute_warm

#: what a run that was not stopped leaves in its workspace after its sleep
SLEPT = "slept"
SLEEP = f"import time; time.sleep(60); open({SLEPT!r}, 'w').close()"
LIMITS = Limits(wall_seconds=90)


def _holders(path: Path) -> list[int]:
    """Pids (other than ours) whose cwd or open descriptors are `path` or inside it,
    deleted or not: what a left-behind process of a run in `path` still holds."""
    base = str(path)
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            links = [os.readlink(f"/proc/{name}/cwd")]
            links += [os.readlink(f"/proc/{name}/fd/{fd}") for fd in os.listdir(f"/proc/{name}/fd")]
        except OSError:  # gone, or not ours to look at
            continue
        if any(link == base or link.startswith((base + "/", base + " ")) for link in links):
            found.append(int(name))
    return found


def _left_behind(path: Path, seconds: float = 60.0) -> list[int]:
    """`_holders(path)` once the killed processes had `seconds` to go; kills what is
    left so that a failing test leaves nothing either."""
    deadline = time.monotonic() + seconds
    while (left := _holders(path)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return left


def _cold(ws: Path, cancel: threading.Event, env: dict[str, str] | None = None):
    return _runner.execute(
        [sys.executable, "-c", SLEEP], workspace=ws, limits=LIMITS, env=env, cancel=cancel
    )


def _wrap_popen(monkeypatch: pytest.MonkeyPatch, after: Callable[[subprocess.Popen], None]):
    """A run's Popen (the one of `_runner.SUPERVISOR`) calls `after(proc)` once the
    process exists; those calls are listed (other Popens, e.g. probes, go through)."""
    calls: list[subprocess.Popen] = []

    class Popen(subprocess.Popen):
        def __init__(self, args, *rest, **kwargs) -> None:
            super().__init__(args, *rest, **kwargs)
            if str(_runner.SUPERVISOR) in map(str, args):
                calls.append(self)
                after(self)

    monkeypatch.setattr(_runner.subprocess, "Popen", Popen)
    return calls


def _assert_cancelled(result, ws: Path) -> None:
    """Cancelled (not finished, not timed out), and before the run's sleep ended."""
    assert not result.ok and result.reason.startswith("cancelled"), result.reason
    assert not (ws / SLEPT).exists(), "the cancel waited for the run to end"


def test_a_cold_run_cancelled_before_it_starts_starts_nothing(ws: Path, monkeypatch) -> None:
    cancel = threading.Event()
    cancel.set()
    calls = _wrap_popen(monkeypatch, lambda proc: None)
    result = _cold(ws, cancel)
    _assert_cancelled(result, ws)
    assert calls == []  # no bwrap started only to be killed
    assert _left_behind(ws) == []


def test_a_cold_run_cancelled_as_bwrap_starts_leaves_nothing(ws: Path, monkeypatch) -> None:
    cancel = threading.Event()
    calls = _wrap_popen(monkeypatch, lambda proc: cancel.set())
    result = _cold(ws, cancel)
    _assert_cancelled(result, ws)
    assert len(calls) == 1
    assert _left_behind(ws) == []


@pytest.mark.skipif(not BWRAP_WORKS, reason="bwrap unusable here")
def test_a_cold_run_cancelled_before_bwrap_hands_over_to_its_namespace_leaves_nothing(
    ws: Path, monkeypatch
) -> None:
    """The leak seen in full-suite runs (2-3 each): bwrap's child, the init (pid 1) of the
    run's namespace, blocks until bwrap has cloned it and signalled it to go on, and sets
    its parent-death signal only later; bwrap killed in between left it asleep for ever
    (ppid 1, holding the deleted workspace, outside the run's cgroup).

    That moment lasts microseconds; here bwrap is held in it: after the clone and before
    the signal bwrap writes its --info-fd, given a full pipe."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    with contextlib.suppress(BlockingIOError):
        while True:
            os.write(write_end, b"x" * 65536)
    os.set_blocking(write_end, True)
    real_prefix = _runner.bwrap_prefix

    def prefix(*args, **kwargs) -> list[str] | None:
        argv = real_prefix(*args, **kwargs)
        return argv and [argv[0], "--info-fd", str(write_end), *argv[1:]]

    cancel = threading.Event()
    held: list[int] = []

    def cancel_once_cloned(proc: subprocess.Popen) -> None:
        deadline = time.monotonic() + 30
        while not (inits := children(proc.pid)) and time.monotonic() < deadline:
            time.sleep(0.005)
        held.extend(inits)
        cancel.set()

    class Popen(subprocess.Popen):  # bwrap gets the full pipe
        def __init__(self, args, *rest, **kwargs) -> None:
            if str(_runner.SUPERVISOR) in map(str, args):
                kwargs["pass_fds"] = (*kwargs.get("pass_fds", ()), write_end)
            super().__init__(args, *rest, **kwargs)
            if str(_runner.SUPERVISOR) in map(str, args):
                cancel_once_cloned(self)

    monkeypatch.setattr(_runner, "bwrap_prefix", prefix)
    monkeypatch.setattr(_runner.subprocess, "Popen", Popen)
    try:
        result = _cold(ws, cancel)
        _assert_cancelled(result, ws)
        assert held, "bwrap made no namespace init"
        assert _left_behind(ws) == []
    finally:
        os.close(read_end)
        os.close(write_end)


@pytest.mark.skipif(not BWRAP_WORKS, reason="bwrap unusable here")
def test_cold_runs_cancelled_at_moments_of_bwraps_start_leave_nothing(
    tmp_path: Path, monkeypatch
) -> None:
    """The same leak, in the wild: cancels a few milliseconds apart across bwrap's start
    (without the fix, about one in eight of these left an init behind on this machine)."""
    delay = [0.0]
    cancel = threading.Event()

    def cancel_after(proc: subprocess.Popen) -> None:
        end = time.monotonic() + delay[0]
        while time.monotonic() < end:
            pass
        cancel.set()

    _wrap_popen(monkeypatch, cancel_after)
    for ms in (0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 30, 50, 100, 200):
        delay[0] = ms / 1000
        cancel.clear()
        ws = tmp_path / str(ms)
        ws.mkdir()
        _assert_cancelled(_cold(ws, cancel), ws)
    assert _left_behind(tmp_path) == []


def test_a_cold_run_cancelled_while_it_runs_leaves_nothing(ws: Path, mark) -> None:
    token, env = mark
    cancel = threading.Event()

    def cancel_once_running() -> None:
        try:
            wait_until(lambda: marked_pids(token), message="the run never started")
        finally:
            cancel.set()

    threading.Thread(target=cancel_once_running, daemon=True).start()
    result = _cold(ws, cancel, env)
    _assert_cancelled(result, ws)
    assert wait_gone(token) == []
    assert _left_behind(ws) == []


# --- warm runs -----------------------------------------------------------------------


@pytest.fixture
def pool(monkeypatch) -> Iterator[WarmPool]:
    """This test's own warm pool (one server at most), shut down after it."""
    monkeypatch.setenv("SCIGATE_WARM_SERVERS", "1")
    key = PoolKey(BWRAP_WORKS, False, Limits().tmp_bytes, str(shared_cache(None)))
    made = _warm._pool(sys.executable, ("colorsys",), key)
    assert made.size == 1
    try:
        yield made
    finally:
        made.shutdown()
        with _warm._pools_lock:
            _warm._pools.pop((sys.executable, ("colorsys",), key), None)


def _warm_run(
    ws: Path, cancel: threading.Event, env: dict[str, str] | None = None, code: str = SLEEP
):
    (ws / "s.py").write_text(code)
    return execute_warm(
        [sys.executable, "s.py"],
        script=Path("s.py"),
        workspace=ws,
        limits=LIMITS,
        env=env,
        cache_dir=None,
        preload=("colorsys",),
        cancel=cancel,
    )


def _no_cold_runs(monkeypatch) -> list[object]:
    """Cold fallbacks of `execute_warm`, listed (a cancelled run must not start one)."""
    calls: list[object] = []
    real = _warm.execute

    def execute(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(_warm, "execute", execute)
    return calls


def test_a_warm_run_cancelled_while_waiting_for_a_server_starts_nothing(
    tmp_path: Path, pool: WarmPool, mark, monkeypatch
) -> None:
    """It used to fall back to a cold run, started with the cancel already set (and so
    killed while bwrap started: the leak above); and the pool counted a fallback."""
    token, env = mark
    busy_ws, ws = tmp_path / "busy", tmp_path / "ws"
    busy_ws.mkdir()
    ws.mkdir()
    busy_cancel, cancel = threading.Event(), threading.Event()
    busy: list[object] = []
    # a forked warm run keeps its server's environ: the marker shows on what it execs
    code = "import subprocess; subprocess.run(['sleep', '60'])"
    holder = threading.Thread(
        target=lambda: busy.append(_warm_run(busy_ws, busy_cancel, env, code))
    )
    holder.start()
    try:
        wait_until(  # the server's first start, on a loaded machine
            lambda: marked_pids(token) or busy,
            timeout=120,
            message="the first run did not start",
        )
        assert not busy, f"the first run did not start {busy}"
        cold = _no_cold_runs(monkeypatch)
        real_wait = pool.cond.wait

        def wait(timeout: float | None = None) -> bool:  # the run now waits for the server
            cancel.set()
            return real_wait(timeout)

        monkeypatch.setattr(pool.cond, "wait", wait)
        result = _warm_run(ws, cancel)
        _assert_cancelled(result, ws)
        # before the server it waited for was free: the busy run is still in its sleep
        assert busy == [] and marked_pids(token)
        assert cold == []
        status = pool.status()
        assert status["fallbacks"] == 0 and status["failure"] is None
    finally:
        busy_cancel.set()
        holder.join(60)
    _assert_cancelled(busy[0], busy_ws)
    assert wait_gone(token) == []
    assert _left_behind(tmp_path) == []


def test_a_warm_run_cancelled_while_its_server_starts_does_not_wait_for_it(
    ws: Path, pool: WarmPool, mark, monkeypatch
) -> None:
    """It used to wait for the server's hello (up to READY_SECONDS, 180 s) before the
    cancel was looked at. The server here is one whose preload never finishes importing:
    the same sandbox and process, running a sleep instead of `_warm_server.py`."""
    token, env = mark
    cancel = threading.Event()
    spawned: list[subprocess.Popen] = []
    real_spawn = _warm._spawn

    def spawn(argv: list[str], **kwargs) -> subprocess.Popen:
        at = argv.index(str(_warm.SERVER))  # [*bwrap, python, "-P", SERVER, ...]
        argv = [*argv[: at - 1], "-c", "import time; time.sleep(600)"]
        proc = real_spawn(argv, **{**kwargs, "env": {**kwargs["env"], **env}})
        spawned.append(proc)
        cancel.set()
        return proc

    monkeypatch.setattr(_warm, "_spawn", spawn)
    monkeypatch.setattr(_warm, "READY_SECONDS", 60.0)  # a lost cancel fails, not hangs
    cold = _no_cold_runs(monkeypatch)
    result = _warm_run(ws, cancel)
    _assert_cancelled(result, ws)
    assert cold == []
    (proc,) = spawned
    assert proc.poll() is not None  # the half-started server was killed and reaped
    assert wait_gone(token) == []  # and everything in its sandbox
    status = pool.status()
    assert status["servers"] == [] and status["failure"] is None  # not a failed start
    assert pool.starting == 0


def test_a_warm_run_cancelled_after_getting_its_server_is_never_sent(
    ws: Path, pool: WarmPool, monkeypatch
) -> None:
    cancel = threading.Event()
    served: list[WarmServer] = []
    real_acquire = pool.acquire

    def acquire(event: threading.Event | None) -> WarmServer:
        server = real_acquire(event)
        served.append(server)
        cancel.set()
        return server

    monkeypatch.setattr(pool, "acquire", acquire)
    result = _warm_run(ws, cancel)
    _assert_cancelled(result, ws)
    (server,) = served
    assert server.runs == 0  # the request never went out
    assert pool.status()["idle"] == 1  # and the server is kept for the next run
    assert (ws / "s.py").is_file()  # the workspace stays where it was
