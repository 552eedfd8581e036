"""Bounded tool calls: time limits, input size limits and a killable warm worker pool.

Every `Tool.call` goes through `bounded_limits` (which limit applies) and, for tools
declared ``heavy=True`` (3D embedding, descriptors over conformers), through
`WorkerPool.run`: the body runs in a long-lived worker process (`scigate.tools._worker`,
the modules of the heavy tools already run preloaded, pickles over its stdin/stdout), so a
warm call costs one pipe round trip. This module is a leaf of the package: it imports no
tool code (the worker entry point finds tools by module and name).
When the time limit passes the worker is SIGKILLed (RDKit ignores SIGTERM while it is
inside C++), reaped, and replaced on the next call; the caller gets ``ok: false`` naming
the limit.

Light tools run in-process, each call in a fresh daemon thread (`run_in_thread`) that
the caller waits for at most the time limit; then it gets ``ok: false`` naming the limit
and the thread is abandoned. A thread cannot be killed, so this bound is the caller's,
not the CPU's: the abandoned thread is asked to stop (an asynchronous `CallAbandoned`
exception, delivered at its next Python bytecode, which ends pure-Python loops but not a
C call already under way), and while `MAX_ABANDONED` such threads are still running no
new light call starts (a clear error, not an ever-growing pile of busy threads). This is
why light tools are made safe by construction as well: `EvaluateExpression` refuses,
before computing, anything whose result would pass 10**1000 (a C-level ``10**10**9``
holds the interpreter lock, so no timeout in Python could even return while it runs).
Tools that may run long in C belong in the worker pool (``heavy=True``).

Which time limit applies, first match wins: an override (`limit_override` context or
the CLI's ``--time-limit``), the tool's declared ``time_limit``, the library default
(``SCIGATE_TOOL_TIME_LIMIT`` seconds, else 60).
"""

from __future__ import annotations

import atexit
import contextlib
import contextvars
import ctypes
import os
import pickle
import queue
import select
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol


class HeavyCall(Protocol):
    """What the pool needs of a tool: its name and its body (found again in the worker by
    module and qualified name)."""

    @property
    def name(self) -> str: ...

    @property
    def fn(self) -> Callable[..., Any]: ...


DEFAULT_TIME_LIMIT = 60.0
DEFAULT_MAX_INPUT_CHARS = 200_000  # total characters over all string arguments
POOL_SIZE = 2
MAX_ABANDONED = 8  # light calls past their limit that may still run before new ones wait
STARTUP_TIMEOUT = 120.0  # seconds a new worker may take to import the library

_OVERRIDE: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "scigate_tool_time_limit", default=None
)


class LimitExceeded(Exception):
    """A call went past one of its limits; the message names the limit."""


class CallAbandoned(BaseException):
    """Raised inside a light tool's thread once its caller stopped waiting for it.

    A BaseException, so that a tool body's ``except Exception`` does not swallow it.
    """


def library_time_limit() -> float:
    """The library-wide default time limit in seconds (``SCIGATE_TOOL_TIME_LIMIT`` or 60)."""
    raw = os.environ.get("SCIGATE_TOOL_TIME_LIMIT")
    if raw:
        try:
            value = float(raw)
        except ValueError:
            return DEFAULT_TIME_LIMIT
        if value > 0:
            return value
    return DEFAULT_TIME_LIMIT


@contextlib.contextmanager
def limit_override(time_limit: float | None) -> Iterator[None]:
    """Within the block every tool call uses `time_limit` seconds (None: no override)."""
    if time_limit is not None and not time_limit > 0:
        from scigate.errors import BadInput

        raise BadInput(f"time limit must be a positive number of seconds, got {time_limit}")
    token = _OVERRIDE.set(time_limit)
    try:
        yield
    finally:
        _OVERRIDE.reset(token)


def effective_time_limit(declared: float | None) -> float:
    """The time limit that applies to a tool declaring `declared` (see module docstring)."""
    override = _OVERRIDE.get()
    if override is not None:
        return override
    if declared is not None:
        return declared
    return library_time_limit()


def input_chars(value: Any) -> int:
    """Total characters of the strings in an argument value (lists and dicts walked)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(input_chars(k) + input_chars(v) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return sum(input_chars(v) for v in value)
    return 0


def check_input_size(name: str, arguments: dict[str, Any], max_chars: int | None) -> str | None:
    """An error message when the arguments exceed the tool's input size limit, else None."""
    limit = max_chars if max_chars is not None else DEFAULT_MAX_INPUT_CHARS
    size = sum(input_chars(v) for v in arguments.values())
    if size > limit:
        return f"{name}: input size limit exceeded ({size} characters > {limit})"
    return None


