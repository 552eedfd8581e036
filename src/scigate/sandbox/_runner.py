"""Run an untrusted command under the supervisor and collect a `SandboxResult`."""

from __future__ import annotations

import asyncio
import contextlib
import marshal
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any

from scigate._secrets import redact
from scigate.errors import BadInput
from scigate.sandbox import _explain, _formcache
from scigate.sandbox._capture import BoundedCapture
from scigate.sandbox._env import default_cache_dir, sandbox_env
from scigate.sandbox._isolation import (
    WORKSPACE,
    bwrap_prefix,
    isolation_note,
    kill_sandbox,
    nested_userns_disabled,
)
from scigate.sandbox._jitcache import JIT_SUBDIR, TRUSTED_ENV, link_trusted, trusted_dir
from scigate.sandbox._limits import RunLimits
from scigate.sandbox._models import Limits, SandboxResult
from scigate.sandbox._workspace import open_workspace, real_dirs

SUPERVISOR = Path(__file__).with_name("_supervisor.py")
MAX_ENTRIES = 100_000  # files and directories a workspace may hold (_supervisor.MAX_ENTRIES)
GRACE_SECONDS = 10.0  # the supervisor enforces the wall clock; this is the caller's backstop
TERM_SECONDS = 3.0  # after SIGTERM to the supervisor, wait this long before SIGKILL
CHUNK = 1 << 16


def _argv(command: str | list[str]) -> list[str]:
    if isinstance(command, str):
        if not command.strip():
            raise BadInput("sandbox command is empty")
        return ["/bin/sh", "-c", command]
    argv = [str(part) for part in command]
    if not argv or not argv[0].strip():
        raise BadInput("sandbox command is empty")
    return argv


def _workspace(workspace: Path) -> Path:
    """The workspace with its parents resolved; its last component must be a real
    directory (a symlink there is refused, never followed)."""
    path = Path(workspace).expanduser()
    if path.is_symlink():
        raise BadInput(f"sandbox workspace is a symlink: {workspace}")
    if not path.is_dir():
        raise BadInput(f"sandbox workspace is not a directory: {workspace}")
    return path.resolve()


class Pump:
    """Feeds stdin and drains the output pipes of a run until both streams close.

    `stop(level)` asks the run to end: level 0 politely (the supervisor cleans up),
    level 1 forcefully, `TERM_SECONDS` later if it lingers. `finished()` says the
    supervisor is done; a stray writer then gets one second before the pump gives up.
    """

    def __init__(
        self,
        captures: dict[int, BoundedCapture],
        *,
        stop: Callable[[int], None],
        finished: Callable[[], bool],
        stdin_file: IO[bytes] | None = None,
        stdin: bytes = b"",
    ):
        self.sel = selectors.DefaultSelector()
        self.captures = captures
        for fd in self.captures:
            self.sel.register(fd, selectors.EVENT_READ)
        self.pending = memoryview(stdin)
        self.stdin_file = stdin_file
        if stdin_file is not None:
            os.set_blocking(stdin_file.fileno(), False)
            self.sel.register(stdin_file.fileno(), selectors.EVENT_WRITE)
        self._stop = stop
        self.finished = finished
        self.signalled: tuple[int, float] | None = None

    def stop(self) -> None:
        """Escalate: level 0 at once, level 1 when the run lingers `TERM_SECONDS`."""
        now = time.monotonic()
        if self.signalled is None:
            self.signalled = (0, now)
        elif self.signalled[0] == 0 and now - self.signalled[1] > TERM_SECONDS:
            self.signalled = (1, now)
        else:
            return
        self._stop(self.signalled[0])

    def run(self, deadline: float, cancel: threading.Event | None) -> bool:
        """Pump until the streams close; True when the caller's backstop had to act."""
        backstop = False
        exited_at: float | None = None
        while any(key.events & selectors.EVENT_READ for key in self.sel.get_map().values()):
            now = time.monotonic()
            if now > deadline:
                backstop = True
            if backstop or (cancel is not None and cancel.is_set()):
                self.stop()
            if self.finished():
                exited_at = exited_at or now
                if now - exited_at > 1.0:  # a stray writer kept a pipe open; stop waiting
                    break
            for key, _ in self.sel.select(timeout=0.1):
                self._service(key.fd)
        self.close_stdin()
        self.sel.close()
        return backstop

    def _service(self, fd: int) -> None:
        if fd in self.captures:
            data = os.read(fd, CHUNK)
            if data:
                self.captures[fd].feed(data)
            else:
                self.sel.unregister(fd)
            return
        try:
            written = os.write(fd, self.pending[:CHUNK])
            self.pending = self.pending[written:]
        except (BrokenPipeError, BlockingIOError):
            self.pending = self.pending[:0]
        if not self.pending:
            self.close_stdin()

    def close_stdin(self) -> None:
        """Close the run's stdin (once everything was written, or at the end)."""
        if self.stdin_file is not None and not self.stdin_file.closed:
            with contextlib.suppress(KeyError, ValueError):
                self.sel.unregister(self.stdin_file.fileno())
            with contextlib.suppress(OSError):
                self.stdin_file.close()


