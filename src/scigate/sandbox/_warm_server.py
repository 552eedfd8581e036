"""Warm sandbox server: a long-lived interpreter that has imported the slow modules once
and forks a fresh child per run.

Run as a script, never imported by the caller:
``python -P _warm_server.py SOCKET_FD CALLER_PID MODULE...`` (see `main`). It is started
through the same isolation prefix as the cold supervisor (bwrap --unshare-net when that
works), so every forked run inherits the cut network. It imports MODULE..., marks itself
a child subreaper and then serves one request at a time over a SOCK_SEQPACKET socket, so
every orphan reparented to it belongs to the current run. For each run it is the
supervisor: `_supervisor.Supervisor` forks the per-run child (`_start_run` below instead
of exec, which runs the script as __main__ with the run's environment and argv), enforces the wall clock and the process count, kills and reaps the whole tree,
and reports. The read ends of the run's stdout/stderr pipes go to the caller with
SCM_RIGHTS, so the caller's capped capture reads them directly.

Messages (marshal): caller -> server a request dict (`argv`, `script`, `cwd`, `env`,
`limits`, `caller_pid`) or b"C" (cancel the current run); server -> caller
{"ready": ...} once, then per request {"started": pid} with the two fds and
{"result": ...}. The server exits on EOF, on the caller's death (pidfd) and on SIGTERM.
"""

from __future__ import annotations

import _signal as signal
import contextlib
import ctypes
import gc
import importlib
import importlib.util
import marshal
import os
import select
import shutil
import socket
import sys
import warnings
from pathlib import Path

_here = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("_scigate_supervisor", _here / "_supervisor.py")
assert _spec is not None and _spec.loader is not None
supervisor = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(supervisor)
_spec = importlib.util.spec_from_file_location("_scigate_pristine", _here / "_pristine.py")
assert _spec is not None and _spec.loader is not None
pristine = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pristine)
_spec = importlib.util.spec_from_file_location("_scigate_formhook", _here / "_formhook.py")
assert _spec is not None and _spec.loader is not None
formhook = importlib.util.module_from_spec(_spec)
sys.modules["_scigate_formhook"] = formhook  # what a run's sitecustomize would load
_spec.loader.exec_module(formhook)

MAX_MESSAGE = 1 << 24
CANCEL = b"C"
_libc = ctypes.CDLL(None)
_USER_WARNING_FILTERS = list(warnings.filters)  # what a fresh interpreter has


def _refresh_import_time_settings() -> None:
    """Re-read settings that preloaded modules took from the environment at import.

    DOLFINx fixes its JIT cache dir (``$XDG_CACHE_HOME/fenics``) when `dolfinx.jit` is
    imported, and DOLFINx and FFCx cache their JSON option files on first use; the run's
    environment (its own HOME and cache dir) must decide them, as in a fresh process.
    """
    import tempfile

    tempfile.tempdir = None
    jit = sys.modules.get("dolfinx.jit")
    if jit is not None and "cache_dir" in getattr(jit, "DOLFINX_DEFAULT_JIT_OPTIONS", {}):
        home_cache = Path.home().joinpath(".cache")
        cache = Path(os.environ.get("XDG_CACHE_HOME", home_cache)) / "fenics"
        _, doc = jit.DOLFINX_DEFAULT_JIT_OPTIONS["cache_dir"]
        jit.DOLFINX_DEFAULT_JIT_OPTIONS["cache_dir"] = (cache, doc)
    for name in ("dolfinx.jit", "ffcx.options"):
        loader = getattr(sys.modules.get(name), "_load_options", None)
        if loader is not None and hasattr(loader, "cache_clear"):
            loader.cache_clear()
    ffcx_jit = sys.modules.get("ffcx.codegeneration.jit")
    shared = os.environ.get("SCIGATE_TRUSTED_JIT")
    if ffcx_jit is not None and shared:
        _look_in_shared_first(ffcx_jit, shared)
    formhook.install()  # compiled forms from the shared forms cache, when the run has one


def _look_in_shared_first(ffcx_jit: object, shared: str) -> None:
    """FFCx loads a module compiled by a trusted process from the shared (read-only)
    cache when it is there, else compiles into the run's own cache as usual."""
    find = ffcx_jit.get_cached_module  # type: ignore[attr-defined]

    def get_cached_module(module_name, object_names, cache_dir, timeout):
        if os.path.exists(os.path.join(shared, module_name + ".c.cached")):
            cache_dir = shared
        return find(module_name, object_names, cache_dir, timeout)

    ffcx_jit.get_cached_module = get_cached_module  # type: ignore[attr-defined]


