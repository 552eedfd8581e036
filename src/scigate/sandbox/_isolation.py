"""Isolation by construction: the bubblewrap command line that builds a run's world.

Under bubblewrap a run gets new user, PID, IPC, UTS and (unless the run needs it)
network namespaces, the unprivileged uid/gid 65534 inside, and a root file system that
holds only read-only binds of what the interpreter and the domain's software need
(`/usr` and its usr-merge links, the Python installation and virtualenv, a few files of
`/etc`, a synthetic passwd/group), the workspace read-write at `/sandbox/workspace`,
the shared FFCx cache read-only (`_jitcache`), size-limited private `/tmp` and `/dev/shm`, a `/proc`
of the run's own PID namespace and a minimal `/dev`. Host sockets, home directories,
the caller's files, its environment (through `/proc`) and the scigate package itself
(which ships seed answers) are simply not there. The PID namespace dies with its init,
so nothing outlives a run even if the run kills its supervisor; `--die-with-parent`
ends it when the caller dies.

Where bubblewrap is missing or cannot create namespaces, runs are refused unless the
caller allows unisolated runs (`--allow-unisolated`, `SCIGATE_ALLOW_UNISOLATED=1` or
`allow_unisolated(True)`); every result records which isolation it ran under.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import functools
import os
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scigate.errors import BadInput
from scigate.sandbox._models import Limits

PR_GET_CHILD_SUBREAPER = 37
POLL_NOTE = "supervisor counts descendants every 0.02-0.2 s and kills the whole tree"
SANDBOX_ROOT = "/sandbox"
WORKSPACE = "/sandbox/workspace"
SANDBOX_UID = 65534
ISOLATED_NOTE = (
    "bwrap: user (uid 65534), pid, ipc, uts{net} namespaces; read-only system binds; "
    "workspace, cache, private /tmp only writable"
)
# top-level system paths bound read-only (or re-created as the same symlink)
_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt")
# the few /etc entries programs need: loader, certificates, name resolution, time zone
_ETC = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "ssl",
    "ca-certificates",
    "ca-certificates.conf",
    "pki",
    "resolv.conf",
    "hosts",
    "host.conf",
    "nsswitch.conf",
    "gai.conf",
    "protocols",
    "services",
    "localtime",
    "timezone",
    "mime.types",
    "os-release",
    "debian_version",
    "java-17-openjdk",
    "fonts",
    "mpich",
    "openmpi",
)
_ALLOW_ENV = "SCIGATE_ALLOW_UNISOLATED"
RUN_TMPFS_BYTES = 16 << 20  # /run: sockets and pid files, never data
CACHE_BIND = "--ro-bind"  # how the shared cache is bound (see `_jitcache`)
_allow_unisolated: bool | None = None


class IsolationUnavailable(BadInput):
    """Untrusted code would run without isolation and that was not allowed."""


def allow_unisolated(allowed: bool | None = True) -> None:
    """Let this process run untrusted code without bubblewrap (the `--allow-unisolated`
    flag); False forbids it whatever the environment says, None defers to the environment."""
    global _allow_unisolated
    _allow_unisolated = allowed


def unisolated_allowed() -> bool:
    """True when runs may go ahead without isolation (flag or `SCIGATE_ALLOW_UNISOLATED=1`)."""
    if _allow_unisolated is not None:
        return _allow_unisolated
    return os.environ.get(_ALLOW_ENV, "").strip().lower() in {"1", "true", "yes"}


@functools.cache
def _userns_flags() -> list[str]:
    """`--disable-userns` where this bwrap and kernel support it (bwrap 0.8.0 and newer):
    a run that makes a user namespace of its own holds every capability there over the
    files of its uid and gid, e.g. CAP_DAC_READ_SEARCH to list the sealed forms
    directory (`_formcache`)."""
    exe = shutil.which("bwrap")
    if exe is None:
        return []
    flags = ["--unshare-user", "--disable-userns"]
    try:
        probe = subprocess.run(
            [exe, *flags, "--ro-bind", "/", "/", "/bin/sh", "-c", "true"],
            capture_output=True,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    return flags[1:] if probe.returncode == 0 else []


def nested_userns_disabled() -> bool:
    """Whether runs are kept from making user namespaces of their own."""
    return bool(_userns_flags())


def _namespace_flags(network: bool) -> list[str]:
    flags = [
        "--unshare-user",
        "--uid",
        str(SANDBOX_UID),
        "--gid",
        str(SANDBOX_UID),
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--hostname",
        "sandbox",
        "--unshare-cgroup-try",
        *_userns_flags(),
        "--die-with-parent",
        "--new-session",
    ]
    return flags if network else [*flags, "--unshare-net"]


def _system_binds() -> list[str]:
    args: list[str] = []
    for path in _SYSTEM:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args


@functools.cache
def bwrap_status() -> tuple[list[str] | None, str]:
    """(["bwrap"], note) when full isolation works here, else (None, why not)."""
    exe = shutil.which("bwrap")
    if exe is None:
        return None, "bwrap not installed (apt-get install bubblewrap)"
    probe_cmd = [
        exe,
        *_namespace_flags(network=False),
        *_system_binds(),
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--tmpfs",
        "/tmp",
        "--",
        "/bin/sh",
        "-c",
        "test -d /proc/self",
    ]
    try:
        probe = subprocess.run(probe_cmd, capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"bwrap does not run here: {exc}"
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["no message"])[-1]
        return None, f"bwrap cannot create the sandbox's namespaces here: {last}"
    return [exe], f"{exe} with user, pid, ipc, uts and network namespaces"


def _under(path: Path, roots: list[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def _pth_paths(site_dir: Path) -> list[Path]:
    """Directories that the `.pth` files of `site_dir` add to sys.path (editable installs
    of the domain software); lines that run code (`import ...`) are not paths."""
    found: list[Path] = []
    try:
        names = sorted(n for n in os.listdir(site_dir) if n.endswith(".pth"))
    except OSError:
        return found
    for name in names:
        try:
            lines = (site_dir / name).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            line = line.strip()
            if line and not line.startswith(("#", "import ", "import\t")):
                found.append((site_dir / line).resolve())
    return found


def software_paths() -> list[Path]:
    """The directories a sandboxed interpreter needs, by explicit list: the Python
    installation, the virtualenv, their site-packages and what their `.pth` files add.
    Never sys.path[0] (the caller's script directory or working directory), PYTHONPATH,
    the caller's home or repository: only software that was installed."""
    prefixes = [
        Path(sys.base_prefix),
        Path(sys.prefix),
        Path(os.path.realpath(sys.executable)).parent.parent,
    ]
    sites = [Path(p) for p in site.getsitepackages()]
    if site.ENABLE_USER_SITE and site.USER_SITE and site.USER_SITE in sys.path:
        sites.append(Path(site.USER_SITE))
    added = [p for s in sites for p in _pth_paths(s)]
    in_path = {os.path.realpath(p) for p in sys.path[1:] if p}
    # .pth paths count only where the interpreter really put them on sys.path
    added = [p for p in added if str(p) in in_path]
    return [*prefixes, *sites, *added]


@functools.cache
def _python_binds() -> tuple[str, ...]:
    """Read-only binds of `software_paths()`, with the scigate package masked except its
    sandbox directory (the supervisor's code)."""
    package = Path(__file__).resolve().parent.parent
    sandbox_dir = package / "sandbox"
    roots: list[Path] = [Path(p) for p in _SYSTEM]
    binds: list[str] = []
    for path in software_paths():
        path = path.resolve() if path.exists() else path
        if not path.is_dir() or _under(path, roots):
            continue
        if (path / "scigate").resolve() == package and not _under(package, roots):
            continue  # the editable source tree: only its sandbox directory goes in
        roots.append(path)
        binds += ["--ro-bind", str(path), str(path)]
    # the venv's own path as the user sees it (it may be a symlink to the resolved one)
    for raw in (sys.prefix, os.path.dirname(os.path.dirname(sys.executable))):
        if os.path.realpath(raw) != raw and not _under(Path(raw), [Path(p) for p in _SYSTEM]):
            binds += ["--ro-bind", os.path.realpath(raw), raw]
    if _under(package, roots):
        binds += ["--tmpfs", str(package)]
    binds += ["--ro-bind", str(sandbox_dir), str(sandbox_dir)]
    return tuple(binds)


_etc_dir: Path | None = None


def _synthetic_etc() -> Path:
    """A private directory with passwd/group naming only the sandbox user (made once)."""
    global _etc_dir
    if _etc_dir is None or not _etc_dir.is_dir():
        path = Path(tempfile.mkdtemp(prefix=f"scigate-etc-{os.getpid()}-"))
        uid = SANDBOX_UID
        (path / "passwd").write_text(
            f"root:x:0:0:root:/nonexistent:/usr/sbin/nologin\n"
            f"sandbox:x:{uid}:{uid}:sandbox:{WORKSPACE}/.home:/bin/sh\n"
        )
        (path / "group").write_text(f"root:x:0:\nsandbox:x:{uid}:\n")
        for name in ("passwd", "group"):
            (path / name).chmod(0o644)
        path.chmod(0o755)
        atexit.register(shutil.rmtree, path, ignore_errors=True)
        _etc_dir = path
    return _etc_dir


def _etc_binds() -> list[str]:
    etc = _synthetic_etc()
    args: list[str] = []
    for name in _ETC:
        if os.path.lexists(f"/etc/{name}"):
            args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    args += ["--ro-bind", str(etc / "passwd"), "/etc/passwd"]
    return [*args, "--ro-bind", str(etc / "group"), "/etc/group"]


def bwrap_prefix(
    limits: Limits,
    *,
    cache_dir: Path,
    workspace_fd: int | None = None,
    warm: bool = False,
    chdir: str = WORKSPACE,
) -> list[str] | None:
    """The bwrap argv prefix of one run, or of one warm server (`warm`).

    The workspace is bound by descriptor (`workspace_fd`, which the caller passes to
    bwrap with `pass_fds`): bwrap binds the directory that was opened, whatever its path
    names by then, so no rename or symlink can redirect the bind. A warm server's
    workspace is its own slot directory, into which each run's files are moved
    (`_warm`); it gets a private POSIX message-queue file system too, so it can clear
    what a run left there.

    None when isolation is unavailable and unisolated runs are allowed; raises
    `IsolationUnavailable` when it is unavailable and not allowed.
    """
    if limits.unisolated:
        return None
    base, why = bwrap_status()
    if base is None:
        if unisolated_allowed():
            return None
        raise IsolationUnavailable(
            f"refusing to run untrusted code without isolation: {why}; install bubblewrap "
            f"or pass --allow-unisolated (or set {_ALLOW_ENV}=1) to run it unisolated"
        )
    tmp = str(limits.tmp_bytes)
    args = [
        *base,
        *_namespace_flags(network=limits.network),
        *_system_binds(),
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        # hardware topology for MPI/UCX and BLAS (no credentials live in sysfs)
        "--ro-bind-try",
        "/sys",
        "/sys",
        # the private directories first: software bound below lands on top of them, so
        # an interpreter or venv under the host's /tmp (a CI checkout) stays visible;
        # every writable place is size-capped (memory-backed, charged to the run)
        "--size",
        tmp,
        "--tmpfs",
        "/tmp",
        "--size",
        tmp,
        "--tmpfs",
        "/dev/shm",
        "--symlink",
        "/tmp",
        "/var/tmp",
        "--size",
        str(RUN_TMPFS_BYTES),
        "--tmpfs",
        "/run",
        *_python_binds(),
        *_etc_binds(),
        # the shared cache is read-only: a run cannot plant a module another run loads
        CACHE_BIND,
        str(cache_dir),
        str(cache_dir),
    ]
    if warm:
        args += ["--mqueue", "/dev/mqueue"]
    visible = [Path(p) for p in _SYSTEM] + [
        Path(_python_binds()[i + 2]) for i, a in enumerate(_python_binds()) if a == "--ro-bind"
    ]
    for path in limits.read_only_paths:
        if _under(Path(path), visible):
            continue  # already there (the interpreter, a system tool)
        # a symlink cannot be a mount point: bind its target where the target lives
        dest = os.path.realpath(path) if os.path.islink(path) else path
        args += ["--ro-bind-try", os.path.realpath(path), dest]
    if workspace_fd is not None:
        args += ["--bind-fd", str(workspace_fd), WORKSPACE]
    # the root itself (mount points, synthetic dirs) read-only once everything is bound
    return [*args, "--remount-ro", "/", "--chdir", chdir, "--"]


def isolation_note(prefix: list[str] | None, network: bool, requested: bool = False) -> str:
    """What a result records about the isolation it ran under."""
    if prefix is None and requested:
        return "none: the caller asked for an unisolated run"
    if prefix is None:
        return f"none: {bwrap_status()[1]} (unisolated runs were allowed)"
    return ISOLATED_NOTE.format(net="" if network else ", net")


@functools.cache
def subreaper_supported() -> bool:
    """True when prctl(PR_GET_CHILD_SUBREAPER) works (Linux >= 3.4); only reads."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        value = ctypes.c_int(0)
        return libc.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(value), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


STOP_WAIT_SECONDS = 1.0  # a SIGSTOP takes effect within microseconds unless in D state


def kill_sandbox(pid: int) -> None:
    """SIGKILL bwrap `pid` (a process we started with a `bwrap_prefix`) and everything
    in its sandbox, leaving nothing behind whatever moment it is killed at.

    bwrap's child, the init of the run's PID namespace, blocks until bwrap tells it to
    go on and sets its parent-death signal only once its setup is done, so killing bwrap
    alone while it starts leaves that init asleep for ever, holding the workspace,
    outside the run's cgroup. So: stop bwrap (it can no longer fork), SIGKILL its
    children (an init's death ends its namespace, including anything it started), then
    bwrap's process group. `pid` must not have been reaped yet (it could be reused)."""
    try:
        os.kill(pid, signal.SIGSTOP)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + STOP_WAIT_SECONDS
    while _state(pid) not in {"T", "t", "Z", "X", ""} and time.monotonic() < deadline:
        time.sleep(0.001)
    for child in children(pid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(child, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)  # in case it left its group


def _stat(pid: int | str) -> list[str]:
    """The fields of /proc/<pid>/stat after the command name (state first); [] if gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []


def _state(pid: int) -> str:
    fields = _stat(pid)
    return fields[0] if fields else ""


def children(pid: int) -> list[int]:
    """Pids of the live processes whose parent is `pid` (from /proc)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            fields = _stat(name)
            if len(fields) > 1 and fields[1] == str(pid):
                found.append(int(name))
    return found
