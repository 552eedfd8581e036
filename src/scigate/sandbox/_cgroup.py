"""Per-run cgroups: memory, task count and CPU of a whole run, not of one process.

rlimits bound single processes: RLIMIT_AS per process (four processes get four times the
limit, and memfd or tmpfs pages count against none), a process count that ignores
threads, RLIMIT_CPU per process. A cgroup bounds the run as a whole: its memory limit
charges every page the run's processes use (anonymous memory, page cache, shmem: tmpfs
files such as `/tmp` and `/dev/shm`, memfds), `pids.max` counts tasks (threads
included), and its CPU counter adds up every process and thread.

Where it can be done (`cgroup_status()`):

* **cgroup v2** (`/sys/fs/cgroup` a cgroup2 mount, the systemd default) when this
  process's cgroup `D` has the memory and pids controllers (`D/cgroup.controllers`) and
  is writable (root, or a delegated subtree: `systemd-run --user --scope -p
  Delegate=yes ...`, a `Delegate=yes` service, a desktop terminal's scope under
  `user@UID.service`). v2 forbids "internal processes": controllers can be enabled for
  `D`'s children only when `D` itself holds no process (the real root cgroup excepted).
  So when enabling `+memory +pids` in `D/cgroup.subtree_control` fails with EBUSY, every
  process of `D` (this one, the shell that started it, ...) is moved into the leaf
  `D/scigate-host` first (what a delegatee is expected to do); the runs then live in
  `D/scigate/run-<pid>-<n>-<pidns>` (`D/scigate` has `+memory +pids` for them). A scigate process
  that finds itself in a `scigate-host` leaf uses the leaf's parent as `D`. Nothing of
  the caller's limits is escaped: every run cgroup is below `D`. Not possible: an SSH or
  console session scope of a non-root user (`user-UID.slice/session-N.scope` belongs to
  root and moving into the user's delegated `user@UID.service` needs write access to
  their common ancestor), a read-only cgroup mount (unprivileged containers), controllers
  that `D`'s parent does not delegate, threaded cgroups.
* **cgroup v1** (hierarchies per controller under `/sys/fs/cgroup/<controller>`) when
  the memory and pids hierarchies are writable (root): runs live in
  `<own cgroup>/scigate/run-<pid>-<n>-<pidns>` of each hierarchy (memory, pids and, for CPU
  accounting, cpuacct), again below this process's own cgroup so its limits still
  apply. v1 has no group OOM kill (the OOM killer takes the largest process of the run
  one at a time) and no `cgroup.kill` (`kill()` sets `pids.max` to 0 and SIGKILLs what
  `cgroup.procs` lists, by pidfd, until it is empty).

A hybrid machine (v1 controllers plus an empty cgroup2 at `/sys/fs/cgroup/unified`) uses
v1. `SCIGATE_CGROUPS=0` turns run cgroups off.

Integration (one `RunCgroup` per run, cold or warm):

1. The host: `cg = RunCgroup.create(memory_bytes=..., max_tasks=..., name_hint=...)`
   (None: keep the per-process limits and say why, `cgroup_status()[1]`).
2. Its `join_fds()` (one `cgroup.procs` fd per hierarchy, write-only) and `usage_fd()`
   go into the sandbox: `pass_fds` and their numbers in the supervisor's config (cold),
   SCM_RIGHTS with the request (warm server).
3. The run's first process writes b"0" to each join fd (`_supervisor.join_cgroup`): it,
   its threads and all its later children are in the run's cgroup. Do it in the forked
   child before exec or before the script (the supervisor's `enter_limits`), so the
   supervisor (and a warm server) stays outside: it survives the run's OOM kill to
   report it, and a warm server's preloaded pages stay charged to the server. The
   supervisor closes the fds in the child after joining and keeps none open.
4. The supervisor polls `usage_seconds(usage_fd)` (it lives in `_supervisor.py`, which
   runs under `python -I -S` and imports nothing of scigate; this module reuses it) and
   ends the run past its CPU limit: that is the CPU time of every process
   and thread of the run, unlike RLIMIT_CPU.
5. When the supervisor is done: `cg.report()` (peak memory, OOM kills, limits hit, CPU
   seconds) and `cg.close()` (kills what is left, removes the cgroup); `close()` also
   runs at exit and stale cgroups of dead processes are swept (`sweep_stale`).

Since Linux 5.16 the kernel checks a migration against the credentials and cgroup
namespace of the fd's opener, so step 3 works from inside bwrap's user, pid and cgroup
namespaces. Older kernels check the writer's, and a v2 mount with `nsdelegate` (the
systemd default) then refuses a move to a cgroup outside the writer's cgroup namespace
(after the leaf move, the run cgroups are); the probe tries exactly this
(a process in a new user and cgroup namespace joins a test cgroup), so
`cgroup_status()` then reports it. (Workarounds there: start bwrap without
`--unshare-cgroup-try`, or join before bwrap, `sh -c 'echo 0 >&3; exec "$@"' sh bwrap ...`,
for cold runs.)

Sandboxed code cannot create or change cgroups: `/sys` is bound read-only and cgroupfs
checks the writer's (or the fd opener's) credentials against the host's, so it cannot
lift its limits; a join fd it kept would only move processes of its own PID namespace
into its own cgroup. It can read the counters under `/sys/fs/cgroup`, other runs'
included (usage figures, no contents).
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import functools
import itertools
import os
import re
import signal
import subprocess
import sys
import threading
import time
import weakref
from dataclasses import dataclass

from scigate._process import pid_alive
from scigate.sandbox._supervisor import usage_seconds

PARENT = "scigate"
LEAF = "scigate-host"
#: run cgroups are named run-<pid>-<n>-<pid namespace inode>[-hint]: a later process
#: sweeps those of dead makers of its own PID namespace
_RUN = re.compile(r"^run-(\d+)-\d+-(\d+)(?:-[A-Za-z0-9_.-]*)?$")
_HINT = re.compile(r"[^A-Za-z0-9_.-]+")
V2_CONTROLLERS = ("memory", "pids")
V1_CONTROLLERS = ("memory", "pids", "cpuacct")  # the last is optional (CPU accounting)
DISABLE_ENV = "SCIGATE_CGROUPS"
RMDIR_SECONDS = 2.0
KILL_SECONDS = 5.0
PROBE_MEMORY = 64 << 20
PROBE_TASKS = 16
_PROBE_CODE = (
    "import os,sys\n"
    "try: os.unshare(os.CLONE_NEWUSER|os.CLONE_NEWCGROUP)\n"
    "except (OSError, AttributeError): pass\n"
    "[os.write(int(a), b'0') for a in sys.argv[1:]]\n"
)


class CgroupError(OSError):
    """A run cgroup could not be made or set up although the probe had worked."""


class _Unavailable(Exception):
    """Why per-run cgroups cannot be made here (the text of `cgroup_status()`)."""


# --- discovery ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Mount:
    fstype: str
    dev: str
    root: str
    point: str
    options: frozenset[str]


def _unescape(field: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def _mounts() -> list[_Mount]:
    """Every cgroup and cgroup2 mount of this mount namespace, in mount order."""
    found = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, tail = left.split(), right.split()
            if len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
                continue
            found.append(
                _Mount(
                    fstype=tail[0],
                    dev=fields[2],
                    root=_unescape(fields[3]),
                    point=_unescape(fields[4]),
                    options=frozenset(tail[2].split(",")),
                )
            )
    return found


def _own_cgroups(pid: int | str = "self") -> dict[str, str]:
    """Controller (v1; "" for v2) -> this process's cgroup path in that hierarchy."""
    own: dict[str, str] = {}
    with open(f"/proc/{pid}/cgroup") as f:
        for line in f:
            parts = line.rstrip("\n").split(":", 2)
            if len(parts) != 3:
                continue
            for name in parts[1].split(",") if parts[1] else [""]:
                own.setdefault(name, parts[2])
    return own


