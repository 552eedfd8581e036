"""Warm mode: Python runs forked from long-lived servers that imported the slow modules.

A fresh interpreter spends most of a small FEniCSx run importing dolfinx, PETSc and MPI.
`execute_warm` instead sends the run to a warm server (`_warm_server.py`) from a pool
keyed by (python, preload modules, isolation prefix). The server was started through the
same isolation path as a cold run, imported the modules once and acts as the run's
supervisor (same `Supervisor` code: subreaper, limits, wall clock, process count, kill
and reap of the whole tree); the run's stdout/stderr read ends come back over the socket
and go through the same capped capture (`_runner.pump`) and the same result code
(`_runner.build_result`). One request per server at a time; a pool holds at most `size`
servers (the CPU count), started on demand. A server that dies or stops answering is
replaced; when no server can start, runs fall back to the cold path and the reason is
kept for `protections()`. Servers exit when their socket closes (atexit here, or the
caller's death) or when the caller's pid goes away.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import marshal
import os
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

from scigate.errors import BadInput
from scigate.sandbox import _formcache
from scigate.sandbox._capture import BoundedCapture
from scigate.sandbox._env import sandbox_env
from scigate.sandbox._isolation import WORKSPACE, bwrap_prefix, kill_sandbox
from scigate.sandbox._limits import RunLimits
from scigate.sandbox._models import Limits, SandboxResult
from scigate.sandbox._runner import (
    TERM_SECONDS,
    build_result,
    cancelled_result,
    execute,
    forms_watcher,
    inside_path,
    prepare,
    pump,
    shared_cache,
)

SERVER = Path(__file__).with_name("_warm_server.py")
READY_SECONDS = 180.0  # importing dolfinx on a loaded machine, first .pyc compile included
REPLY_SECONDS = 30.0  # a healthy server answers a request or reports within milliseconds
RETRY_SECONDS = 300.0  # after a failed start, runs of that key go cold this long
MAX_MESSAGE = 1 << 20
CANCEL = b"C"
# one thread per library in the server, so fork() never copies a busy thread pool
SERVER_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


# bwrap's --die-with-parent (PR_SET_PDEATHSIG) fires when the *thread* that started it
# exits: servers started from a short-lived worker thread (asyncio's default executor,
# gone after each asyncio.run) would die between runs. One long-lived thread per process
# starts them (made again in a forked child, which does not inherit the thread).
_spawner: ThreadPoolExecutor | None = None
_spawner_lock = threading.Lock()


def _forget_spawner() -> None:
    global _spawner, _spawner_lock
    _spawner, _spawner_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_spawner)


def _popen(*args: Any, **kwargs: Any) -> subprocess.Popen:
    return subprocess.Popen(*args, **kwargs)


def _spawn(*args: object, **kwargs: object) -> subprocess.Popen:
    """`subprocess.Popen(*args, **kwargs)` from this process's long-lived spawner thread."""
    global _spawner
    with _spawner_lock:
        if _spawner is None:
            _spawner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="scigate-warm-spawn")
        pool = _spawner
    return pool.submit(_popen, *args, **kwargs).result()


class WarmUnavailable(Exception):
    """No warm server can serve this run; the message says why."""


class ServerLost(Exception):
    """The server died or stopped answering mid-request."""


class Cancelled(Exception):
    """The run was cancelled before it was sent to a server (nothing of it started)."""


