"""Run an untrusted command under the supervisor and collect a `SandboxResult`."""

from __future__ import annotations

import asyncio
import contextlib
import marshal
import os
import secrets
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path

from scigate.errors import BadInput
from scigate.sandbox import _explain
from scigate.sandbox._capture import BoundedCapture
from scigate.sandbox._env import default_cache_dir, sandbox_env
from scigate.sandbox._isolation import bwrap_status
from scigate.sandbox._models import Limits, SandboxResult

SUPERVISOR = Path(__file__).with_name("_supervisor.py")
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
    path = Path(workspace).expanduser()
    if not path.is_dir():
        raise BadInput(f"sandbox workspace is not a directory: {workspace}")
    return path.resolve()


class _Pump:
    """Feeds stdin and drains stdout/stderr of the supervisor until both streams close."""

    def __init__(
        self, proc: subprocess.Popen, stdin: bytes, out: BoundedCapture, err: BoundedCapture
    ):
        self.proc = proc
        self.sel = selectors.DefaultSelector()
        self.captures = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
        for fd in self.captures:
            self.sel.register(fd, selectors.EVENT_READ)
        self.pending = memoryview(stdin)
        if proc.stdin is not None:
            os.set_blocking(proc.stdin.fileno(), False)
            self.sel.register(proc.stdin.fileno(), selectors.EVENT_WRITE)
        self.signalled: tuple[int, float] | None = None

    def stop(self) -> None:
        """SIGTERM the supervisor's group (it cleans up), SIGKILL if it lingers."""
        now = time.monotonic()
        if self.signalled is None:
            self.signalled = (signal.SIGTERM, now)
        elif self.signalled[0] == signal.SIGTERM and now - self.signalled[1] > TERM_SECONDS:
            self.signalled = (signal.SIGKILL, now)
        else:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, self.signalled[0])

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
            if self.proc.poll() is not None:
                exited_at = exited_at or now
                if now - exited_at > 1.0:  # a stray writer kept a pipe open; stop waiting
                    break
            for key, _ in self.sel.select(timeout=0.1):
                self._service(key.fd)
        self._close_stdin()
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
            self._close_stdin()

    def _close_stdin(self) -> None:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(KeyError, ValueError):
                self.sel.unregister(self.proc.stdin.fileno())
            with contextlib.suppress(OSError):
                self.proc.stdin.close()


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


def execute(
    command: str | list[str],
    *,
    workspace: Path,
    limits: Limits | None = None,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    cache_dir: Path | None = None,
    cancel: threading.Event | None = None,
) -> SandboxResult:
    """The body of `run`; `cancel` (set from another thread) stops the run early."""
    argv = _argv(command)
    ws = _workspace(workspace)
    limits = limits or Limits()
    cache = Path(cache_dir).expanduser() if cache_dir else default_cache_dir()
    try:
        cache.mkdir(parents=True, exist_ok=True)
        (ws / ".home").mkdir(exist_ok=True)
    except OSError as exc:
        raise BadInput(f"cannot prepare the sandbox directories: {exc}") from exc
    child_env = sandbox_env(os.environ, workspace=ws, cache_dir=cache.resolve(), extra=env)
    prefix, _ = (None, "") if limits.network else bwrap_status()
    config = {
        "command": argv,
        "cwd": str(ws),
        "limits": limits.model_dump(),
        "caller_pid": os.getpid(),
    }
    fd, config_path = tempfile.mkstemp(prefix="scigate-sandbox-", suffix=".cfg")
    with os.fdopen(fd, "wb") as f:
        marshal.dump(config, f)  # same interpreter on both sides; the supervisor skips json
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
                config_path,
                str(result_w),
            ],
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ws,
            env=child_env,
            pass_fds=(result_w,),
            start_new_session=True,
        )
    except OSError:
        os.close(result_r)
        Path(config_path).unlink(missing_ok=True)
        raise
    finally:
        os.close(result_w)
    out, err = BoundedCapture(limits.output_bytes), BoundedCapture(limits.output_bytes)
    try:
        pump = _Pump(proc, (stdin or "").encode(), out, err)
        try:
            backstop = pump.run(started + limits.wall_seconds + GRACE_SECONDS, cancel)
        except BaseException:  # e.g. KeyboardInterrupt: the supervisor cleans up on SIGTERM
            pump.stop()
            raise
        try:
            proc.wait(timeout=TERM_SECONDS)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        raw = _read_result(result_r)
    finally:
        for stream in (proc.stdout, proc.stderr):
            stream.close()
        Path(config_path).unlink(missing_ok=True)
    return _result(argv, raw, out, err, limits, time.monotonic() - started, backstop, prefix)