def _exit_code(code: object) -> int:
    """The process exit status for `SystemExit(code)`, printing a message as Python does."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    with contextlib.suppress(Exception):
        print(code, file=sys.stderr)
    return 1


def _print_exception(exc: BaseException) -> None:
    """The traceback a fresh `python script.py` prints: this file's frames cut."""
    tb = exc.__traceback__
    while tb is not None and _is_ours(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next  # None for a syntax error: Python prints no traceback then either
    sys.excepthook(type(exc), exc.with_traceback(tb), tb)


def _is_ours(filename: str) -> bool:
    return filename == __file__


def _run_script(path: str) -> int:
    """Run `path` as `python path` would: as the __main__ module, then the interpreter's
    shutdown (join threads, atexit handlers, clear __main__ so unclosed files flush,
    flush stdio). The exit status.

    Not `runpy.run_path`: it keeps the script's globals alive and restores the server's
    __main__ before the exit handlers run, so an unclosed file would lose its buffer.
    """
    import atexit
    import builtins
    import threading
    import types
    from importlib.machinery import SourceFileLoader

    atexit._clear()  # handlers of the preloaded modules belong to the server
    main = types.ModuleType("__main__")
    main.__dict__.update(
        __file__=path,
        __cached__=None,
        __builtins__=builtins,
        __loader__=SourceFileLoader("__main__", path),
    )
    sys.modules["__main__"] = main
    try:
        with open(path, "rb") as f:
            source = f.read()
        exec(compile(source, path, "exec"), main.__dict__)
        code = 0
    except SystemExit as exc:
        code = _exit_code(exc.code)
    except BaseException as exc:
        _print_exception(exc)
        code = 1
    with contextlib.suppress(BaseException):
        threading._shutdown()  # type: ignore[attr-defined]  # join non-daemon threads
    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()
    main.__dict__.clear()
    gc.collect()  # finalize the script's objects, as at interpreter exit
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    _libc.fflush(None)  # C stdio buffers (PETSc prints through them)
    return code


def _start_run(
    cfg: dict, error_w: int, out_w: int, err_w: int, private: list[int], isolated: bool
) -> None:
    """In the forked per-run child: limits, fds, environment, argv; then the script.
    Under isolation the child first lets go of the server's descriptors
    (`pristine.detach_child`); what it writes into shared mappings is undone after it."""
    try:
        for fd in private:
            os.close(fd)
        supervisor.enter_limits(cfg)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        os.close(out_w)
        os.close(err_w)
        if isolated:
            pristine.detach_child(keep=(error_w,))
        warnings.filters[:] = _USER_WARNING_FILTERS  # type: ignore[index]  # typeshed: a Sequence; it is a list
        warnings._filters_mutated()  # type: ignore[attr-defined]
        os.environ.clear()
        os.environ.update(cfg["env"])
        _refresh_import_time_settings()
        script = cfg["script"]
        sys.argv = list(cfg["argv"][1:])
        sys.path[0:0] = [os.path.dirname(script)]
        os.close(error_w)
    except BaseException as exc:
        supervisor.report_start_failure(error_w, exc)
    os._exit(_run_script(script))


class Server:
    """Serves runs over `sock` one at a time until the caller goes away."""

    def __init__(self, sock: socket.socket, caller_pid: int, isolated: bool = False) -> None:
        self.sock = sock
        self.caller_pid = caller_pid
        self.isolated = isolated
        self.pristine: object | None = None  # captured once the modules are imported
        # 0 inside a PID namespace (the caller is not visible; bwrap --die-with-parent)
        self.caller_fd = os.pidfd_open(caller_pid) if caller_pid else None

    def send(self, message: dict, fds: list[int] | None = None) -> None:
        data = marshal.dumps(message)
        if fds:
            socket.send_fds(self.sock, [data], fds)
        else:
            self.sock.send(data)

    def serve(self) -> None:
        """Wait for requests; SIGTERM (raising `Terminated`) only lands while idle, a run
        handles it itself."""
        while True:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
            try:
                watch = [self.sock] + ([self.caller_fd] if self.caller_fd is not None else [])
                ready, _, _ = select.select(watch, [], [])
            finally:
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
            if self.caller_fd is not None and self.caller_fd in ready:
                return
            data, fds, _, _ = socket.recv_fds(self.sock, MAX_MESSAGE, 8)
            if not data:
                return
            if data == CANCEL:  # arrived after its run ended
                for fd in fds:
                    os.close(fd)
                continue
            request = marshal.loads(data)
            # the run's cgroup descriptors came along: join fds, then the CPU counter
            joins = int(request.get("cgroup_fds") or 0)
            request["cgroup_fds"] = fds[:joins]
            request["usage_fd"] = fds[joins] if request.get("usage_fd") else None
            try:
                if not self.run(request):
                    return
            finally:
                for fd in fds:
                    with contextlib.suppress(OSError):
                        os.close(fd)

    def run(self, request: dict) -> bool:
        """One run, start to last reaped descendant; False when the server must stop."""
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        private = [self.sock.fileno(), out_r, err_r]
        if self.caller_fd is not None:
            private.append(self.caller_fd)

        def start(cfg: dict, error_w: int) -> None:
            _start_run(cfg, error_w, out_w, err_w, private, self.isolated)

        def started(pid: int) -> None:  # the write ends stay open until the run is over,
            # as a cold supervisor's stdout/stderr do: the caller's streams end with the run
            with contextlib.suppress(OSError):  # the caller is gone: `watch` sees EOF
                self.send({"started": pid}, [out_r, err_r])

        sys.stdout.flush()
        sys.stderr.flush()
        _libc.fflush(None)
        sup = supervisor.Supervisor(request, start, watch=[self.sock.fileno()], on_start=started)
        try:
            result = sup.run()
        except Exception as exc:  # report, never leave the caller guessing
            sup.kill_all()
            result = {"spawn_error": f"warm server failed: {type(exc).__name__}: {exc}"}
        finally:
            for fd in (out_r, out_w, err_r, err_w):
                with contextlib.suppress(OSError):
                    os.close(fd)
        # every process of the run is reaped: nothing it wrote may reach the next run
        left = self.pristine.restore() if self.pristine is not None else []  # type: ignore[attr-defined]
        if left:
            result["retire"] = f"could not clear what the run left: {', '.join(left[:3])}"
        try:
            self.send({"result": result})
        except OSError:
            return False
        return not sup.terminated and not left


def main() -> None:
    """Entry point: argv[1] the socket fd, argv[2] the caller's pid, the rest modules."""
    supervisor.deny_ptrace()  # runs are forked from here: no ptrace or /proc/PID/mem of it
    sock = socket.socket(fileno=int(sys.argv[1]))
    os.set_inheritable(sock.fileno(), False)
    caller_pid = int(sys.argv[2])
    isolated = os.environ.get("SCIGATE_WARM_ISOLATED") == "1"
    # the server's private directory, made by the caller; under isolation a tmpfs
    home = os.environ["HOME"] if isolated else os.getcwd()
    with contextlib.suppress(OSError):
        os.makedirs(os.environ.get("HOME", home), exist_ok=True)
    # fork() while MPI/BLAS helper threads exist: the child only runs the one thread
    warnings.filterwarnings("ignore", "This process .* is multi-threaded", DeprecationWarning)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    signal.signal(signal.SIGTERM, supervisor._on_sigterm)
    server = Server(sock, caller_pid, isolated)
    try:
        for name in sys.argv[3:]:
            importlib.import_module(name)
    except BaseException as exc:
        server.send({"ready": False, "error": f"import {name} failed: {type(exc).__name__}: {exc}"})
        return
    with contextlib.suppress(Exception):
        formhook.versions_tag()  # once here, not in every run
    # the preloaded objects move to the permanent generation: a run's collections skip
    # them (tens of ms with dolfinx) and do not touch, so do not copy, their pages
    gc.collect()
    gc.freeze()
    if isolated:  # the server's own files and mappings; a run's are removed after it
        # the start-up HOME (on /run) goes: runs have their own, and whatever the
        # server kept from its start is what every later run could read
        shutil.rmtree(home, ignore_errors=True)
        server.pristine = pristine.Pristine.capture()
    subreaper = supervisor._prctl(supervisor.PR_SET_CHILD_SUBREAPER, 1)
    server.send({"ready": True, "pid": os.getpid(), "subreaper": subreaper})
    try:
        server.serve()
    except supervisor.Terminated:
        pass
    finally:  # the caller removes it too, unless the caller died
        if not isolated:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
