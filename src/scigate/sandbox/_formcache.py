"""The host's half of the shared compiled-form cache (`_formhook` is the sandbox's).

`$SCIGATE_CACHE_DIR/forms/<key>/` holds one compiled FFCx module: `source.c` (the C
text it was compiled from), `module.so` and `meta.json` (key, module name, flags,
versions, the module's SHA-256). The directory is bound read-only into every run and
written only here, by `store`, with a module that `compile_trusted` built from C text
in a fresh sandbox of its own (no candidate-writable input but that text).

During a run, `SpoolWatcher` serves the run's spool directory (in its workspace): each
`<key>.req` is read without following links, with a size cap, as a regular file only
(`_hostfs`); its key is computed again here from the C text, the flags (allow-listed),
the host's versions and the run's scope, and a request whose key differs from its name or its claim is
refused, so nothing is stored under a key a candidate chose. `<key>.hit` notes (the
module name the run loaded the entry as) refresh an entry's LRU stamp and, when the
entry's `meta.json` names that module, go into the run's form map (`SpoolWatcher.used`,
`SandboxResult.forms`), which the caller may hand to later runs of the same candidate.
The forms directory itself is not readable, only searchable (`ROOT_MODE`): a run
(the owner's uid, without capabilities) opens an entry by its key, which it can only
compute from C text it generated itself, and cannot list the keys of other candidates'
forms to read their C text. Every key also hashes the run's *scope* (`new_scope`, 128
random bits given to the run in its environment; runs of one candidate or one agent
episode may share one): a run cannot compute another scope's keys, so it cannot tell
whether another scope's run had some C text compiled, and nothing one run leaves in
the cache reaches a run of another scope. The host lists it for eviction with CAP_DAC_READ_SEARCH:
as root directly, otherwise in a child of its own user namespace (`_list_sealed`).
The cache is kept under `max_bytes` by evicting the entries used least recently; a
store lists the cache only when its running size estimate passes the
bound or every `RESCAN_STORES` stores, so between listings another process's stores can
take it over the bound by at most that many entries each.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.util
import json
import os
import secrets
import shlex
import shutil
import sys
import sysconfig
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from scigate.errors import BadInput
from scigate.sandbox import _formhook
from scigate.sandbox._dirwatch import DirWaiter
from scigate.sandbox._hostfs import UnsafeWorkspaceFile, read_bytes

SPOOL_ENV = _formhook.SPOOL_ENV
SCOPE_ENV = _formhook.SCOPE_ENV
FORMS_SUBDIR = "forms"
SPOOL_PARTS = (".home", ".formspool")  # the run's spool, under its workspace
MAX_REQUEST = _formhook.MAX_SOURCE + (1 << 16)
MAX_MODULE = 64 << 20
DEFAULT_MAX_BYTES = 512 << 20
MAX_BYTES_ENV = "SCIGATE_FORMCACHE_BYTES"
COMPILE_SECONDS = 300.0
MAX_COMPILES = 64  # trusted compiles one run may ask for (more are refused)
MAX_HIT_NOTE = 256  # bytes of a hit note (a module name)
POLL_SECONDS = 0.005  # without inotify the watcher lists the spool this often
IDLE_SECONDS = 0.25  # with inotify (`_dirwatch`): a listing this often all the same

RESCAN_STORES = 64  # a process lists the whole cache again after this many stores
#: the forms directory: write and search for its owner, search for everyone, read for
#: no one (see the module docstring)
ROOT_MODE = 0o311
#: the stores' lock file: write-only for its owner, so a run (read-only mount: no write,
#: and no read permission) cannot open it, and cannot hold the lock to stall every other
#: run's trusted compiles until they time out
LOCK_NAME, LOCK_MODE = ".lock", 0o200
LIST_SECONDS = 30.0
# Run by `_list_sealed` under bwrap in a user namespace of its own, as its uid 0 with
# CAP_DAC_READ_SEARCH, which there covers the files of the caller's uid and gid: lists the
# directory it is given, names separated by NUL.
_LIST_SCRIPT = (
    "import os, sys; "
    "sys.stdout.buffer.write(b'\\0'.join(os.fsencode(n) for n in os.listdir(sys.argv[1])))"
)

_inflight: dict[str, threading.Lock] = {}
_inflight_lock = threading.Lock()
# root -> (bytes the cache held when this process last listed it plus what it stored
# since, stores since): a full listing takes 0.3 s at 5,000 entries (the default bound
# holds about that many), so a store lists the cache only when this estimate passes
# the bound or every RESCAN_STORES stores (other processes' stores are seen then)
_estimate: dict[str, tuple[int, int]] = {}


def forms_dir(cache_dir: Path) -> Path:
    """The shared compiled-forms directory under the shared `cache_dir`."""
    return cache_dir / FORMS_SUBDIR


def max_bytes() -> int:
    """The cache's size bound: `$SCIGATE_FORMCACHE_BYTES`, else 512 MiB; 0 turns the
    shared cache off (every run compiles privately)."""
    raw = os.environ.get(MAX_BYTES_ENV, "")
    return int(raw) if raw.isdigit() else DEFAULT_MAX_BYTES


def _include_dirs() -> list[str]:
    """Python's and FFCx's header directories, found without importing FFCx."""
    spec = importlib.util.find_spec("ffcx")
    if spec is None or spec.origin is None:
        raise RuntimeError("FFCx is not installed")
    return [
        sysconfig.get_paths()["include"],
        os.path.join(os.path.dirname(spec.origin), "codegeneration"),
    ]


def _compiler() -> list[str]:
    """The interpreter's C compiler, as cffi's build would run it."""
    return shlex.split(sysconfig.get_config_var("CC") or "cc")


def compiler_base() -> dict:
    """The interpreter's own compiler settings, as cffi's build would use them: the
    compiler, its flags and the header directories (`_formhook.compiler_command`)."""
    cflags = shlex.split(sysconfig.get_config_var("CFLAGS") or "")
    ccshared = shlex.split(sysconfig.get_config_var("CCSHARED") or "-fPIC")
    return {"cc": _compiler(), "cflags": [*cflags, *ccshared], "includes": _include_dirs()}


def _compile_options(flags: dict, base: dict) -> list[str]:
    """The compiler options of a module's compile with `flags` (what a PCH is built with)."""
    return _formhook.compiler_options(base, flags)