# ---------------------------------------------------------------- light tools: threads

_ABANDONED: set[threading.Thread] = set()
_ABANDONED_LOCK = threading.Lock()


def abandoned_calls() -> int:
    """How many light calls ran past their limit and are still running."""
    with _ABANDONED_LOCK:
        _ABANDONED.difference_update([t for t in _ABANDONED if not t.is_alive()])
        return len(_ABANDONED)


def _ask_to_stop(thread: threading.Thread) -> None:
    """Raise `CallAbandoned` in `thread` at its next bytecode (best effort; see above)."""
    ident = thread.ident
    if ident is None:
        return
    set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
    set_async_exc.argtypes = (ctypes.c_ulong, ctypes.py_object)
    set_async_exc.restype = ctypes.c_int
    if set_async_exc(ident, CallAbandoned) > 1:  # never expected: undo rather than guess
        set_async_exc(ident, ctypes.py_object())


def _abandon(thread: threading.Thread) -> None:
    with _ABANDONED_LOCK:
        _ABANDONED.add(thread)
    with contextlib.suppress(Exception):
        _ask_to_stop(thread)


def run_in_thread[T, R](fn: Callable[[T], R], arg: T, time_limit: float, name: str = "") -> R:
    """`fn(arg)` in a daemon thread (in the caller's context); `LimitExceeded` after `time_limit`.

    An exception escaping `fn` comes back as a `RuntimeError` (never as the thread's own
    ``SystemExit`` or ``KeyboardInterrupt``, which are not the caller's).
    """
    running = abandoned_calls()
    if running >= MAX_ABANDONED:
        raise LimitExceeded(
            f"{running} earlier calls ran past their time limit and are still running; "
            "no new call starts until one of them ends"
        )
    outcome: list[tuple[bool, Any]] = []
    context = contextvars.copy_context()

    def target() -> None:
        try:
            outcome.append((True, context.run(fn, arg)))
        except BaseException as exc:  # CallAbandoned included: the thread just ends
            outcome.append((False, exc))

    thread = threading.Thread(target=target, name=f"scigate-tool {name}".strip(), daemon=True)
    thread.start()
    try:
        thread.join(time_limit)
    except BaseException:  # a Ctrl-C while waiting: stop the call, then let it through
        _abandon(thread)
        raise
    if thread.is_alive():
        _abandon(thread)
        raise LimitExceeded(
            f"time limit of {time_limit:g} s exceeded (the call was abandoned and asked to stop)"
        )
    if not outcome:
        raise RuntimeError("the call ended without a result")
    ok, value = outcome[0]
    if not ok:
        raise RuntimeError(f"the call failed ({type(value).__name__})") from value
    return value


# ---------------------------------------------------------------- wire format

_HEADER = struct.Struct("!Q")


def send_message(fd: int, obj: Any) -> None:
    """Write one length-prefixed pickle to a file descriptor."""
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _read_exact(fd: int, n: int) -> bytes:
    chunks = []
    while n:
        chunk = os.read(fd, n)
        if not chunk:
            raise EOFError("pipe closed")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def recv_message(fd: int) -> Any:
    """Read one length-prefixed pickle from a file descriptor (EOFError when closed)."""
    (size,) = _HEADER.unpack(_read_exact(fd, _HEADER.size))
    return pickle.loads(_read_exact(fd, size))


# ---------------------------------------------------------------- parent side


@dataclass
class _Worker:
    process: subprocess.Popen[bytes]

    @property
    def fd_in(self) -> int:
        assert self.process.stdout is not None
        return self.process.stdout.fileno()

    @property
    def fd_out(self) -> int:
        assert self.process.stdin is not None
        return self.process.stdin.fileno()


def _stop(worker: _Worker) -> None:
    """SIGKILL (RDKit does not look at SIGTERM inside C++), reap, close the pipes."""
    with contextlib.suppress(Exception):
        worker.process.kill()
    with contextlib.suppress(Exception):
        worker.process.wait(timeout=5)
    for stream in (worker.process.stdin, worker.process.stdout):
        with contextlib.suppress(Exception):
            if stream is not None:
                stream.close()


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    # the worker imports what this process imports (a source checkout first on the path...)
    paths = [p for p in sys.path if p and os.path.isdir(p)]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


