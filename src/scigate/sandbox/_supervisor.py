"""Sandbox supervisor: the process that sits between scigate and untrusted code.

Run as a script, never imported by the caller:
``python -I -S _supervisor.py CONFIG_FILE RESULT_FD`` (see `main`). It uses only the standard library so that
it starts quickly under ``-S`` (no subprocess, no json: about 10 ms).

The supervisor marks itself a child subreaper (PR_SET_CHILD_SUBREAPER), so every
descendant of the untrusted command that is orphaned, including one that called
``setsid``, is reparented to it rather than to init. It starts the command in its own
process group with resource limits, waits for it with a wall-clock deadline while
counting descendants, and on exit, timeout, process-limit breach, SIGTERM or the death
of the caller kills every descendant it can find (the process group, then a /proc walk
for everything whose ancestry leads here) and reaps them. Its stdin, stdout and stderr
are the command's; the outcome goes marshal-encoded to the result file descriptor.
"""

from __future__ import annotations

# _signal is the C half of `signal`; importing it skips enum and saves ~7 ms per run.
import _signal as signal
import contextlib
import ctypes
import marshal
import os
import resource
import select
import sys
import time

TYPE_CHECKING = False  # typing costs milliseconds at every start; annotations are strings
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
FIRST_POLL = 0.02
MAX_POLL = 0.2
KILL_ROUNDS = 100