def compile_command(flags: dict, pch: Path | None = None, base: dict | None = None) -> list[str]:
    """The C compiler command a trusted compile runs in its workspace (source.c ->
    module.so); with `pch` (`_pch.precompiled`) that directory is searched first, so
    the compiler loads the prologue's headers precompiled. `base`: `compiler_base()`,
    when the caller has it already."""
    base = base if base is not None else compiler_base()
    return _formhook.compiler_command(
        base, flags, "source.c", _formhook.SO_NAME, str(pch) if pch is not None else None
    )


#: the compile flags of DOLFINx's JIT unless a user's options file changes them
DEFAULT_FLAGS = {
    "extra_compile_args": ["-std=c17", "-O2", "-g0"],
    "libraries": ["m"],
    "debug": False,
}


def direct_env(cache_dir: Path) -> dict[str, str]:
    """The variables that make a *trusted* process (`_jitcache.trusted_env`) compile its
    FFCx modules by running the C compiler directly, as a trusted compile does, with the
    prologue's headers precompiled for `DEFAULT_FLAGS` (`_pch`, under `cache_dir`),
    instead of through cffi's setuptools build (0.17 s a module against 0.07 s)."""
    from scigate.sandbox import _pch

    try:
        base = compiler_base()
    except RuntimeError:  # no FFCx: nothing to compile
        return {}
    pch = _pch.precompiled(cache_dir, _compile_options(DEFAULT_FLAGS, base), base["cc"])
    spec = {"base": base, "pch": str(pch) if pch else None, "pch_flags": DEFAULT_FLAGS}
    pythonpath = os.environ.get("PYTHONPATH", "")
    return {
        _formhook.DIRECT_ENV: json.dumps(spec),
        "PYTHONPATH": os.pathsep.join(p for p in (str(SITE_DIR), pythonpath) if p),
    }