class WarmServer:
    """The caller's handle on one server process and its socket."""

    def __init__(
        self,
        python: str,
        preload: tuple[str, ...],
        key: PoolKey,
        cancel: threading.Event | None = None,
    ) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix=f"scigate-warm-{os.getpid()}-"))
        # bound at /sandbox/workspace: each run's files are moved in and out by name,
        # so a run can neither rename its workspace away nor write anywhere else
        self.slot = self.dir / "workspace"
        self.isolated = key.isolated
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock = ours
        self.runs = 0
        cache = Path(key.cache_dir)
        env = sandbox_env(
            os.environ,
            workspace=self.dir,
            extra={**SERVER_ENV, **({"SCIGATE_WARM_ISOLATED": "1"} if self.isolated else {})},
            inside="/run" if self.isolated else None,
        )
        slot_fd = None
        try:
            (self.dir / ".home").mkdir()
            self.slot.mkdir()
            if self.isolated:
                slot_fd = os.open(self.slot, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
            prefix = (
                bwrap_prefix(
                    key.limits(), cache_dir=cache, workspace_fd=slot_fd, warm=True, chdir="/"
                )
                if self.isolated
                else None
            )
            self.proc = _spawn(
                [
                    *(prefix or []),
                    python,
                    "-P",
                    str(SERVER),
                    str(theirs.fileno()),
                    str(0 if self.isolated else os.getpid()),
                    *preload,
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd=self.dir,
                env=env,
                pass_fds=(theirs.fileno(),) + ((slot_fd,) if slot_fd is not None else ()),
                start_new_session=True,
            )
        except (OSError, BadInput) as exc:
            self.sock.close()
            shutil.rmtree(self.dir, ignore_errors=True)
            raise WarmUnavailable(f"cannot start {python}: {exc}") from exc
        finally:
            theirs.close()
            if slot_fd is not None:
                os.close(slot_fd)
        try:
            hello, _ = self._hello(cancel)
        except ServerLost as exc:
            self.close()
            raise WarmUnavailable(f"the server did not start: {exc}") from exc
        except Cancelled:  # its run is not waiting READY_SECONDS for a server it won't use
            self.kill()
            self.close()
            raise
        if not hello.get("ready"):
            self.close()
            raise WarmUnavailable(str(hello.get("error", "the server did not start")))
        # inside a PID namespace the server's own pid is not ours to signal: use bwrap's
        self.pid = self.proc.pid if self.isolated else int(hello["pid"])

    def _hello(self, cancel: threading.Event | None) -> tuple[dict, list[int]]:
        """The server's first message, within `READY_SECONDS`; Cancelled as soon as
        `cancel` is set."""
        end = time.monotonic() + READY_SECONDS
        while not select.select([self.sock], [], [], 0.1)[0]:
            if cancel is not None and cancel.is_set():
                raise Cancelled("cancelled while its warm server started")
            if time.monotonic() > end:
                raise ServerLost(f"no answer within {READY_SECONDS:g} s")
        return self.receive(0)

    def receive(self, timeout: float) -> tuple[dict, list[int]]:
        """The next message and any fds it carried; ServerLost on EOF or timeout."""
        ready, _, _ = select.select([self.sock], [], [], timeout)
        if not ready:
            raise ServerLost(f"no answer within {timeout:g} s")
        try:
            data, fds, _, _ = socket.recv_fds(self.sock, MAX_MESSAGE, 2)
        except OSError as exc:
            raise ServerLost(str(exc)) from exc
        if not data:
            raise ServerLost(f"the server exited ({self._exit_note()})")
        try:
            message = marshal.loads(data)
        except (EOFError, ValueError, TypeError) as exc:
            for fd in fds:
                os.close(fd)
            raise ServerLost("unreadable message") from exc
        return message, fds

    def _exit_note(self) -> str:
        try:
            code = self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return "still running"
        return f"exit code {code}" if code >= 0 else f"signal {-code}"

    def answered(self) -> bool:
        """True when a message (or EOF) waits on the socket."""
        return bool(select.select([self.sock], [], [], 0)[0])

    def run(
        self,
        request: dict,
        limits: Limits,
        started: float,
        cancel: threading.Event | None,
        fds: Sequence[int] = (),
    ) -> tuple[dict, BoundedCapture | None, BoundedCapture | None, bool]:
        """Serve one request: (raw result, stdout capture, stderr capture, backstop).
        `fds` (the run's cgroup descriptors) travel with the request."""
        self.runs += 1
        try:
            socket.send_fds(self.sock, [marshal.dumps(request)], list(fds))
        except OSError as exc:
            if exc.errno == errno.EMSGSIZE:  # e.g. a huge env=: this run goes cold
                raise WarmUnavailable(f"request too large for one message: {exc}") from exc
            raise ServerLost(f"cannot send the request: {exc}") from exc
        message, fds = self.receive(REPLY_SECONDS)
        if "started" not in message or len(fds) != 2:
            for fd in fds:
                os.close(fd)
            return message.get("result", {}), None, None, False
        child = int(message["started"])

        def stop(level: int) -> None:
            if level == 0:
                with contextlib.suppress(OSError):
                    self.sock.send(CANCEL)
            else:  # the server did not clean up in time: end it and what it ran
                self.kill(child)

        try:
            out, err, backstop = pump(
                (fds[0], fds[1]),
                limits,
                started,
                stop=stop,
                finished=self.answered,
                cancel=cancel,
            )
        finally:
            for fd in fds:
                os.close(fd)
        try:
            message, extra = self.receive(REPLY_SECONDS)
        except ServerLost as exc:  # keep what the run printed before
            self.kill(child)
            return {"lost": f"warm server {self.pid}: {exc}"}, out, err, backstop
        for fd in extra:
            os.close(fd)
        return message.get("result", {}), out, err, backstop

    def kill(self, child: int | None = None) -> None:
        """SIGKILL the server (and bwrap) and the run's process group. Under isolation
        the run's pid is one of the sandbox's PID namespace, never signalled from here:
        killing bwrap's namespace ends everything in it (`kill_sandbox`: also while
        bwrap is still starting)."""
        if self.isolated:
            if self.proc.poll() is None:  # not reaped: its pid is still bwrap's
                kill_sandbox(self.proc.pid)
            return
        for group in (self.proc.pid, child):
            if group:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(group, signal.SIGKILL)

    def close(self, wait: bool = True) -> None:
        """Close the socket (the server exits on EOF); with `wait`, reap it."""
        with contextlib.suppress(OSError):
            self.sock.close()
        if wait:
            self.reap()

    def reap(self) -> None:
        """Wait for the server to exit, SIGTERM then SIGKILL if it lingers; remove its dir."""
        try:
            self.proc.wait(timeout=TERM_SECONDS)
        except subprocess.TimeoutExpired:
            if not self.isolated:  # bwrap on SIGTERM would leave a starting namespace
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=TERM_SECONDS)
            except subprocess.TimeoutExpired:
                self.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


class PoolKey(NamedTuple):
    """What a warm server's sandbox is built from: runs that differ here need another."""

    isolated: bool
    network: bool
    tmp_bytes: int
    cache_dir: str

    def limits(self) -> Limits:
        """The limits that shape the server's sandbox (the rest are per run)."""
        return Limits(network=self.network, tmp_bytes=self.tmp_bytes)


class WarmPool:
    """Up to `size` servers for one (python, preload, isolation) key."""

    def __init__(self, python: str, preload: tuple[str, ...], key: PoolKey, size: int) -> None:
        self.python, self.preload, self.key, self.size = python, preload, key, size
        self.cond = threading.Condition()
        self.idle: list[WarmServer] = []
        self.servers: set[WarmServer] = set()
        self.starting = 0
        self.failure: tuple[float, str] | None = None
        self.started = self.replaced = self.fallbacks = self.served = 0

    def acquire(self, cancel: threading.Event | None) -> WarmServer:
        """An idle server, a new one while below `size`, else wait for one to free up;
        Cancelled as soon as `cancel` is set (also while a new server starts)."""
        with self.cond:
            while True:
                if cancel is not None and cancel.is_set():
                    raise Cancelled("cancelled while waiting for a warm server")
                if self.failure and time.monotonic() - self.failure[0] < RETRY_SECONDS:
                    self.fallbacks += 1
                    raise WarmUnavailable(self.failure[1])
                if self.idle:
                    self.served += 1
                    return self.idle.pop()
                if len(self.servers) + self.starting < self.size:
                    self.starting += 1
                    break
                self.cond.wait(0.1)
        try:
            server = WarmServer(self.python, self.preload, self.key, cancel)
        except Cancelled:  # not a failure of the key: runs keep coming warm
            with self.cond:
                self.starting -= 1
                self.cond.notify_all()
            raise
        except WarmUnavailable as exc:
            with self.cond:
                self.starting -= 1
                self.failure = (time.monotonic(), str(exc))
                self.fallbacks += 1
                self.cond.notify_all()
            raise
        with self.cond:
            self.starting -= 1
            self.failure = None
            self.started += 1
            self.served += 1
            self.servers.add(server)
        return server

    def release(self, server: WarmServer, healthy: bool) -> None:
        """Give a server back; an unhealthy one is shut down and later replaced."""
        with self.cond:
            if healthy and server in self.servers:
                self.idle.append(server)
            else:
                self.servers.discard(server)
                self.replaced += 1
            self.cond.notify()
        if not healthy:
            server.close()

    def shutdown(self) -> None:
        """Close every server: all sockets first, so they exit in parallel, then reap."""
        with self.cond:
            servers, self.servers, self.idle = list(self.servers), set(), []
        for server in servers:
            server.close(wait=False)
        for server in servers:
            server.reap()

    def status(self) -> dict:
        """Servers, their pids and counters, and the last start failure if any."""
        with self.cond:
            return {
                "python": self.python,
                "preload": list(self.preload),
                "network_isolated": self.key.isolated and not self.key.network,
                "isolated": self.key.isolated,
                "cache_dir": self.key.cache_dir,
                "size": self.size,
                "servers": sorted(s.pid for s in self.servers),
                "idle": len(self.idle),
                "started": self.started,
                "served": self.served,
                "replaced": self.replaced,
                "fallbacks": self.fallbacks,
                "failure": self.failure[1] if self.failure else None,
            }


_pools: dict[tuple, WarmPool] = {}
_pools_lock = threading.Lock()
_atexit_registered = False


def pool_size() -> int:
    """Servers per key: `$SCIGATE_WARM_SERVERS`, else the CPU count."""
    configured = os.environ.get("SCIGATE_WARM_SERVERS", "")
    return int(configured) if configured.isdigit() and int(configured) > 0 else os.cpu_count() or 1


def _pool(python: str, preload: tuple[str, ...], pool_key: PoolKey) -> WarmPool:
    global _atexit_registered
    key = (python, preload, pool_key)
    with _pools_lock:
        if not _atexit_registered:
            atexit.register(shutdown)
            _atexit_registered = True
        if key not in _pools:
            _pools[key] = WarmPool(python, preload, pool_key, pool_size())
        return _pools[key]


def shutdown() -> None:
    """Stop every warm server of this process (also registered with atexit)."""
    with _pools_lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        pool.shutdown()


def _forget_after_fork() -> None:
    """In a forked child the servers belong to the parent: drop this copy's sockets."""
    for pool in list(_pools.values()):
        for server in pool.servers:
            with contextlib.suppress(OSError):
                server.sock.close()
    _pools.clear()
    global _pools_lock
    _pools_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)