def pump(
    streams: tuple[int, int],
    limits: Limits,
    started: float,
    *,
    stop: Callable[[int], None],
    finished: Callable[[], bool],
    cancel: threading.Event | None,
    stdin_file: IO[bytes] | None = None,
    stdin: bytes = b"",
) -> tuple[BoundedCapture, BoundedCapture, bool]:
    """Capture a run's (stdout, stderr) fds within the output cap; also the backstop flag.

    The supervisor enforces the wall clock; past it plus `GRACE_SECONDS` the caller
    stops the run itself. On an exception (e.g. KeyboardInterrupt) the run is stopped.
    """
    out, err = BoundedCapture(limits.output_bytes), BoundedCapture(limits.output_bytes)
    p = Pump(
        {streams[0]: out, streams[1]: err},
        stop=stop,
        finished=finished,
        stdin_file=stdin_file,
        stdin=stdin,
    )
    try:
        backstop = p.run(started + limits.wall_seconds + GRACE_SECONDS, cancel)
    except BaseException:
        p.stop()
        p.close_stdin()
        raise
    return out, err, backstop


def _read_result(fd: int) -> dict:
    chunks = []
    with contextlib.suppress(OSError), os.fdopen(fd, "rb") as pipe:
        os.set_blocking(fd, False)
        end = time.monotonic() + 2.0
        sel = selectors.DefaultSelector()
        sel.register(fd, selectors.EVENT_READ)
        while time.monotonic() < end:
            if not sel.select(timeout=0.1):
                continue
            data = pipe.read(CHUNK)
            if not data:
                break
            chunks.append(data)
        sel.close()
    try:
        raw = marshal.loads(b"".join(chunks)) if chunks else {}
    except (EOFError, ValueError, TypeError):
        return {}
    return raw if isinstance(raw, dict) else {}


def prepare(
    workspace: Path,
    limits: Limits | None,
    env: Mapping[str, str] | None,
    cache_dir: Path | None,
    *,
    warm: bool = False,
    forms: bool = True,
    forms_scope: str | None = None,
) -> tuple[Path, Limits, dict[str, str], list[str] | None, int | None]:
    """Check and set up a run: (workspace, limits, environment, isolation prefix or None,
    the workspace's descriptor that the prefix binds or None).

    Under isolation the environment names the workspace as the run sees it
    (`/sandbox/workspace`) and the prefix binds it by descriptor, which the caller
    passes to bwrap and closes; with `warm` neither is made (the server has its own).
    With `forms` the run's FFCx JIT takes compiled modules from the shared forms cache
    (`_formcache`; the caller serves the run's spool with `forms_watcher`); without it
    the run uses no FFCx cache at all (a trusted form compile, which runs only the C
    compiler), so no links to the trusted JIT cache are made in its workspace either.
    The run shares compiled forms only with runs of the same `forms_scope` (default: a
    fresh one, so with none).
    Raises `IsolationUnavailable` when isolation is missing and not waived.
    """
    ws = _workspace(workspace)
    limits = limits or Limits()
    cache = Path(cache_dir).expanduser() if cache_dir else default_cache_dir()
    try:
        cache.mkdir(parents=True, exist_ok=True)
        os.close(real_dirs(ws, ".home"))
    except OSError as exc:
        raise BadInput(f"cannot prepare the sandbox directories: {exc}") from exc
    cache = shared_cache(cache)
    if not warm and forms:  # a warm run looks in the shared cache itself (_warm_server)
        try:
            link_trusted(ws, cache)
        except OSError as exc:
            raise BadInput(f"cannot prepare the run's JIT cache: {exc}") from exc
    ws_fd = None if warm or limits.unisolated else open_workspace(ws)
    try:
        prefix = bwrap_prefix(limits, cache_dir=cache, workspace_fd=ws_fd)
    except BaseException:
        if ws_fd is not None:
            os.close(ws_fd)
        raise
    if prefix is None and ws_fd is not None:
        os.close(ws_fd)
        ws_fd = None
    inside = WORKSPACE if prefix is not None else None
    child_env = sandbox_env(os.environ, workspace=ws, extra=env, inside=inside)
    child_env[TRUSTED_ENV] = str(trusted_dir(cache) / JIT_SUBDIR)
    # compiled forms from the shared cache (_formhook); not where a run could make a user
    # namespace of its own and list the sealed forms directory from there
    if forms and _formcache.enabled() and (prefix is None or nested_userns_disabled()):
        scope = _formcache.new_scope() if forms_scope is None else forms_scope
        child_env.update(
            _formcache.run_env(cache, inside or str(ws), scope, child_env.get("PYTHONPATH", ""))
        )
    if inside is not None:
        child_env = {k: inside_path(v, ws) for k, v in child_env.items()}
    return ws, limits, child_env, prefix, ws_fd