def _dir_in_mount(mount: _Mount, path: str) -> str | None:
    """The directory of cgroup `path` under `mount`, None when the mount does not show it."""
    root = mount.root.rstrip("/")
    if path.endswith(" (deleted)"):
        return None
    if root and not (path == root or path.startswith(root + "/")):
        return None
    rel = path[len(root) :].lstrip("/")
    found = os.path.join(mount.point, rel) if rel else mount.point
    return found if os.path.isdir(found) else None


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _writable(*paths: str) -> bool:
    return all(os.access(p, os.W_OK) for p in paths)


def _keyed(path: str) -> dict[str, int]:
    """A flat-keyed cgroup file ("key value" lines) as a dict; {} when unreadable."""
    values: dict[str, int] = {}
    try:
        text = _read(path)
    except OSError:
        return values
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].lstrip("-").isdigit():
            values[parts[0]] = int(parts[1])
    return values


def _number(path: str) -> int | None:
    try:
        return int(_read(path).split()[0])
    except (OSError, ValueError, IndexError):
        return None


@dataclass(frozen=True)
class _Layout:
    """Where this process's run cgroups go: role ("memory", "pids", "cpu") -> the scigate
    parent directory of that role's hierarchy (one directory for v2)."""

    version: str
    parents: tuple[tuple[str, str], ...]
    note: str

    def dirs(self) -> list[str]:
        return list(dict.fromkeys(p for _, p in self.parents))