def warm_status() -> list[dict]:
    """One `WarmPool.status()` per key used so far in this process."""
    with _pools_lock:
        pools = list(_pools.values())
    return [pool.status() for pool in pools]


def execute_warm(
    argv: list[str],
    *,
    script: Path,
    workspace: Path,
    limits: Limits | None,
    env: Mapping[str, str] | None,
    cache_dir: Path | None,
    preload: Sequence[str],
    cancel: threading.Event | None = None,
    forms: bool = True,
    forms_scope: str | None = None,
) -> SandboxResult:
    """Run `argv` = [python, script, ...] in a warm server; cold when none can start.

    Under isolation the workspace's entries are moved (renames, same file system) into
    the server's slot, which the server sees as /sandbox/workspace, for the run and
    moved back after; a workspace on another file system runs cold. `forms=False`
    keeps the run away from the shared compiled-forms cache (`_runner.prepare`);
    `forms_scope` names the runs it shares compiled forms with (default: none).
    """
    # one scope for the warm run and its cold fallback: they serve the same spool
    scope = _formcache.new_scope() if forms_scope is None else forms_scope
    ws, limits, child_env, prefix, _ = prepare(
        workspace, limits, env, cache_dir, warm=True, forms=forms, forms_scope=scope
    )
    isolated = prefix is not None
    if cancel is not None and cancel.is_set():
        return cancelled_result(argv, limits, prefix)
    cache = shared_cache(cache_dir)
    key = PoolKey(isolated, limits.network, limits.tmp_bytes, str(cache))
    pool = _pool(argv[0], tuple(preload), key)

    def cold() -> SandboxResult:
        return execute(
            argv,
            workspace=ws,
            limits=limits,
            env=env,
            cache_dir=cache_dir,
            cancel=cancel,
            forms=forms,
            forms_scope=scope,
        )

    try:
        server = pool.acquire(cancel)
    except Cancelled:
        return cancelled_result(argv, limits, prefix)
    except WarmUnavailable:
        return cold()  # which starts nothing once `cancel` is set
    try:  # the run's spool of compiled-form requests (_formcache), in its workspace
        watcher = forms_watcher(ws, cache_dir, child_env)
    except BaseException:
        pool.release(server, healthy=True)
        raise
    with watcher:
        result = _run_warm(argv, script, ws, limits, child_env, prefix, pool, server, cancel, cold)
    # a cold fallback's own watcher served the same spool meanwhile: each took some notes
    result.forms = {**_formcache.forms_used(watcher), **result.forms}
    return result