def precompiled_headers(c_text: bytes, flags: dict, base: dict) -> Path | None:
    """The PCH directory for compiling `c_text` with `flags` and the compiler settings
    `base` (`compiler_base()`, `_pch`), when its C text starts with cffi's prologue and
    one can be had; else None (headers parsed as usual)."""
    from scigate.sandbox import _pch
    from scigate.sandbox._env import default_cache_dir

    head = _pch.prologue()
    if head is None or not c_text.startswith(head):
        return None
    # under the cache the trusted compile's sandbox binds (its default, read-only)
    options = _compile_options(flags, base)
    return _pch.precompiled(default_cache_dir().resolve(), options, base["cc"])


# The sandbox runners that run trusted compiles: `_runner` registers its `execute` and
# `_warm` its `execute_warm` when they load (the runner serves the spool, so this module
# must not import the runners back).
_execute: Callable[..., Any] | None = None
_execute_warm: Callable[..., Any] | None = None
# what a trusted compile's warm server preloads: the compiler is a subprocess of the run
COMPILE_PRELOAD = ("subprocess",)
COMPILE_RUNNER = "scigate_cc.py"


def use_runner(execute: Callable[..., Any]) -> None:
    """Run trusted compiles with `execute` (the sandbox runner's)."""
    global _execute
    _execute = execute


def use_warm_runner(execute_warm: Callable[..., Any] | None) -> None:
    """Fork trusted compiles from a warm server with `execute_warm` (None: cold runs)."""
    global _execute_warm
    _execute_warm = execute_warm


def compile_trusted(c_text: bytes, flags: dict, cancel: threading.Event | None = None) -> bytes:
    """Compile `c_text` with `flags` in a fresh sandbox whose workspace holds only that
    text; the module's bytes. RuntimeError when the compiler fails; `cancel` (the
    asking run ended) stops the compile."""
    from scigate.sandbox._models import Limits
    from scigate.sandbox._workspace import fresh_workspace, write_new_file

    if _execute is None:
        raise RuntimeError("no sandbox runner registered for trusted compiles")
    if not _formhook.flags_allowed(flags):
        raise RuntimeError("compile flags outside the allow-list")
    work = fresh_workspace()
    try:
        write_new_file(work / "source.c", c_text)
        limits = Limits(wall_seconds=COMPILE_SECONDS, cpu_seconds=COMPILE_SECONDS)
        base = compiler_base()  # once: it looks FFCx up (`_include_dirs`)
        command = compile_command(flags, precompiled_headers(c_text, flags, base), base)
        if _execute_warm is not None:
            # forked from a warm server (about 0.01 s against 0.1-0.2 s for a fresh
            # sandbox): a run like any other, with this workspace and these limits
            write_new_file(work / COMPILE_RUNNER, _compile_runner(command))
            result = _execute_warm(
                [sys.executable, COMPILE_RUNNER],
                script=Path(COMPILE_RUNNER),
                workspace=work,
                limits=limits,
                env=None,
                cache_dir=None,
                preload=COMPILE_PRELOAD,
                cancel=cancel,
                forms=False,
            )
        else:
            result = _execute(command, workspace=work, limits=limits, forms=False, cancel=cancel)
        if not result.ok:
            raise RuntimeError(f"the C compiler failed: {result.reason}")
        return read_bytes(work, _formhook.SO_NAME, limit=MAX_MODULE, what="compiled module")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _compile_runner(command: list[str]) -> str:
    """The Python a warm run executes for a trusted compile: the compiler command, its
    exit status as the run's."""
    return (
        "import subprocess, sys\n"
        f"sys.exit(subprocess.run({command!r}, stdin=subprocess.DEVNULL).returncode)\n"
    )