def _v2_enable(cgroup: str, controllers: tuple[str, ...], evacuate: bool) -> int:
    """Make sure `controllers` are enabled for the children of `cgroup`; with `evacuate`
    first move the processes of `cgroup` into its `LEAF` when v2's no-internal-process
    rule demands it. The number of processes moved."""
    enabled = _read(os.path.join(cgroup, "cgroup.subtree_control")).split()
    wanted = " ".join(f"+{c}" for c in controllers if c not in enabled)
    if not wanted:
        return 0
    moved = 0
    for _ in range(5):
        try:
            _write(os.path.join(cgroup, "cgroup.subtree_control"), wanted)
            return moved
        except OSError as exc:
            if exc.errno != errno.EBUSY or not evacuate:
                raise _Unavailable(
                    f"cgroup v2: cannot enable {wanted} for the children of {cgroup}: {exc}"
                ) from exc
        moved += _evacuate(cgroup)
    raise _Unavailable(f"cgroup v2: {cgroup} keeps getting processes; cannot enable {wanted}")


def _evacuate(cgroup: str) -> int:
    """Move every process of `cgroup` into `cgroup/LEAF`; how many were moved."""
    leaf = os.path.join(cgroup, LEAF)
    with contextlib.suppress(FileExistsError):
        os.mkdir(leaf)
    moved = 0
    for _ in range(20):
        pids = _read(os.path.join(cgroup, "cgroup.procs")).split()
        if not pids:
            return moved
        for pid in pids:
            try:
                _write(os.path.join(leaf, "cgroup.procs"), pid)
                moved += 1
            except ProcessLookupError:
                continue
            except OSError as exc:
                raise _Unavailable(
                    f"cgroup v2: cannot move process {pid} out of {cgroup} into {leaf} "
                    f"(v2 allows controllers only for cgroups without processes): {exc}"
                ) from exc
    return moved


def _v2_layout(controllers: tuple[str, ...] = V2_CONTROLLERS) -> _Layout:
    mounts = [m for m in _mounts() if m.fstype == "cgroup2"]
    if not mounts:
        raise _Unavailable("cgroup v2: no cgroup2 mount")
    own = _own_cgroups().get("")
    if own is None:
        raise _Unavailable("cgroup v2: this process has no cgroup v2 entry")
    base = next((d for m in mounts if (d := _dir_in_mount(m, own)) is not None), None)
    if base is None:
        raise _Unavailable(f"cgroup v2: this process's cgroup {own} is not visible in a mount")
    return _v2_layout_at(base, controllers)


def _v2_layout_at(base: str, controllers: tuple[str, ...]) -> _Layout:
    """The layout with runs under `base` (this process's v2 cgroup directory)."""
    if os.path.basename(base) == LEAF:  # moved there by a scigate process before
        base = os.path.dirname(base)
    try:
        available = _read(os.path.join(base, "cgroup.controllers")).split()
        type_file = os.path.join(base, "cgroup.type")  # the root cgroup has none
        kind = _read(type_file).strip() if os.path.exists(type_file) else "domain"
    except OSError as exc:
        raise _Unavailable(f"cgroup v2: cannot read {base}: {exc}") from exc
    missing = [c for c in controllers if c not in available]
    if missing:
        raise _Unavailable(
            f"cgroup v2: controller{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
            f"not available in {base} (cgroup.controllers: {' '.join(available) or 'none'})"
        )
    if kind != "domain":
        raise _Unavailable(f"cgroup v2: {base} is a {kind} cgroup")
    files = [os.path.join(base, n) for n in ("cgroup.subtree_control", "cgroup.procs")]
    if not _writable(base, *files):
        raise _Unavailable(
            f"cgroup v2: {base} is not writable by uid {os.geteuid()} (not delegated; "
            "run as root or under `systemd-run --user --scope -p Delegate=yes`)"
        )
    moved = _v2_enable(base, controllers, evacuate=True)
    parent = os.path.join(base, PARENT)
    _v2_parent(parent, controllers)
    note = f"v2 under {parent}"
    if moved:
        note += f" ({moved} process{'es' if moved > 1 else ''} moved into {base}/{LEAF})"
    return _Layout("v2", tuple((role, parent) for role in ("memory", "pids", "cpu")), note)