def _run_warm(
    argv: list[str],
    script: Path,
    ws: Path,
    limits: Limits,
    child_env: dict[str, str],
    prefix: list[str] | None,
    pool: WarmPool,
    server: WarmServer,
    cancel: threading.Event | None,
    cold: Callable[[], SandboxResult],
) -> SandboxResult:
    """The body of `execute_warm` once a server is acquired."""
    isolated = prefix is not None
    if cancel is not None and cancel.is_set():  # set since acquire: the server stays idle
        pool.release(server, healthy=True)
        return cancelled_result(argv, limits, prefix)
    if isolated:
        try:
            move_entries(ws, server.slot)
        except OSError:  # another file system (EXDEV) or a busy entry
            pool.release(server, healthy=True)
            return cold()
    run_ws = server.slot if isolated else ws
    group = RunLimits.open(limits)
    config = group.config()
    request = {
        "cgroup_fds": len(config.get("cgroup_fds", ())),
        "usage_fd": config.get("usage_fd") is not None,
        "argv": [inside_path(a, ws) for a in argv] if isolated else argv,
        "script": inside_path(str(Path(ws, script)), ws) if isolated else str(Path(ws, script)),
        "cwd": WORKSPACE if isolated else str(ws),
        "env": child_env,
        "limits": limits.model_dump(),
        "caller_pid": 0 if isolated else os.getpid(),
    }
    started = time.monotonic()
    try:
        raw, out, err, backstop = server.run(request, limits, started, cancel, group.fds())
    except WarmUnavailable:
        group.close()
        _move_back(run_ws, ws)
        pool.release(server, healthy=True)
        return cold()
    except ServerLost as exc:
        raw, out, err, backstop = {"lost": f"warm server {server.pid}: {exc}"}, None, None, False
    except BaseException:  # e.g. KeyboardInterrupt: closing the socket ends the run
        server.kill()
        group.close()
        _move_back(run_ws, ws)
        pool.release(server, healthy=False)
        raise
    group.close()  # kills what may be left of the run, then measures it
    # the run's files back to the caller before another run may take the server
    emptied = _move_back(run_ws, ws)
    healthy = not backstop and "lost" not in raw and "retire" not in raw and emptied
    pool.release(server, healthy=healthy)
    if out is None or err is None:  # nothing was started
        out, err = BoundedCapture(limits.output_bytes), BoundedCapture(limits.output_bytes)
    elapsed = time.monotonic() - started
    return build_result(argv, raw, out, err, limits, elapsed, backstop, prefix, group)