# the worker's entry point lives apart (`_worker`), so this module imports no tool code
_WORKER_ENTRY = (
    "import sys; from scigate.tools._worker import worker_main; worker_main(warm=sys.argv[1:])"
)


class WorkerPool:
    """A small pool of warm worker processes; a call past its limit kills its worker."""

    def __init__(self, size: int = POOL_SIZE) -> None:
        self.size = size
        self._idle: queue.LifoQueue[_Worker] = queue.LifoQueue()
        self._started = 0
        self._lock = threading.Lock()
        self._all: list[_Worker] = []
        # modules of the heavy tools this pool has run: a new worker imports them first
        self._warm: set[str] = set()

    def _spawn(self) -> _Worker:
        proc = subprocess.Popen(
            [sys.executable, "-c", _WORKER_ENTRY, *sorted(self._warm)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=_child_env(),
            start_new_session=True,  # a Ctrl-C at the terminal reaches the parent, not the worker
        )
        worker = _Worker(proc)
        # start-up (imports) is not charged to the first call's time limit
        try:
            ready, _, _ = select.select([worker.fd_in], [], [], STARTUP_TIMEOUT)
            if not ready or recv_message(worker.fd_in) != ("ready",):
                raise OSError("no ready message")
        except BaseException as exc:
            _stop(worker)
            raise RuntimeError(f"worker process did not start ({exc})") from None
        with self._lock:
            self._all.append(worker)
        return worker

    def _acquire(self, timeout: float) -> _Worker:
        with self._lock:
            try:
                return self._idle.get_nowait()
            except queue.Empty:
                spawn = self._started < self.size
                if spawn:
                    self._started += 1
        if spawn:
            try:
                return self._spawn()
            except BaseException:
                with self._lock:
                    self._started -= 1
                raise
        try:
            return self._idle.get(timeout=timeout)
        except queue.Empty:
            raise LimitExceeded(
                f"time limit of {timeout:g} s exceeded while waiting for a free worker"
            ) from None

    def _discard(self, worker: _Worker) -> None:
        _stop(worker)
        with self._lock:
            if worker in self._all:
                self._all.remove(worker)
                self._started -= 1

    def run(self, t: HeavyCall, kwargs: dict[str, Any], time_limit: float) -> tuple[Any, ...]:
        """Run `t`'s body in a worker; the worker's reply, or `LimitExceeded` after `time_limit`."""
        fn = t.fn
        self._warm.add(fn.__module__)
        worker = self._acquire(time_limit)
        job = (fn.__module__, fn.__qualname__, t.name, kwargs)
        try:
            send_message(worker.fd_out, job)
            ready, _, _ = select.select([worker.fd_in], [], [], STARTUP_TIMEOUT)
            first = recv_message(worker.fd_in) if ready else ("error", "worker did not answer")
            if first != ("started",):
                self._idle.put(worker) if ready else self._discard(worker)
                return first
            deadline = time.monotonic() + time_limit
            remaining = max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([worker.fd_in], [], [], remaining)
            if not ready:
                self._discard(worker)
                raise LimitExceeded(
                    f"time limit of {time_limit:g} s exceeded (the worker running it was stopped)"
                )
            reply = recv_message(worker.fd_in)
        except LimitExceeded:
            raise
        except (EOFError, OSError) as exc:
            try:  # the pipe closes a moment before the exit can be reaped
                code = worker.process.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                code = None
            self._discard(worker)
            return ("error", f"worker process died (exit code {code}): {exc}")
        except BaseException:
            self._discard(worker)  # e.g. KeyboardInterrupt mid-call: never reuse a busy worker
            raise
        self._idle.put(worker)
        return reply

    def pids(self) -> list[int]:
        """Process ids of the live workers (for tests and diagnostics)."""
        return [w.process.pid for w in list(self._all)]

    def shutdown(self) -> None:
        """Stop every worker."""
        for worker in list(self._all):
            self._discard(worker)
        while True:
            try:
                self._idle.get_nowait()
            except queue.Empty:
                break


_POOL: WorkerPool | None = None
_POOL_LOCK = threading.Lock()


def worker_pool() -> WorkerPool:
    """The process-wide worker pool (created on first use)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = WorkerPool()
            atexit.register(_POOL.shutdown)
        return _POOL