def _v2_parent(parent: str, controllers: tuple[str, ...]) -> None:
    with contextlib.suppress(FileExistsError):
        os.mkdir(parent)
    _v2_enable(parent, controllers, evacuate=False)


def _v1_layout() -> _Layout:
    own = _own_cgroups()
    mounts: dict[str, _Mount] = {}
    for mount in _mounts():
        if mount.fstype == "cgroup":
            for name in V1_CONTROLLERS:
                if name in mount.options:
                    mounts.setdefault(name, mount)
    missing = [c for c in V1_CONTROLLERS[:2] if c not in mounts]
    if missing:
        raise _Unavailable(f"cgroup v1: no {' or '.join(missing)} hierarchy mounted")
    parents: list[tuple[str, str]] = []
    notes = []
    for name, mount in mounts.items():
        base = _dir_in_mount(mount, own.get(name, "/"))
        if base is None:
            raise _Unavailable(
                f"cgroup v1: this process's {name} cgroup is not under {mount.point}"
            )
        if not _writable(base):
            raise _Unavailable(
                f"cgroup v1: {base} is not writable by uid {os.geteuid()} (v1 needs root)"
            )
        parent = os.path.join(base, PARENT)
        _v1_parent(parent)
        parents.append(("cpu" if name == "cpuacct" else name, parent))
        if name == "memory" and _number(os.path.join(parent, "memory.use_hierarchy")) == 0:
            notes.append("memory.use_hierarchy is 0: the caller's own memory limit is not shared")
    if "cpuacct" not in mounts:
        notes.append("no cpuacct hierarchy: CPU time not measured")
    dirs = ", ".join(dict.fromkeys(p for _, p in parents))
    return _Layout("v1", tuple(parents), "; ".join([f"v1 under {dirs}", *notes]))


def _v1_parent(parent: str) -> None:
    try:
        os.mkdir(parent)
    except FileExistsError:
        return
    use = os.path.join(parent, "memory.use_hierarchy")  # always 1 on kernels >= 5.11
    if _number(use) == 0:
        with contextlib.suppress(OSError):
            _write(use, "1")


def _ensure_parents(layout: _Layout) -> None:
    """Re-make the scigate parents (another process's exit may have removed them)."""
    for parent in layout.dirs():
        if layout.version == "v2":
            _v2_parent(parent, V2_CONTROLLERS)
        else:
            _v1_parent(parent)


@functools.cache
def _probe() -> tuple[_Layout | None, str]:
    if os.environ.get(DISABLE_ENV, "").strip().lower() in {"0", "no", "false", "off"}:
        return None, f"run cgroups turned off ({DISABLE_ENV}=0)"
    if not os.path.isdir("/sys/fs/cgroup"):
        return None, "no /sys/fs/cgroup"
    why = []
    for make in (_v2_layout, _v1_layout):
        try:
            layout = make()
            _try(layout)
        except (_Unavailable, OSError) as exc:
            why.append(str(exc))
            continue
        return layout, "; ".join([layout.note, *(w.replace(": ", " not used: ", 1) for w in why)])
    return None, "; ".join(why)