def shared_cache(cache_dir: Path | None) -> Path:
    """The shared (read-only inside runs) cache directory: `cache_dir` or the default."""
    return (Path(cache_dir).expanduser() if cache_dir else default_cache_dir()).resolve()


def inside_path(text: str, workspace: Path) -> str:
    """`text` with the workspace's host path replaced by the path the run sees."""
    host = str(workspace)
    if host not in text:
        return text
    return text.replace(host + "/", WORKSPACE + "/").replace(host, WORKSPACE)


def _config_fd(config: dict) -> int:
    """A memfd holding the marshal-encoded config, rewound, for the supervisor to read."""
    fd = os.memfd_create("scigate-sandbox-config", 0)
    os.write(fd, marshal.dumps(config))
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def execute(
    command: str | list[str],
    *,
    workspace: Path,
    limits: Limits | None = None,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    cache_dir: Path | None = None,
    cancel: threading.Event | None = None,
    forms: bool = True,
    forms_scope: str | None = None,
) -> SandboxResult:
    """The body of `run`; `cancel` (set from another thread) stops the run early;
    `forms=False` keeps the run away from the shared compiled-forms and JIT caches;
    `forms_scope` (see `prepare`) the runs it shares compiled forms with."""
    argv = _argv(command)
    ws, limits, child_env, prefix, ws_fd = prepare(
        workspace, limits, env, cache_dir, forms=forms, forms_scope=forms_scope
    )
    try:
        watcher = forms_watcher(ws, cache_dir, child_env)
    except BaseException:
        if ws_fd is not None:
            os.close(ws_fd)
        raise
    with watcher:
        result = _execute(argv, ws, limits, child_env, prefix, ws_fd, stdin, cancel)
    result.forms = _formcache.forms_used(watcher)  # after the watcher took the last notes
    return result


def forms_watcher(
    ws: Path, cache_dir: Path | None, child_env: Mapping[str, str]
) -> contextlib.AbstractContextManager:
    """The server of a run's compiled-form requests while it lasts (`_formcache`), or
    nothing when the run does not use the shared forms cache."""
    try:
        if _formcache.SPOOL_ENV not in child_env:
            # not shared here: a forms directory made before is still sealed, since
            # the run sees the cache directory (best effort: this run asks nothing of it)
            with contextlib.suppress(OSError):
                _formcache.FormCache(_formcache.forms_dir(shared_cache(cache_dir))).seal()
            return contextlib.nullcontext()
        return _formcache.SpoolWatcher(
            ws, shared_cache(cache_dir), child_env.get(_formcache.SCOPE_ENV, "")
        )
    except OSError as exc:
        raise BadInput(f"cannot prepare the run's form spool: {exc}") from exc