class FormCache:
    """The shared compiled-forms directory, as the host reads and writes it."""

    def __init__(self, root: Path, max_bytes: int | None = None) -> None:
        self.root = Path(root)
        self.max_bytes = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes

    def ensure(self) -> None:
        """Make the forms directory if needed and seal it (`ROOT_MODE`, and `LOCK_MODE`
        for a lock file an earlier version left readable)."""
        self.root.mkdir(parents=True, exist_ok=True)
        self.seal()

    def seal(self) -> None:
        """Seal the forms directory and its lock file where they exist (see `ensure`)."""
        for path, mode in ((self.root, ROOT_MODE), (self.root / LOCK_NAME, LOCK_MODE)):
            with contextlib.suppress(FileNotFoundError):
                if os.stat(path, follow_symlinks=False).st_mode & 0o7777 == mode:
                    continue
                try:
                    os.chmod(path, mode, follow_symlinks=False)
                except OSError as exc:  # e.g. another user's directory
                    raise OSError(
                        exc.errno,
                        f"cannot seal {path} (mode {mode:04o}, so runs cannot list or "
                        f"lock it): {exc.strerror}; chmod it, or set {MAX_BYTES_ENV}=0 "
                        "to compile forms privately",
                    ) from exc

    @contextlib.contextmanager
    def _locked(self):
        self.ensure()
        flags = os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
        fd = os.open(self.root / LOCK_NAME, flags, LOCK_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def valid(self, key: str, module_name: str, c_text: bytes) -> bool:
        """True when the entry of `key` is intact and compiled from exactly `c_text`."""
        entry = str(self.root / key)
        return _formhook.entry_module(entry, key, module_name, c_text) is not None

    def store(self, key: str, module_name: str, flags: dict, c_text: bytes, module: bytes) -> None:
        """Add an entry (atomically: written aside, then renamed into place; an intact
        entry already there is kept, a broken one replaced), then evict down to size."""
        meta = {
            "key": key,
            "module_name": module_name,
            "flags": flags,
            "versions": _formhook.versions_tag(),
            "so_sha256": hashlib.sha256(module).hexdigest(),
            "source_bytes": len(c_text),
        }
        with self._locked():
            if self.valid(key, module_name, c_text):
                return
            tmp = self.root / f".tmp-{secrets.token_hex(8)}"
            tmp.mkdir()
            meta_text = json.dumps(meta).encode()
            (tmp / "source.c").write_bytes(c_text)
            (tmp / _formhook.SO_NAME).write_bytes(module)
            (tmp / "meta.json").write_bytes(meta_text)
            for path in tmp.iterdir():
                path.chmod(0o444)
            dest = self.root / key
            replaced = dest.exists() or dest.is_symlink()
            if replaced:
                self._remove(dest)
            os.rename(tmp, dest)
            size = len(c_text) + len(module) + len(meta_text)
            total, stores = _estimate.get(str(self.root), (-1, 0))
            if (
                replaced
                or total < 0
                or stores + 1 >= RESCAN_STORES
                or total + size > self.max_bytes
            ):
                self._evict()
            else:
                _estimate[str(self.root)] = (total + size, stores + 1)

    def module_name_of(self, key: str) -> str | None:
        """The module name `key`'s entry records in its `meta.json`, or None."""
        if not _formhook.KEY.fullmatch(key):
            return None
        try:
            with open(self.root / key / "meta.json", "rb") as f:
                meta = json.loads(f.read(1 << 16))
        except (OSError, ValueError):
            return None
        name = meta.get("module_name") if isinstance(meta, dict) else None
        return name if isinstance(name, str) and meta.get("key") == key else None

    def touch(self, key: str) -> None:
        """Refresh the LRU stamp of `key`'s entry (its directory's mtime)."""
        if _formhook.KEY.fullmatch(key):
            with contextlib.suppress(OSError):
                os.utime(self.root / key, follow_symlinks=False)

    def entries(self) -> list[tuple[float, int, Path]]:
        """(last use, bytes, path) of every entry."""
        found = []
        for name in self._names():
            if not _formhook.KEY.fullmatch(name):
                continue
            path = self.root / name
            try:
                stamp = os.stat(path, follow_symlinks=False).st_mtime
            except OSError:
                continue  # removed meanwhile
            size = 0
            with contextlib.suppress(OSError):
                size = sum(f.stat(follow_symlinks=False).st_size for f in os.scandir(path))
            found.append((stamp, size, path))
        return found

    def _names(self) -> list[str]:
        """The names in the sealed forms directory ([] when it does not exist)."""
        try:
            return os.listdir(self.root)
        except FileNotFoundError:
            return []
        except PermissionError:  # not root: list it where this uid has the capability
            return _list_sealed(self.root)

    def _evict(self) -> None:
        """List the cache and remove the least recently used entries until it fits."""
        entries = sorted(self.entries())
        total = sum(size for _, size, _ in entries)
        for _, size, path in entries:
            if total <= self.max_bytes:
                break
            self._remove(path)
            total -= size
        _estimate[str(self.root)] = (total, 0)

    def _remove(self, path: Path) -> None:
        """Move an entry aside, then delete it (a run reading it keeps its open files)."""
        aside = self.root / f".old-{secrets.token_hex(8)}"
        try:
            os.rename(path, aside)
        except OSError:
            return
        for sub in (aside, *aside.iterdir()) if aside.is_dir() else ():
            with contextlib.suppress(OSError):
                sub.chmod(0o755 if sub.is_dir() else 0o644)
        shutil.rmtree(aside, ignore_errors=True)
        with contextlib.suppress(OSError):
            aside.unlink()


def _list_sealed(path: Path) -> list[str]:
    """The names in `path`, a directory this uid owns but may not read, listed by a child
    that holds CAP_DAC_READ_SEARCH in a user namespace of its own (bwrap, as the
    sandbox's runs are started: allowed where unprivileged user namespaces are
    restricted to it); [] when that cannot run: eviction then waits, nothing is
    unsealed."""
    import subprocess

    exe = shutil.which("bwrap")
    if exe is None:
        return []
    command = [
        exe,
        "--unshare-user",
        "--uid",
        "0",
        "--gid",
        "0",
        "--cap-add",
        "CAP_DAC_READ_SEARCH",
        "--ro-bind",
        "/",
        "/",
        "--",
        sys.executable,
        "-I",
        "-S",
        "-c",
        _LIST_SCRIPT,
        str(path),
    ]
    try:
        out = subprocess.run(command, capture_output=True, timeout=LIST_SECONDS, check=True)
    except (OSError, subprocess.SubprocessError):
        return []
    return [os.fsdecode(n) for n in out.stdout.split(b"\0") if n]


def _respond(spool_fd: int, key: str, verdict: str, why: str = "") -> None:
    """Write `<key>.ok` or `<key>.refused` into the spool, never through a link."""
    name = f"{key}.{verdict}"
    with contextlib.suppress(FileNotFoundError, IsADirectoryError, PermissionError):
        os.unlink(name, dir_fd=spool_fd)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    with contextlib.suppress(OSError):
        fd = os.open(name, flags, 0o644, dir_fd=spool_fd)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(why)


def handle_request(
    cache: FormCache,
    spool_fd: int,
    name: str,
    scope: str,
    cancel: threading.Event | None = None,
    may_compile: bool = True,
) -> str:
    """Serve one `<key>.req` of the spool of a run of `scope`: 'ok' (the entry is
    there), else why it was refused. The request is removed either way. Without
    `may_compile` only an entry already there is served."""
    key = name[: -len(".req")]
    try:
        raw = read_bytes(spool_fd, name, limit=MAX_REQUEST, what="form request")
    except FileNotFoundError:  # taken meanwhile (another watcher of the same spool)
        return "gone"
    except UnsafeWorkspaceFile as exc:
        why = f"refused: {exc}"
    else:
        why = _serve(cache, key, raw, scope, cancel, may_compile)
    with contextlib.suppress(OSError):
        os.unlink(name, dir_fd=spool_fd)
    if why == "ok":
        _respond(spool_fd, key, "ok")
    elif _formhook.KEY.fullmatch(key):
        _respond(spool_fd, key, "refused", why)
    return why


def _serve(
    cache: FormCache,
    key: str,
    raw: bytes,
    scope: str,
    cancel: threading.Event | None,
    may_compile: bool,
) -> str:
    try:
        request = json.loads(raw)
        module_name, flags = request["module_name"], request["flags"]
        c_text = request["c"].encode()
        claimed = request["key"]
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeError):
        return "refused: not a form request"
    if not isinstance(module_name, str) or not _formhook.MODULE_NAME.fullmatch(module_name):
        return "refused: not an FFCx module name"
    if not isinstance(flags, dict) or not _formhook.flags_allowed(flags):
        return "refused: compile flags outside the allow-list"
    if f"PyInit_{module_name}(".encode() not in c_text:
        return "refused: the C text is not that module"
    if not _formhook.SCOPE.fullmatch(scope):
        return "refused: the run has no forms scope"
    actual = _formhook.form_key(c_text, module_name, flags, scope)
    if actual != key or actual != claimed:
        return "refused: the key is not the hash of the request"
    with _inflight_lock:
        lock = _inflight.setdefault(key, threading.Lock())
    with lock:
        if cache.valid(key, module_name, c_text):
            cache.touch(key)
            return "ok"
        if not may_compile:
            return f"refused: more than {MAX_COMPILES} compiles in one run"
        try:
            module = compile_trusted(c_text, flags, cancel)
        except (RuntimeError, OSError, UnsafeWorkspaceFile) as exc:
            return f"refused: {exc}"
        cache.store(key, module_name, flags, c_text, module)
    return "ok"