def _run_with_join_fds(
    cg: RunCgroup, code: str, *, timeout: float
) -> subprocess.CompletedProcess[str]:
    """`code` in a fresh interpreter given `cg`'s join fds (their numbers as arguments)."""
    fds = cg.join_fds()
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", code, *map(str, fds)],
        pass_fds=fds,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _try(layout: _Layout) -> None:
    """Make a test cgroup, move a process into it from inside a user and cgroup namespace
    (as a sandboxed process would), read it, remove it."""
    cg = RunCgroup._make(layout, memory_bytes=PROBE_MEMORY, max_tasks=PROBE_TASKS, hint="probe")
    try:
        probe = _run_with_join_fds(cg, _PROBE_CODE, timeout=20)
        if probe.returncode != 0:
            last = (probe.stderr.strip().splitlines() or ["no message"])[-1]
            raise _Unavailable(
                f"cgroup {layout.version}: a process in a user and cgroup namespace cannot "
                f"join a run cgroup here (kernel < 5.16 with nsdelegate?): {last}"
            )
        cg.report()
    except (OSError, subprocess.SubprocessError) as exc:
        raise _Unavailable(f"cgroup {layout.version}: the test cgroup failed: {exc}") from exc
    finally:
        cg.close()
    if cg.leftover:
        raise _Unavailable(f"cgroup {layout.version}: cannot remove {', '.join(cg.leftover)}")


def cgroup_status() -> tuple[str | None, str]:
    """("v2" | "v1", note) when per-run cgroups can be made here, else (None, why not).

    Probed once per process: it makes a test cgroup, moves a process into it from a new
    user and cgroup namespace, and removes it. On v2 it may move the processes of this
    process's cgroup into a `scigate-host` leaf (see the module docstring)."""
    layout, note = _probe()
    return (layout.version if layout else None), note


#: a join slower than this waited for an RCU grace period (the kernel's cgroup rwsem in
#: its fast-reader mode); with `favordynmods` a join takes about 0.3 ms
SLOW_JOIN_SECONDS = 0.002
# Run in a fresh interpreter with the run cgroup's join fds: seconds its joins took.
_JOIN_TIMER = (
    "import os, sys, time; t = time.perf_counter()\n"
    "for fd in map(int, sys.argv[1:]): os.write(fd, b'0')\n"
    "print(time.perf_counter() - t)"
)