def _execute(
    argv: list[str],
    ws: Path,
    limits: Limits,
    child_env: dict[str, str],
    prefix: list[str] | None,
    ws_fd: int | None,
    stdin: str | None,
    cancel: threading.Event | None,
) -> SandboxResult:
    isolated = prefix is not None
    if cancel is not None and cancel.is_set():  # nothing started: nothing to kill
        if ws_fd is not None:
            os.close(ws_fd)
        return cancelled_result(argv, limits, prefix)
    group = RunLimits.open(limits)
    config = {
        "command": [inside_path(a, ws) for a in argv] if isolated else argv,
        "cwd": WORKSPACE if isolated else str(ws),
        "limits": limits.model_dump(),
        "caller_pid": 0 if isolated else os.getpid(),  # not visible in the PID namespace
        **group.config(),
    }
    config_fd = _config_fd(config)  # marshal: same interpreter on both sides, no json
    result_r, result_w = os.pipe()
    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            [
                *(prefix or []),
                sys.executable,
                "-I",
                "-S",
                str(SUPERVISOR),
                str(config_fd),
                str(result_w),
            ],
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ws,
            env=child_env,
            pass_fds=(result_w, config_fd, *group.fds()) + ((ws_fd,) if ws_fd is not None else ()),
            start_new_session=True,
        )
    except OSError:
        os.close(result_r)
        group.close()
        raise
    finally:
        os.close(result_w)
        os.close(config_fd)
        if ws_fd is not None:
            os.close(ws_fd)

    def stop(level: int) -> None:
        if isolated:  # its PID namespace at once, whatever moment bwrap is at
            if proc.poll() is None:  # not reaped: its pid is still bwrap's
                kill_sandbox(proc.pid)
            return
        # SIGTERM the supervisor's group (it cleans up), then KILL
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL if level else signal.SIGTERM)

    assert proc.stdout is not None and proc.stderr is not None  # both are PIPEs
    try:
        out, err, backstop = pump(
            (proc.stdout.fileno(), proc.stderr.fileno()),
            limits,
            started,
            stop=stop,
            finished=lambda: proc.poll() is not None,
            cancel=cancel,
            stdin_file=proc.stdin,
            stdin=(stdin or "").encode(),
        )
        try:
            proc.wait(timeout=TERM_SECONDS)
        except subprocess.TimeoutExpired:
            stop(1)
            proc.wait()
        raw = _read_result(result_r)
    finally:
        proc.stdout.close()
        proc.stderr.close()
        group.close()  # kills what is left of the run, then measures it
    if not raw and cancel is not None and cancel.is_set():
        raw = {"cancelled": True}  # bwrap ended with its namespace before the report
    elapsed = time.monotonic() - started
    return build_result(argv, raw, out, err, limits, elapsed, backstop, prefix, group)


def cancelled_result(argv: list[str], limits: Limits, prefix: list[str] | None) -> SandboxResult:
    """The result of a run cancelled before anything of it was started."""
    empty = BoundedCapture(limits.output_bytes)
    return build_result(
        argv, {"cancelled": True, "seconds": 0.0}, empty, empty, limits, 0.0, False, prefix
    )