def move_entries(src: Path, dest: Path) -> None:
    """Move every entry of `src` into the empty directory `dest`, by name (renames:
    nothing is followed, opened or copied). On failure the entries already moved go
    back and OSError is raised."""
    moved: list[str] = []
    src_fd = os.open(src, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        dest_fd = os.open(dest, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            try:
                for name in os.listdir(src_fd):
                    os.rename(name, name, src_dir_fd=src_fd, dst_dir_fd=dest_fd)
                    moved.append(name)
            except OSError:
                for name in moved:
                    with contextlib.suppress(OSError):
                        os.rename(name, name, src_dir_fd=dest_fd, dst_dir_fd=src_fd)
                raise
        finally:
            os.close(dest_fd)
    finally:
        os.close(src_fd)


def _move_back(run_ws: Path, ws: Path) -> bool:
    """The run's files from a server's slot back into the caller's workspace; True when
    the slot is empty after (what cannot be moved is removed, the server is retired)."""
    if run_ws == ws:
        return True
    try:
        move_entries(run_ws, ws)
        return True
    except OSError:
        for entry in list(os.scandir(run_ws)):
            with contextlib.suppress(OSError):
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path)  # fd-based: never follows a link inside
                else:
                    os.unlink(entry.path)
        return False


_formcache.use_warm_runner(execute_warm)  # trusted form compiles fork from a warm server