class Terminated(Exception):
    """Raised from the SIGTERM handler to leave the wait loop at once."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise Terminated


def _prctl(option: int, value: int) -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(option, value, 0, 0, 0) == 0


def _process_table() -> dict[int, tuple[int, bytes]]:
    """Map pid -> (ppid, state) for every process visible in /proc."""
    table: dict[int, tuple[int, bytes]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                data = f.read()
        except OSError:
            continue
        fields = data[data.rindex(b")") + 2 :].split()
        table[int(name)] = (int(fields[1]), fields[0])
    return table


def descendants(root: int) -> dict[int, bytes]:
    """Pid -> state of every process whose ancestry leads to `root`."""
    children: dict[int, list[int]] = {}
    table = _process_table()
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found: dict[int, bytes] = {}
    stack = [root]
    while stack:
        for pid in children.get(stack.pop(), ()):
            if pid not in found:
                found[pid] = table[pid][1]
                stack.append(pid)
    return found


MAX_ENTRIES = 100_000


def workspace_usage(root: str, limit: int) -> tuple[int, bool]:
    """(bytes allocated under `root`, True when it holds more than MAX_ENTRIES files and
    directories); counting stops once past either limit (bytes then exceed `limit`)."""
    total = entries = 0
    stack = [root]
    while stack:
        try:
            it = os.scandir(stack.pop())
        except OSError:
            continue
        with it:
            for entry in it:
                entries += 1
                if entries > MAX_ENTRIES:
                    return limit + 1, True
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                total += st.st_blocks * 512
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
        if total > limit:
            return total, False
    return total, False


def _live(procs: dict[int, bytes]) -> set[int]:
    return {pid for pid, state in procs.items() if state not in (b"Z", b"X")}


def enter_limits(cfg: dict) -> None:
    """In a forked child: own process group, default SIGTERM, rlimits, the workspace."""
    os.setpgid(0, 0)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    limits = cfg.get("limits", {})
    if limits.get("memory_bytes"):
        n = int(limits["memory_bytes"])
        resource.setrlimit(resource.RLIMIT_AS, (n, n))
    if limits.get("workspace_bytes"):  # no single file larger than the workspace limit
        n = int(limits["workspace_bytes"])
        resource.setrlimit(resource.RLIMIT_FSIZE, (n, n))
    if limits.get("cpu_seconds"):
        n = max(1, int(-(-float(limits["cpu_seconds"]) // 1)))
        resource.setrlimit(resource.RLIMIT_CPU, (n, n + 2))
    os.chdir(cfg["cwd"])
    join_cgroup(cfg)


def join_cgroup(cfg: dict) -> None:
    """Move this process (and so every later thread and child) into the run's cgroup:
    write b"0" to each `cgroup.procs` descriptor the host opened (`RunCgroup.join_fds`)."""
    fds = cfg.get("cgroup_fds") or ()
    for fd in fds:
        os.write(fd, b"0")
    for fd in fds:
        os.close(fd)
    if cfg.get("usage_fd") is not None:  # the supervisor's to read, not the run's
        os.close(cfg["usage_fd"])


def usage_seconds(fd: int) -> float:
    """CPU seconds of the whole run so far from its cgroup's counter
    (`_cgroup.RunCgroup.usage_fd`): v2 `cpu.stat` (usage_usec), v1 `cpuacct.usage` (ns).
    Re-readable at any time."""
    data = os.pread(fd, 4096, 0)
    at = data.find(b"usage_usec ")
    if at >= 0:
        return int(data[at + 11 :].split(None, 1)[0]) / 1e6
    return int(data) / 1e9


def report_start_failure(error_w: int, exc: BaseException) -> None:
    """In a forked child whose set-up failed: tell the supervisor why and exit 127."""
    try:
        os.write(error_w, f"{type(exc).__name__}: {exc}".encode(errors="replace"))
    finally:
        os._exit(127)


def _exec_child(cfg: dict, error_w: int) -> None:
    """In the forked child: own process group, limits, then exec; never returns."""
    try:
        enter_limits(cfg)
        command = cfg["command"]
        os.execvp(command[0], command)
    except BaseException as exc:
        report_start_failure(error_w, exc)


class Supervisor:
    """Owns one untrusted command from spawn to the last reaped descendant."""

    def __init__(
        self,
        config: dict,
        start_child: Callable[[dict, int], None] = _exec_child,
        watch: Sequence[int] = (),
        on_start: Callable[[int], None] | None = None,
    ) -> None:
        """`start_child(config, error_w)` runs in the forked child and never returns: it
        closes `error_w` once the command has started (exec does that by itself) or
        writes why it could not. `on_start(pid)` runs once it has started. A readable
        fd in `watch` cancels the run."""
        self.config = config
        self.start_child = start_child
        self.watch = list(watch)
        self.on_start = on_start
        self.me = os.getpid()
        self.status: int | None = None
        self.child = 0
        self.killed: set[int] = set()
        self.childless = False  # set when waitpid finds no children at all
        self.terminated = False  # SIGTERM arrived during the run
        self.peak_rss = 0  # KiB, the largest of the reaped processes' (wait4) peaks
        self.cpu_seconds = 0.0  # user + system time of every reaped process

    def spawn(self) -> str | None:
        """Fork and exec the command; the error text when exec failed."""
        error_r, error_w = os.pipe()  # close-on-exec: EOF with no data means exec worked
        pid = os.fork()
        if pid == 0:
            os.close(error_r)
            self.start_child(self.config, error_w)
        os.close(error_w)
        self.child = pid
        chunks = []
        while chunk := os.read(error_r, 4096):
            chunks.append(chunk)
        os.close(error_r)
        if chunks:
            self.reap(block_for_child=True)
            return b"".join(chunks).decode(errors="replace")
        return None

    def reap(self, block_for_child: bool = False) -> None:
        """Collect every exited child; remember the main command's wait status and add
        up the resources used."""
        while True:
            flags = 0 if (block_for_child and self.status is None) else os.WNOHANG
            try:
                pid, status, usage = os.wait4(-1, flags)
            except ChildProcessError:
                self.childless = True
                return
            if pid == 0:
                return
            # per reaped process (it includes what that process reaped), so a long-lived
            # warm server measures each run alone, unlike RUSAGE_CHILDREN
            self.peak_rss = max(self.peak_rss, usage.ru_maxrss)
            self.cpu_seconds += usage.ru_utime + usage.ru_stime
            if pid == self.child:
                self.status = status

    def kill_all(self) -> None:
        """Kill the process group and every descendant until none is left.

        Orphans are reparented to this subreaper, so once it has no children at all
        there are no descendants left and the /proc walk can be skipped.
        """
        for _ in range(KILL_ROUNDS):
            self.reap()
            if self.childless:
                return
            procs = descendants(self.me)
            live = _live(procs)
            if self.child:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.child, signal.SIGKILL)
            for pid in live:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            self.killed |= live
            self.reap()
            if not procs:
                return
            time.sleep(0.005)

    def run(self) -> dict:
        cfg = self.config
        limits = cfg.get("limits", {})
        subreaper = _prctl(PR_SET_CHILD_SUBREAPER, 1)
        start = time.monotonic()
        # SIGTERM stays blocked until the handler that cleans up is in place.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        error = self.spawn()
        if error is not None:
            return {"spawn_error": error, "subreaper": subreaper}
        if self.on_start is not None:
            self.on_start(self.child)
        caller_fd = None
        if cfg.get("caller_pid"):  # 0 inside a PID namespace: bwrap --die-with-parent acts
            with contextlib.suppress(OSError):
                caller_fd = os.pidfd_open(int(cfg["caller_pid"]))
        child_fd = os.pidfd_open(self.child)
        wall = float(limits.get("wall_seconds") or 0) or None
        max_procs = limits.get("max_processes")
        usage_fd = cfg.get("usage_fd")
        cpu_limit = float(limits.get("cpu_seconds") or 0)
        cpu_hit = False
        disk_limit = int(limits.get("workspace_bytes") or 0)
        timed_out = proc_limit = terminated = caller_gone = disk_hit = entries_hit = False
        poll = FIRST_POLL
        signal.signal(signal.SIGTERM, _on_sigterm)
        try:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
            while True:
                timeout = poll
                if wall is not None:
                    remaining = start + wall - time.monotonic()
                    if remaining <= 0:
                        timed_out = True
                        break
                    timeout = min(poll, remaining)
                watch = [child_fd, *self.watch] + ([caller_fd] if caller_fd is not None else [])
                ready, _, _ = select.select(watch, [], [], timeout)
                if child_fd in ready:
                    break
                if any(fd in ready for fd in self.watch) or (
                    caller_fd is not None and caller_fd in ready
                ):
                    caller_gone = True
                    break
                if usage_fd is not None and cpu_limit and usage_seconds(usage_fd) > cpu_limit:
                    cpu_hit = True  # the whole run's CPU time, every process and thread
                    break
                if max_procs and len(_live(descendants(self.me))) > int(max_procs):
                    proc_limit = True
                    break
                if disk_limit:
                    used, entries_hit = workspace_usage(cfg["cwd"], disk_limit)
                    if used > disk_limit:
                        disk_hit = True
                        break
                poll = min(poll * 1.5, MAX_POLL)
        except Terminated:
            terminated = self.terminated = True
        finally:
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
            os.close(child_fd)
            if caller_fd is not None:
                os.close(caller_fd)
        seconds = time.monotonic() - start
        if not (timed_out or proc_limit or terminated or caller_gone or disk_hit or cpu_hit):
            self.reap(block_for_child=True)
        self.kill_all()
        self.reap(block_for_child=True)
        # Python ignores SIGXFSZ, so a write stopped by RLIMIT_FSIZE ends in EFBIG: a
        # workspace that ended full is reported as the limit, whatever the exit said
        if disk_limit and not disk_hit:
            used, entries_hit = workspace_usage(cfg["cwd"], disk_limit)
            disk_hit = used >= disk_limit
        return {
            "status": self.status,
            "timed_out": timed_out,
            "proc_limit": proc_limit,
            "disk_limit": disk_hit,
            "entries_limit": disk_hit and entries_hit,
            "cancelled": terminated or caller_gone,
            "killed": len(self.killed),
            "seconds": seconds,
            "peak_rss": self.peak_rss * 1024,
            "cpu_seconds": self.cpu_seconds,
            "cpu_limit": cpu_hit,
            "subreaper": subreaper,
        }


def deny_ptrace() -> bool:
    """Make this process non-dumpable, before any untrusted code runs: a run has the same
    uid as its supervisor (or warm server), so without this it could PTRACE_ATTACH to
    it, or read and write its /proc/PID/mem and read /proc/PID/environ, and tamper with
    later runs (Yama, where present, guards ptrace but not /proc/PID/environ). Children
    inherit the flag until they exec; a run forked from a warm server keeps it."""
    return _prctl(PR_SET_DUMPABLE, 0)


def main() -> None:
    """Entry point: argv[1] is the descriptor of a marshal-encoded config (a memfd),
    argv[2] the result descriptor. Config keys: command, cwd, limits, caller_pid.
    The command's environment is the supervisor's own (already scrubbed)."""
    deny_ptrace()
    result_fd = int(sys.argv[2])
    os.set_inheritable(result_fd, False)
    with os.fdopen(int(sys.argv[1]), "rb") as f:
        config = marshal.load(f)
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    try:
        result = Supervisor(config).run()
    except Exception as exc:  # report, never leave the caller guessing
        result = {"spawn_error": f"supervisor failed: {type(exc).__name__}: {exc}"}
    with os.fdopen(result_fd, "wb") as out:
        marshal.dump(result, out)


if __name__ == "__main__":
    main()