def build_result(
    argv: list[str],
    raw: dict,
    out: BoundedCapture,
    err: BoundedCapture,
    limits: Limits,
    elapsed: float,
    backstop: bool,
    prefix: list[str] | None,
    group: RunLimits | None = None,
) -> SandboxResult:
    """The `SandboxResult` of a run from the supervisor's raw report, the captured
    streams and, when the run had one, its cgroup's measurements."""
    status = raw.get("status")
    exit_code = sig = None
    if status is not None:
        if os.WIFEXITED(status):
            exit_code = os.WEXITSTATUS(status)
        elif os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
    spawn_error = raw.get("spawn_error")
    lost = raw.get("lost")  # a warm server died or stopped answering during the run
    if not raw and not backstop:
        spawn_error = "the sandbox supervisor ended without reporting"
    if spawn_error:
        exit_code = 127
    stderr = redact(err.text())
    timed_out = bool(raw.get("timed_out")) or backstop
    ok = exit_code == 0 and not timed_out
    measured = group.report() if group is not None else {}
    peak = measured.get("peak_memory_bytes") or raw.get("peak_rss")
    memory_hit = _explain.memory_exceeded(
        ok=ok, limit=limits.memory_bytes, stderr=stderr, sig=sig, peak=peak
    ) or (not ok and bool(measured.get("oom_kills") or measured.get("memory_limit_hit")))
    cpu_hit = bool(raw.get("cpu_limit")) or _explain.cpu_exceeded(
        sig=sig, limit=limits.cpu_seconds, cpu_seconds=raw.get("cpu_seconds")
    )
    tasks_hit = not ok and bool(measured.get("tasks_limit_hit"))
    tail = [line.strip() for line in stderr.splitlines() if line.strip()][-3:]
    reason = _explain.reason(
        spawn_error=spawn_error,
        lost=lost,
        cancelled=bool(raw.get("cancelled")) and not timed_out,
        timed_out=timed_out,
        wall_seconds=limits.wall_seconds,
        killed=int(raw.get("killed", 0)),
        proc_limit=bool(raw.get("proc_limit")),
        tasks_limit=tasks_hit and not raw.get("proc_limit"),
        max_processes=limits.max_processes,
        memory_hit=memory_hit,
        memory_limit=limits.memory_bytes,
        cpu_hit=cpu_hit,
        cpu_limit=limits.cpu_seconds,
        exit_code=exit_code,
        sig=sig,
        stderr_tail=" | ".join(tail),
        disk_limit=bool(raw.get("disk_limit")),
        workspace_bytes=limits.workspace_bytes,
        entries_limit=MAX_ENTRIES if raw.get("entries_limit") else None,
        memory_suspect=not memory_hit
        and _explain.maybe_memory(
            ok=ok, limit=limits.memory_bytes, stderr=stderr, sig=sig, peak=peak
        ),
    )
    return SandboxResult(
        command=argv,
        exit_code=exit_code,
        stdout=redact(out.text()),
        stderr=stderr,
        stdout_truncated=out.truncated,
        stderr_truncated=err.truncated,
        timed_out=timed_out,
        signal=sig,
        seconds=round(float(raw.get("seconds", elapsed)), 4),
        peak_memory_bytes=peak,
        memory_exceeded=memory_hit,
        network_isolated=prefix is not None and not limits.network,
        reason=reason,
        isolation=isolation_note(prefix, limits.network, limits.unisolated)
        + "; "
        + (group.note if group is not None else RunLimits.unavailable_note()),
        workspace_exceeded=bool(raw.get("disk_limit")) or sig == signal.SIGXFSZ,
    )


def run(
    command: str | list[str],
    *,
    workspace: Path,
    limits: Limits | None = None,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    cache_dir: Path | None = None,
    forms_scope: str | None = None,
) -> SandboxResult:
    """Run `command` in `workspace` under the sandbox and wait for it.

    A string runs through `/bin/sh -c`; a list is executed directly. `env` adds
    variables to the scrubbed environment; `cache_dir` (default `default_cache_dir()`)
    holds the caches runs share (read-only inside them: the FFCx JIT cache that only
    trusted processes fill, and the compiled forms). A run reuses compiled forms only
    of runs given the same `forms_scope` (`new_forms_scope()`; default: none).
    """
    return execute(
        command,
        workspace=workspace,
        limits=limits,
        env=env,
        stdin=stdin,
        cache_dir=cache_dir,
        forms_scope=forms_scope,
    )


async def _in_thread(body: Callable[..., SandboxResult], **kwargs: Any) -> SandboxResult:
    """Run `body(..., cancel=Event)` in a thread; cancelling the task sets the event, so
    the whole run is killed, and waits for that before re-raising."""
    cancel = threading.Event()
    job = asyncio.ensure_future(asyncio.to_thread(body, cancel=cancel, **kwargs))
    try:
        return await asyncio.shield(job)
    except asyncio.CancelledError:
        cancel.set()
        with contextlib.suppress(Exception):
            await job
        raise


async def arun(
    command: str | list[str],
    *,
    workspace: Path,
    limits: Limits | None = None,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    cache_dir: Path | None = None,
    forms_scope: str | None = None,
) -> SandboxResult:
    """`run` without blocking the event loop; cancelling the task kills the whole run."""
    return await _in_thread(
        execute,
        command=command,
        workspace=workspace,
        limits=limits,
        env=env,
        stdin=stdin,
        cache_dir=cache_dir,
        forms_scope=forms_scope,
    )


_formcache.use_runner(execute)  # trusted form compiles run in this sandbox too