def take_hit(
    cache: FormCache, spool_fd: int, name: str, used: dict[str, str] | None = None
) -> None:
    """Take the hit note `name` (`<key>.hit`) from the spool: refresh the entry's LRU
    stamp and, when the entry was compiled for the module name the note gives, record
    it in `used` (module name -> key; at most `_formhook.MAX_MAP` entries)."""
    key = name[: -len(".hit")]
    try:
        raw = read_bytes(spool_fd, name, limit=MAX_HIT_NOTE, what="form hit note")
    except (OSError, UnsafeWorkspaceFile):
        raw = b""
    with contextlib.suppress(OSError):
        os.unlink(name, dir_fd=spool_fd)
    if not _formhook.KEY.fullmatch(key):
        return
    cache.touch(key)
    module_name = raw.decode("ascii", "replace")
    if (
        used is not None
        and _formhook.MODULE_NAME.fullmatch(module_name)
        and (module_name in used or len(used) < _formhook.MAX_MAP)
        and cache.module_name_of(key) == module_name
    ):
        used[module_name] = key


def serve_spool(
    cache: FormCache,
    spool_fd: int,
    scope: str,
    cancel: threading.Event | None = None,
    compiles_left: int = MAX_COMPILES,
    used: dict[str, str] | None = None,
) -> list[tuple[str, str]]:
    """Serve every request and hit note now in the spool of a run of `scope`; (name,
    outcome) of each.
    At most `compiles_left` requests are compiled; `cancel` stops a compile; the hit
    notes' modules go into `used` (`take_hit`)."""
    done: list[tuple[str, str]] = []
    try:
        names = os.listdir(spool_fd)
    except OSError:
        return done
    for name in names:
        if name.endswith(".hit"):
            take_hit(cache, spool_fd, name, used)
        elif name.endswith(".req"):
            may = len(done) < compiles_left
            done.append((name, handle_request(cache, spool_fd, name, scope, cancel, may)))
    return done