def cgroup_join_seconds(samples: int = 3) -> float | None:
    """Median seconds a new process takes to join a fresh run cgroup, as every sandboxed
    run does before its script starts; None when per-run cgroups are unavailable here.

    Moving a task between cgroups takes the kernel's cgroup_threadgroup_rwsem for writing,
    which waits for an RCU grace period unless a cgroup hierarchy is mounted with
    `favordynmods` (measured on one machine: 8-16 ms against 0.3 ms)."""
    taken = []
    for _ in range(samples):
        cg = RunCgroup.create(memory_bytes=None, max_tasks=None, name_hint="join-timer")
        if cg is None:
            return None
        with cg:
            out = _run_with_join_fds(cg, _JOIN_TIMER, timeout=60)
        if out.returncode != 0:
            return None
        taken.append(float(out.stdout))
        time.sleep(0.05)  # past a grace period: each sample starts as a run does
    return sorted(taken)[len(taken) // 2]


def cgroup_join_note(seconds: float | None) -> str:
    """What `cgroup_join_seconds` means for run latency, for `scigate doctor`."""
    if seconds is None:
        return "n/a: no per-run cgroups here"
    ms = f"{seconds * 1000:.1f} ms"
    if seconds < SLOW_JOIN_SECONDS:
        return f"fast ({ms} per run)"
    return (
        f"slow ({ms} per run, waiting for an RCU grace period; a short warm run takes "
        "10-40 ms): as root, `mount -o remount,favordynmods /sys/fs/cgroup` (cgroup v2, "
        "Linux 6.0 and newer) makes it about 0.3 ms, at some cost to fork and exit"
    )


# --- one run's cgroup ----------------------------------------------------------------------

_counter = itertools.count()
_live: weakref.WeakSet[RunCgroup] = weakref.WeakSet()
_leftovers: set[str] = set()
_swept = False
_sweep_lock = threading.Lock()


class RunCgroup:
    """One run's cgroup (v2) or cgroups (v1, one per hierarchy): memory limit over RSS,
    tmpfs and memfd (page cache and shmem are charged), no swap past it, task limit
    (`pids.max` counts threads), CPU accounting. Make it with `create`, hand `join_fds()`
    (and `usage_fd()`) to the sandbox, `report()` when the run is over, then `close()`."""

    def __init__(self, layout: _Layout, dirs: dict[str, str], memory_bytes, max_tasks):
        self.version = layout.version
        self.dirs = dirs  # role ("memory", "pids", "cpu") -> this run's directory
        self.paths = tuple(dict.fromkeys(dirs.values()))
        self.memory_bytes: int | None = memory_bytes
        self.max_tasks: int | None = max_tasks
        self.leftover: list[str] = []  # directories close() could not remove
        self._closed = False
        self._owner = os.getpid()  # a forked child's exit must not close its parent's runs
        self._final: dict | None = None
        self._killed_events: dict[str, int] | None = None
        self._peak_seen = 0
        self._fds: list[int] = []
        self._usage: int | None = None
        try:
            for path in self.paths:
                self._fds.append(os.open(f"{path}/cgroup.procs", os.O_WRONLY | os.O_CLOEXEC))
            cpu = dirs.get("cpu")
            name = "cpu.stat" if self.version == "v2" else "cpuacct.usage"
            if cpu is not None and os.path.exists(os.path.join(cpu, name)):
                self._usage = os.open(os.path.join(cpu, name), os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self.close()
            raise
        _live.add(self)

    @classmethod
    def create(
        cls, *, memory_bytes: int | None, max_tasks: int | None, name_hint: str = ""
    ) -> RunCgroup | None:
        """A new cgroup for one run with these limits (None: unlimited, still measured);
        None when cgroups are unavailable here (`cgroup_status()` says why). Raises
        `CgroupError` when it cannot be made although the probe worked."""
        layout, _ = _probe()
        if layout is None:
            return None
        _sweep_once(layout)
        return cls._make(layout, memory_bytes=memory_bytes, max_tasks=max_tasks, hint=name_hint)

    @classmethod
    def _make(
        cls, layout: _Layout, *, memory_bytes: int | None, max_tasks: int | None, hint: str = ""
    ) -> RunCgroup:
        hint = _HINT.sub("", hint)[:40]
        name = f"run-{os.getpid()}-{next(_counter)}-{_pid_ns()}" + (f"-{hint}" if hint else "")
        made: list[str] = []
        try:
            for parent in layout.dirs():
                path = os.path.join(parent, name)
                for attempt in range(3):
                    try:
                        os.mkdir(path)
                        break
                    except FileNotFoundError:
                        if attempt == 2:
                            raise
                        _ensure_parents(layout)
                made.append(path)
            dirs = {role: os.path.join(parent, name) for role, parent in layout.parents}
            _set_limits(layout.version, dirs, memory_bytes, max_tasks)
            return cls(layout, dirs, memory_bytes, max_tasks)
        except (OSError, _Unavailable) as exc:
            for path in made:
                with contextlib.suppress(OSError):
                    os.rmdir(path)
            raise CgroupError(f"cannot make the run's cgroup {name}: {exc}") from exc

    def join_fds(self) -> list[int]:
        """Write-only fds on `cgroup.procs` of each hierarchy (close-on-exec: pass them with
        `pass_fds` or SCM_RIGHTS). A process that writes b"0" to every one (`join`) moves
        itself, its threads and its future children into the run's cgroup; the kernel
        checks the opener's credentials, so this works from inside the sandbox. Owned by
        this object (closed by `close()`)."""
        return list(self._fds)

    def usage_fd(self) -> int | None:
        """A read-only fd (close-on-exec) on the run's CPU counter (v2 `cpu.stat`, v1
        `cpuacct.usage`), re-readable with `os.pread(fd, 4096, 0)`: `usage_seconds(fd)`.
        None without CPU accounting (v1 without a cpuacct hierarchy)."""
        return self._usage

    def sample(self) -> None:
        """Note the current memory use, for a peak where the kernel keeps none (v2 before
        Linux 5.19 has no memory.peak): call it now and then during the run."""
        memory = self.dirs.get("memory")
        if memory is not None and self.version == "v2":
            current = _number(os.path.join(memory, "memory.current"))
            self._peak_seen = max(self._peak_seen, current or 0)

    def report(self) -> dict:
        """What the run used and which limits it hit: `peak_memory_bytes`, `oom_kills`
        (processes the OOM killer ended in the run), `memory_limit_hit` (the run reached
        its memory limit: an OOM kill, a failed charge or the peak at the limit; v1's
        failcnt stays 0 on recent kernels), `tasks_limit_hits` (forks and thread starts
        refused) and `tasks_limit_hit`, `peak_tasks`, `cpu_seconds`; None where not
        measured. After `close()`, what it was when closed."""
        if self._final is not None:
            return dict(self._final)
        out: dict = {
            "cgroup": self.version,
            "peak_memory_bytes": None,
            "oom_kills": 0,
            "memory_limit_hit": False,
            "tasks_limit_hits": 0,
            "tasks_limit_hit": False,
            "peak_tasks": None,
            "cpu_seconds": None,
        }
        memory, pids = self.dirs.get("memory"), self.dirs.get("pids")
        hits = 0
        if memory is not None and self.version == "v2":
            self.sample()
            peak = _number(os.path.join(memory, "memory.peak"))
            out["peak_memory_bytes"] = peak if peak is not None else self._peak_seen
            events = _keyed(os.path.join(memory, "memory.events"))
            out["oom_kills"] = events.get("oom_kill", 0)
            hits = events.get("max", 0)
        elif memory is not None:
            out["peak_memory_bytes"] = _number(os.path.join(memory, "memory.max_usage_in_bytes"))
            out["oom_kills"] = _keyed(os.path.join(memory, "memory.oom_control")).get("oom_kill", 0)
            hits = max(
                _number(os.path.join(memory, "memory.failcnt")) or 0,
                _number(os.path.join(memory, "memory.memsw.failcnt")) or 0,
            )
        if memory is not None:
            peak, limit = out["peak_memory_bytes"], self.memory_bytes
            out["memory_limit_hit"] = bool(
                hits or out["oom_kills"] or (limit and peak is not None and peak >= limit)
            )
        if pids is not None:
            events = self._killed_events or _keyed(os.path.join(pids, "pids.events"))
            out["tasks_limit_hits"] = events.get("max", 0)
            out["tasks_limit_hit"] = out["tasks_limit_hits"] > 0
            out["peak_tasks"] = _number(os.path.join(pids, "pids.peak"))
        if self._usage is not None:
            with contextlib.suppress(OSError, ValueError):
                out["cpu_seconds"] = usage_seconds(self._usage)
        return out

    def pids(self) -> set[int]:
        """Host pids of the processes in the run's cgroup(s) now."""
        return _pids(self.paths)

    def kill(self) -> None:
        """SIGKILL every process of the run, and wait (up to KILL_SECONDS) until none is
        left. v2 writes `cgroup.kill` (Linux >= 5.14, forks racing it are killed too);
        otherwise `pids.max` goes to 0 (no new task can start) and what `cgroup.procs`
        lists is killed through pidfds until it is empty. The cgroup takes no new tasks
        afterwards."""
        if self._closed:
            return
        pids = self.dirs.get("pids")
        if pids is not None and self._killed_events is None:
            self._killed_events = _keyed(os.path.join(pids, "pids.events"))
        if self.version == "v2" and _cgroup_kill(self.paths[0]):
            _wait_empty(self.paths, KILL_SECONDS)
            return
        if pids is not None:
            with contextlib.suppress(OSError):
                _write(os.path.join(pids, "pids.max"), "0")
        _kill_listed(self.paths, KILL_SECONDS)

    def close(self) -> None:
        """Kill what is left of the run, close the fds and remove the cgroup directories
        (retrying for RMDIR_SECONDS while exiting tasks linger; what still cannot be
        removed is in `leftover`, retried at exit and swept later). Idempotent."""
        if self._closed:
            return
        with contextlib.suppress(OSError):
            self.kill()
        self._final = self.report()
        self._closed = True
        for fd in [*self._fds, *([self._usage] if self._usage is not None else [])]:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds, self._usage = [], None
        self.leftover = [p for p in self.paths if not _rmdir(p, RMDIR_SECONDS)]
        _leftovers.update(self.leftover)
        _live.discard(self)

    def __enter__(self) -> RunCgroup:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"RunCgroup({self.version}, {', '.join(self.paths)})"


def _set_limits(version: str, dirs: dict[str, str], memory: int | None, tasks: int | None) -> None:
    mem, pids = dirs["memory"], dirs["pids"]
    if version == "v2":
        if memory is not None:
            _write(os.path.join(mem, "memory.max"), str(memory))
            swap = os.path.join(mem, "memory.swap.max")  # only with swap accounting
            if os.path.exists(swap):
                _write(swap, "0")
        oom_group = os.path.join(mem, "memory.oom.group")  # Linux >= 4.19
        if os.path.exists(oom_group):
            _write(oom_group, "1")  # an OOM kill ends the whole run, not one process
    elif memory is not None:
        _write(os.path.join(mem, "memory.limit_in_bytes"), str(memory))
        memsw = os.path.join(mem, "memory.memsw.limit_in_bytes")  # with swap accounting
        if os.path.exists(memsw):
            _write(memsw, str(memory))  # memory + swap: no swapping past the limit
    if tasks is not None:
        _write(os.path.join(pids, "pids.max"), str(tasks))


def _cgroup_kill(path: str) -> bool:
    try:
        _write(os.path.join(path, "cgroup.kill"), "1")
    except OSError:
        return False
    return True


def _pids(paths: tuple[str, ...]) -> set[int]:
    found: set[int] = set()
    for path in paths:
        with contextlib.suppress(OSError):
            found.update(int(p) for p in _read(f"{path}/cgroup.procs").split())
    return found


def _wait_empty(paths: tuple[str, ...], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while _pids(paths):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def _kill_listed(paths: tuple[str, ...], seconds: float) -> bool:
    """SIGKILL the listed processes until none is left. A pid is signalled through a pidfd
    opened before the list is read again, and only if it is still listed then, so a pid
    reused by a process outside the run is never hit."""
    deadline = time.monotonic() + seconds
    while first := _pids(paths):
        pidfds = {}
        for pid in first:
            try:
                pidfds[pid] = os.pidfd_open(pid)
            except OSError as exc:
                if exc.errno == errno.ENOSYS:  # Linux < 5.3: no pidfds, a racy kill
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)
        still = _pids(paths)
        for pid, pidfd in pidfds.items():
            if pid in still:
                with contextlib.suppress(OSError):
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            os.close(pidfd)
        if time.monotonic() > deadline:
            return False
        time.sleep(0.002)
    return True


def _rmdir(path: str, seconds: float) -> bool:
    """Remove a cgroup directory, retrying while it is busy; True when it is gone."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            os.rmdir(path)
            return True
        except FileNotFoundError:
            return True
        except OSError as exc:
            if exc.errno not in (errno.EBUSY, errno.ENOTEMPTY) or time.monotonic() > deadline:
                return False
        time.sleep(0.01)


# --- leftovers -----------------------------------------------------------------------------


@functools.cache
def _pid_ns() -> int:
    """The inode of this process's PID namespace (the pid in a name means nothing in
    another one)."""
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


def sweep_stale(parents: list[str] | None = None) -> list[str]:
    """Remove the run cgroups of scigate processes (of this PID namespace) that no longer
    exist, killing any task left in them first; the removed paths. `parents`: the scigate parent directories
    (default: this process's, when cgroups are available)."""
    if parents is None:
        layout, _ = _probe()
        parents = layout.dirs() if layout is not None else []
    removed = []
    for parent in parents:
        try:
            names = [e.name for e in os.scandir(parent) if e.is_dir(follow_symlinks=False)]
        except OSError:
            continue
        for name in names:
            match = _RUN.match(name)
            if not match or int(match.group(2)) != _pid_ns():
                continue
            pid = int(match.group(1))
            if pid == os.getpid() or pid_alive(pid):
                continue
            path = os.path.join(parent, name)
            if not _cgroup_kill(path) or not _wait_empty((path,), 1.0):
                pids = os.path.join(path, "pids.max")
                if os.path.exists(pids):
                    with contextlib.suppress(OSError):
                        _write(pids, "0")
                _kill_listed((path,), 1.0)
            if _rmdir(path, 0.5):
                removed.append(path)
    return removed


def _sweep_once(layout: _Layout) -> None:
    global _swept
    with _sweep_lock:
        if _swept:
            return
        _swept = True
    sweep_stale(layout.dirs())


@atexit.register
def _at_exit() -> None:
    """Close this process's remaining run cgroups and remove empty scigate parents."""
    for cg in list(_live):
        if cg._owner == os.getpid():
            with contextlib.suppress(Exception):
                cg.close()
    for path in list(_leftovers):
        _rmdir(path, 0.2)
    layout = _probe.cache_info().currsize and _probe()[0]
    if layout:
        for parent in layout.dirs():
            with contextlib.suppress(OSError):
                os.rmdir(parent)  # fails while another process's runs are there