def _result(
    argv: list[str],
    raw: dict,
    out: BoundedCapture,
    err: BoundedCapture,
    limits: Limits,
    elapsed: float,
    backstop: bool,
    prefix: list[str] | None,
) -> SandboxResult:
    status = raw.get("status")
    exit_code = sig = None
    if status is not None:
        if os.WIFEXITED(status):
            exit_code = os.WEXITSTATUS(status)
        elif os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
    spawn_error = raw.get("spawn_error")
    if not raw and not backstop:
        spawn_error = "the sandbox supervisor ended without reporting"
    if spawn_error:
        exit_code = 127
    stderr = err.text()
    timed_out = bool(raw.get("timed_out")) or backstop
    ok = exit_code == 0 and not timed_out
    peak = raw.get("peak_rss")
    memory_hit = _explain.memory_exceeded(
        ok=ok, limit=limits.memory_bytes, stderr=stderr, sig=sig, peak=peak
    )
    cpu_hit = _explain.cpu_exceeded(
        sig=sig, limit=limits.cpu_seconds, cpu_seconds=raw.get("cpu_seconds")
    )
    tail = [line.strip() for line in stderr.splitlines() if line.strip()][-3:]
    reason = _explain.reason(
        spawn_error=spawn_error,
        cancelled=bool(raw.get("cancelled")) and not timed_out,
        timed_out=timed_out,
        wall_seconds=limits.wall_seconds,
        killed=int(raw.get("killed", 0)),
        proc_limit=bool(raw.get("proc_limit")),
        max_processes=limits.max_processes,
        memory_hit=memory_hit,
        memory_limit=limits.memory_bytes,
        cpu_hit=cpu_hit,
        cpu_limit=limits.cpu_seconds,
        exit_code=exit_code,
        sig=sig,
        stderr_tail=" | ".join(tail),
        memory_suspect=not memory_hit
        and _explain.maybe_memory(
            ok=ok, limit=limits.memory_bytes, stderr=stderr, sig=sig, peak=peak
        ),
    )
    return SandboxResult(
        command=argv,
        exit_code=exit_code,
        stdout=out.text(),
        stderr=stderr,
        stdout_truncated=out.truncated,
        stderr_truncated=err.truncated,
        timed_out=timed_out,
        signal=sig,
        seconds=round(float(raw.get("seconds", elapsed)), 4),
        peak_memory_bytes=peak,
        memory_exceeded=memory_hit,
        network_isolated=prefix is not None,
        reason=reason,
    )


def run(
    command: str | list[str],
    *,
    workspace: Path,
    limits: Limits | None = None,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    cache_dir: Path | None = None,
) -> SandboxResult:
    """Run `command` in `workspace` under the sandbox and wait for it.

    A string runs through `/bin/sh -c`; a list is executed directly. `env` adds
    variables to the scrubbed environment; `cache_dir` (default `default_cache_dir()`)
    is shared read-write across runs and holds the FFCx JIT cache.
    """
    return execute(
        command, workspace=workspace, limits=limits, env=env, stdin=stdin, cache_dir=cache_dir
    )


async def arun(
    command: str | list[str],
    *,
    workspace: Path,
    limits: Limits | None = None,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    cache_dir: Path | None = None,
) -> SandboxResult:
    """`run` without blocking the event loop; cancelling the task kills the whole run."""
    cancel = threading.Event()
    job = asyncio.ensure_future(
        asyncio.to_thread(
            execute,
            command,
            workspace=workspace,
            limits=limits,
            env=env,
            stdin=stdin,
            cache_dir=cache_dir,
            cancel=cancel,
        )
    )
    try:
        return await asyncio.shield(job)
    except asyncio.CancelledError:
        cancel.set()
        with contextlib.suppress(Exception):
            await job
        raise


def _python_argv(
    code: str | None, script: Path | None, workspace: Path, python: str
) -> tuple[list[str], Path | None]:
    if (code is None) == (script is None):
        raise BadInput("run_python needs exactly one of code= or script=")
    ws = _workspace(workspace)
    if script is not None:
        path = Path(script)
        path = path if path.is_absolute() else ws / path
        if not path.is_file():
            raise BadInput(f"python script not found: {script}")
        return [python, str(path)], None
    snippet = ws / f".scigate_snippet_{secrets.token_hex(4)}.py"
    snippet.write_text(code or "", encoding="utf-8")
    return [python, snippet.name], snippet


def run_python(
    code: str | None = None,
    *,
    script: Path | None = None,
    workspace: Path,
    limits: Limits | None = None,
    env: Mapping[str, str] | None = None,
    python: str = sys.executable,
    cache_dir: Path | None = None,
) -> SandboxResult:
    """Run Python `code` (written to a temporary file in the workspace) or a `script`
    (relative paths are taken inside the workspace) with `python` under the sandbox."""
    argv, snippet = _python_argv(code, script, workspace, python)
    try:
        return run(argv, workspace=workspace, limits=limits, env=env, cache_dir=cache_dir)
    finally:
        if snippet is not None:
            snippet.unlink(missing_ok=True)


async def arun_python(
    code: str | None = None,
    *,
    script: Path | None = None,
    workspace: Path,
    limits: Limits | None = None,
    env: Mapping[str, str] | None = None,
    python: str = sys.executable,
    cache_dir: Path | None = None,
) -> SandboxResult:
    """`run_python` without blocking the event loop."""
    argv, snippet = _python_argv(code, script, workspace, python)
    try:
        return await arun(argv, workspace=workspace, limits=limits, env=env, cache_dir=cache_dir)
    finally:
        if snippet is not None:
            snippet.unlink(missing_ok=True)