class SpoolWatcher:
    """Serves one run's spool from a thread while the run lasts (a context manager).

    The spool directory is made (a real directory: whatever the workspace held under
    that name is replaced) and opened before the run starts; the watcher reads it
    through that descriptor only, so a run that renames or replaces it loses its own
    answers and nothing else."""

    def __init__(self, workspace: Path, cache_dir: Path, scope: str) -> None:
        from scigate.sandbox._workspace import real_dirs

        self.scope = scope  # the run's (`run_env`): every key it may ask for includes it
        self.cache = FormCache(forms_dir(cache_dir), max_bytes())
        self.cache.ensure()  # sealed before the run can see it
        self.fd = real_dirs(workspace, *SPOOL_PARTS)
        self.waiter = DirWaiter(self.fd)  # watching before the first listing: no wake lost
        self.stop = threading.Event()
        self.log: list[tuple[str, str]] = []
        #: the run's form map: module name -> key of each entry it loaded (`take_hit`)
        self.used: dict[str, str] = {}
        self.thread = threading.Thread(target=self._loop, name="scigate-formspool", daemon=True)

    def _loop(self) -> None:
        pause = IDLE_SECONDS if self.waiter.notifies else POLL_SECONDS
        while not self.stop.is_set():
            left = MAX_COMPILES - len(self.log)
            self.log += serve_spool(self.cache, self.fd, self.scope, self.stop, left, self.used)
            self.waiter.wait(pause)

    def __enter__(self) -> SpoolWatcher:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.waiter.wake()
        self.thread.join()
        with contextlib.suppress(OSError):  # hit notes of the run's last moments
            for name in os.listdir(self.fd):
                if name.endswith(".hit"):
                    take_hit(self.cache, self.fd, name, self.used)
        self.waiter.close()
        os.close(self.fd)


SITE_DIR = Path(__file__).with_name("_formsite")  # its sitecustomize installs the hook


def enabled() -> bool:
    """Whether runs share compiled forms (`$SCIGATE_FORMCACHE_BYTES` is not 0)."""
    return max_bytes() > 0


def new_scope() -> str:
    """A fresh forms scope: 128 random bits, the secret part of the keys its runs use."""
    return secrets.token_hex(16)


def check_scope(scope: str) -> str:
    """`scope` when it is a forms scope (`new_scope`), else BadInput."""
    if not isinstance(scope, str) or not _formhook.SCOPE.fullmatch(scope):
        raise BadInput("a forms scope is 32-128 lowercase hex digits (sandbox.new_forms_scope())")
    return scope


def run_env(
    cache_dir: Path, inside_workspace: str, scope: str, pythonpath: str = ""
) -> dict[str, str]:
    """The variables that point a run's hook at the shared cache, its spool and its
    scope, and its interpreters at the `sitecustomize` that installs the hook."""
    return {
        _formhook.CACHE_ENV: str(forms_dir(cache_dir)),
        _formhook.SPOOL_ENV: str(Path(inside_workspace, *SPOOL_PARTS)),
        _formhook.SCOPE_ENV: check_scope(scope),
        "PYTHONPATH": os.pathsep.join(p for p in (str(SITE_DIR), pythonpath) if p),
    }


def form_map_env(forms: Mapping[str, str] | None) -> dict[str, str]:
    """The `env` of a later run of the same candidate that loads the modules an earlier
    run loaded (its `SandboxResult.forms`) without generating their C text; only for
    runs of that one candidate (the map is what its own run claimed). Empty when there
    is nothing to map."""
    kept = _formhook.read_form_map(json.dumps(dict(forms or {})))
    return {_formhook.MAP_ENV: json.dumps(kept, sort_keys=True)} if kept else {}


def forms_used(watcher: object) -> dict[str, str]:
    """The form map a finished run's watcher recorded (empty for no watcher)."""
    return dict(watcher.used) if isinstance(watcher, SpoolWatcher) else {}
