"""The in-sandbox half of the shared compiled-form cache (`_formcache` is the host's).

Installed in a sandboxed interpreter (the warm server's per-run child; a cold run's
interpreter through `_formsite/sitecustomize.py`), it replaces the C compile step of
FFCx's JIT: where FFCx would hand its generated C module to the C compiler, the hook
computes the module's key (`form_key`: the hash of that exact C text, the compile
flags and the FFCx/DOLFINx/cffi/Python versions) and

  (comments removed, `canonical_c`: the text the trusted compile gets)
- loads the module from the shared cache's entry for that key (a read-only bind)
  when the entry is there and intact (its `source.c` is byte for byte the C text this
  run generated and its module's SHA-256 is the one its `meta.json` records);
- else writes `<key>.req` (the C text, the flags, the module name) into the run's
  spool directory and waits for the host's answer (`<key>.ok` / `<key>.refused`):
  a trusted process recomputes the key, compiles the C text in a sandbox of its own
  and stores the module under that key (`_formcache.serve_spool`);
- else (no cache configured, flags outside the allow-list, a refusal, a timeout)
  compiles privately into the run's own JIT cache, as FFCx does without the hook.

The key is always computed here from what this run generated, so a candidate can
neither choose what another loads nor load a module compiled from different C text.

A later run of the same candidate (gate 1b's checks) may be given a *form map*
(`SCIGATE_FORM_MAP`: FFCx module name -> key, the modules the candidate's gate-1 run
loaded from the shared cache, as the host recorded them from its `<key>.hit` notes and
checked against each entry's `meta.json`). For a module named there, FFCx's own cache
lookup finds the entry's module staged in the run's JIT dir and FFCx generates no C
at all: what the naive loop's FFCx cache does between runs of one candidate. Only the
candidate's own earlier claims reach the map, and each names a module a trusted
compile built under that module name, so a candidate can at most make its own checks
load a module its own gate-1 run loaded (see docs/formcache.md).
Standard library only (plus cffi/ffcx, already imported when the hook runs): the
scigate package is not visible inside a sandbox, only this directory.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterable

CACHE_ENV = "SCIGATE_FORMCACHE"  # the shared forms dir (read-only inside runs)
SPOOL_ENV = "SCIGATE_FORM_SPOOL"  # the run's spool dir (in its workspace)
MAP_ENV = "SCIGATE_FORM_MAP"  # JSON {module name: key} of the candidate's gate-1 run
DIRECT_ENV = "SCIGATE_FORM_DIRECT"  # trusted processes: JSON of the compiler to run directly
SCOPE_ENV = "SCIGATE_FORM_SCOPE"  # the run's scope: a secret part of every key it computes
SCOPE = re.compile(r"[0-9a-f]{32,128}")  # at least 128 random bits: unguessable
MAX_MAP = 256  # entries of a form map (more are ignored)
WAIT_ENV = "SCIGATE_FORM_WAIT"  # seconds to wait for the host's answer
DEFAULT_WAIT = 180.0
VERSION = "scigate-formcache-v1"
MODULE_NAME = re.compile(r"libffcx_(forms|expressions)_[0-9a-f]{8,128}")
KEY = re.compile(r"[0-9a-f]{64}")
MAX_SOURCE = 16 << 20  # bytes of C text a request may carry
# compile arguments a trusted compile accepts (DOLFINx's defaults and common tuning);
# anything else (-include, -fplugin, -B, -specs, ...) compiles privately
ALLOWED_ARG = re.compile(
    r"-(O[0-3sgz]?|Ofast|g[0-3]?|std=(c|gnu)(99|11|17|18|2x|23)|march=native|mtune=native"
    r"|ffast-math|fno-math-errno|funroll-loops|fno-strict-aliasing|fPIC|Wall|Wextra"
    r"|Wno-[a-z0-9-]+|DNDEBUG)"
)
SO_NAME = "module.so"
# the run's polls for the host's answer: first after POLL_FIRST s, then each 1.5x later,
# at most POLL_MAX s apart (a trusted compile takes 0.05-0.3 s; a 10 ms cap left 5 ms
# per form on average between the answer and the run seeing it; a poll is two stats)
POLL_FIRST = 0.001
POLL_MAX = 0.002
# what this process did (tests read it)
STATS = {"hits": 0, "compiled": 0, "private": 0, "mapped": 0}


@functools.cache
def versions_tag() -> str:
    """The software a compiled module depends on, as one string (part of every key)."""
    import importlib.metadata

    parts = [VERSION, f"soabi={sysconfig.get_config_var('SOABI')}"]
    for dist in ("fenics-ffcx", "fenics-dolfinx", "cffi"):
        try:
            parts.append(f"{dist}={importlib.metadata.version(dist)}")
        except importlib.metadata.PackageNotFoundError:
            parts.append(f"{dist}=none")
    return ";".join(parts)


def canonical_flags(
    extra_compile_args: Iterable[object] | None, libraries: Iterable[object] | None, debug: object
) -> dict:
    """The compile settings a key covers, in one canonical form."""
    return {
        "extra_compile_args": [str(a) for a in (extra_compile_args or [])],
        "libraries": [str(a) for a in (libraries or [])],
        "debug": bool(debug),
    }


def compiler_options(base: dict, flags: dict) -> list[str]:
    """The C compiler's options for a module compiled with `flags` (`base`: the
    interpreter's own settings, `_formcache.compiler_base`)."""
    debug = ["-g"] if flags["debug"] else []
    includes = [f"-I{d}" for d in base["includes"]]
    return [*base["cflags"], "-std=c17", *flags["extra_compile_args"], *debug, *includes]


def compiler_command(
    base: dict, flags: dict, source: str, output: str, pch: str | None = None
) -> list[str]:
    """The command compiling `source` into the module `output` (with `pch`, a directory
    of precompiled headers searched first: `_pch`)."""
    first = [f"-I{pch}"] if pch else []
    libs = [f"-l{lib}" for lib in flags["libraries"]]
    options = compiler_options(base, flags)
    # -pipe: the assembly goes to the assembler through a pipe, not a temporary file
    # (0.104 -> 0.090 s median on a 50 kB module; the same module)
    return [*base["cc"], "-pipe", *first, *options, "-shared", source, "-o", output, *libs]


def flags_allowed(flags: dict) -> bool:
    """True when a trusted compile may use these settings (allow-listed arguments, the
    math library only)."""
    args = flags.get("extra_compile_args")
    libs = flags.get("libraries")
    return (
        isinstance(args, list)
        and all(isinstance(a, str) and ALLOWED_ARG.fullmatch(a) for a in args)
        and libs in ([], ["m"])
        and isinstance(flags.get("debug"), bool)
        and set(flags) == {"extra_compile_args", "libraries", "debug"}
    )


_C_TOKENS = re.compile(
    rb'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//(?:\\\n|[^\n])*|/\*.*?\*/', re.S
)


def _keep_literal(match: re.Match[bytes]) -> bytes:
    token = match.group(0)
    return token if token[:1] in (b'"', b"'") else b" "


def canonical_c(c_text: bytes) -> bytes:
    """`c_text` with every comment replaced by one space, as the C compiler reads it
    (string and character literals kept): FFCx writes comments in an order that
    changes with the interpreter's hash seed, the code itself does not."""
    return _C_TOKENS.sub(_keep_literal, c_text)


def form_key(
    c_text: bytes, module_name: str, flags: dict, scope: str, tag: str | None = None
) -> str:
    """The cache key of a compiled module: SHA-256 of the run's scope, the C text,
    module name, flags and `versions_tag()`. The scope is a secret of the runs that
    share entries: a run of another scope cannot compute the key, so it cannot even
    tell whether the entry exists."""
    h = hashlib.sha256()
    for part in (
        (tag or versions_tag()).encode(),
        scope.encode(),
        module_name.encode(),
        json.dumps(flags, sort_keys=True).encode(),
    ):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    h.update(c_text)
    return h.hexdigest()


def entry_module(entry_dir: str, key: str, module_name: str, c_text: bytes) -> bytes | None:
    """The module bytes of the cache entry `entry_dir` when it is intact and is the
    compile of exactly `c_text` under `key`; None for a missing or poisoned entry."""
    found = _read_entry(entry_dir, key, module_name)
    return found[1] if found is not None and found[0] == c_text else None


def mapped_module(entry_dir: str, key: str, module_name: str) -> bytes | None:
    """The module bytes of the entry `entry_dir` when it is intact and was compiled
    under `key` for `module_name` (a form-map load: this run generated no C text)."""
    found = _read_entry(entry_dir, key, module_name)
    return found[1] if found is not None else None


def _read_entry(entry_dir: str, key: str, module_name: str) -> tuple[bytes, bytes] | None:
    """(source, module) of an intact entry made for `key` and `module_name`, else None."""
    try:
        with open(os.path.join(entry_dir, "meta.json"), "rb") as f:
            meta = json.loads(f.read(1 << 16))
        with open(os.path.join(entry_dir, "source.c"), "rb") as f:
            source = f.read(MAX_SOURCE + 1)
        with open(os.path.join(entry_dir, SO_NAME), "rb") as f:
            module = f.read(256 << 20)
    except (OSError, ValueError):
        return None
    if (
        not isinstance(meta, dict)
        or meta.get("key") != key
        or meta.get("module_name") != module_name
        or hashlib.sha256(module).hexdigest() != meta.get("so_sha256")
    ):
        return None
    return source, module


def _write_new(directory: str, name: str, data: bytes) -> None:
    """Write `name` in `directory` through a temporary name and a rename."""
    tmp = os.path.join(directory, f".{name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, os.path.join(directory, name))


def _ask_host(spool: str, key: str, module_name: str, flags: dict, c_text: bytes) -> bool:
    """Submit the C text to the host and wait for its answer; True when compiled."""
    wait = float(os.environ.get(WAIT_ENV) or DEFAULT_WAIT)
    request = json.dumps(
        {"key": key, "module_name": module_name, "flags": flags, "c": c_text.decode()}
    ).encode()
    ok, refused = os.path.join(spool, key + ".ok"), os.path.join(spool, key + ".refused")
    try:
        _write_new(spool, key + ".req", request)
    except OSError:
        return False
    deadline = time.monotonic() + wait
    delay = POLL_FIRST
    while time.monotonic() < deadline:
        if os.path.exists(ok):
            return True
        if os.path.exists(refused):
            return False
        time.sleep(delay)
        delay = min(delay * 1.5, POLL_MAX)
    return False


def _note_hit(spool: str | None, key: str, module_name: str) -> None:
    """Tell the host the run loaded `key`'s entry as `module_name` (its LRU stamp, and
    the candidate's form map for its later checks); a lie misleads only this candidate."""
    if spool:
        with contextlib.suppress(OSError):
            _write_new(spool, key + ".hit", module_name.encode())


def shared_compile(ffi: object, tmpdir: str, debug: object, original) -> str:
    """`cffi.FFI.compile` for FFCx's JIT: the module from the shared cache when it can
    be, else the original private compile. Returns the module's path, as cffi does."""
    direct = os.environ.get(DIRECT_ENV)
    if direct:
        return direct_compile(ffi, tmpdir, debug, original, direct)
    cache, spool = os.environ.get(CACHE_ENV), os.environ.get(SPOOL_ENV)
    scope = os.environ.get(SCOPE_ENV) or ""
    module_name, _, _, kwds = ffi._assigned_source  # type: ignore[attr-defined]
    flags = canonical_flags(kwds.get("extra_compile_args"), kwds.get("libraries"), debug)
    include_ok = _include_ok(kwds.get("include_dirs"))
    if not cache or not SCOPE.fullmatch(scope):
        STATS["private"] += 1
        return original()
    if not MODULE_NAME.fullmatch(module_name) or not include_ok:
        STATS["private"] += 1
        return original()
    if not flags_allowed(flags) or set(kwds) - {"extra_compile_args", "libraries", "include_dirs"}:
        STATS["private"] += 1
        return original()
    c_file = _emit(ffi, tmpdir, module_name)
    with open(c_file, "rb") as f:
        c_text = canonical_c(f.read())
    key = form_key(c_text, module_name, flags, scope)
    entry = os.path.join(cache, key)
    module = entry_module(entry, key, module_name, c_text)
    if module is not None:
        STATS["hits"] += 1
        _note_hit(spool, key, module_name)
    elif spool and len(c_text) <= MAX_SOURCE and _ask_host(spool, key, module_name, flags, c_text):
        module = entry_module(entry, key, module_name, c_text)
        if module is not None:
            STATS["compiled"] += 1
            _note_hit(spool, key, module_name)
    if module is None:
        STATS["private"] += 1
        return original()
    target = os.path.join(tmpdir, module_name + sysconfig.get_config_var("EXT_SUFFIX"))
    _write_new(tmpdir, os.path.basename(target), module)
    return target


def _emit(ffi: object, tmpdir: str, module_name: str) -> str:
    """Write the module's C text into `tmpdir`, as `FFI.emit_c_code` does but without
    its "generating ..." line on the process's stdout (not by swapping `sys.stdout`,
    which the run's other threads may be printing to); its path."""
    from cffi.recompiler import make_c_source

    c_file = os.path.join(tmpdir, module_name + ".c")
    source = ffi._assigned_source[1]  # type: ignore[attr-defined]
    make_c_source(ffi, module_name, source, c_file, verbose=False)
    return c_file


def direct_compile(ffi: object, tmpdir: str, debug: object, original, spec: str) -> str:
    """`cffi.FFI.compile` in a *trusted* process (`_jitcache.trusted_env`: our own
    templates, never model-written code): the C compiler run directly, as a trusted
    compile runs it (`spec`: `_formcache.direct_env`, with the prologue's headers
    precompiled for the flags they were built for), without cffi's setuptools build;
    cffi's own compile when anything is off. The module's path, as cffi returns it."""
    module_name, _, _, kwds = ffi._assigned_source  # type: ignore[attr-defined]
    flags = canonical_flags(kwds.get("extra_compile_args"), kwds.get("libraries"), debug)
    try:
        parts = json.loads(spec)
        base, pch = parts["base"], parts["pch"] if parts["pch_flags"] == flags else None
    except (ValueError, KeyError, TypeError):
        return original()
    extra = set(kwds) - {"extra_compile_args", "libraries", "include_dirs"}
    if not flags_allowed(flags) or extra or not _include_ok(kwds.get("include_dirs")):
        return original()
    c_file = _emit(ffi, tmpdir, module_name)
    target = os.path.join(tmpdir, module_name + sysconfig.get_config_var("EXT_SUFFIX"))
    command = compiler_command(base, flags, c_file, target, pch)
    try:
        subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return original()
    return target


def _include_ok(include_dirs: object) -> bool:
    import ffcx.codegeneration

    return include_dirs == [ffcx.codegeneration.get_include_path()]


def _patch(jit: object) -> None:
    """Give FFCx's JIT module an FFI whose `compile` goes through `shared_compile`, and,
    when the run has a form map, a cache lookup that stages the mapped modules."""
    import types

    import cffi

    _take_form_map()
    if _FORM_MAP and not getattr(jit, "_scigate_formmap", False):
        jit.get_cached_module = _mapped_lookup(jit.get_cached_module)  # type: ignore[attr-defined]
        jit._scigate_formmap = True  # type: ignore[attr-defined]
    if getattr(jit, "_scigate_formhook", False):
        return

    class FFI(cffi.FFI):
        def compile(self, tmpdir=".", verbose=0, target=None, debug=None):
            def original():
                return cffi.FFI.compile(self, tmpdir, verbose, target, debug)

            if target is not None:
                return original()
            return shared_compile(self, str(tmpdir), debug, original)

    jit.cffi = types.SimpleNamespace(FFI=FFI)  # type: ignore[attr-defined]
    jit._scigate_formhook = True  # type: ignore[attr-defined]


_FORM_MAP: dict[str, str] = {}  # this run's form map (`_take_form_map`, from `_patch`)


def _take_form_map() -> None:
    """Read this run's form map from its environment, once (the variable is removed,
    so an interpreter the run starts compiles for itself)."""
    text = os.environ.pop(MAP_ENV, None)
    if text is not None:
        _FORM_MAP.clear()
        _FORM_MAP.update(read_form_map(text))


def read_form_map(text: str | None) -> dict[str, str]:
    """The form map in `text` (JSON {module name: key}); malformed entries are dropped,
    at most MAX_MAP kept."""
    try:
        raw = json.loads(text or "{}")
    except ValueError:
        return {}
    if not isinstance(raw, dict):
        return {}
    found = [
        (name, key)
        for name, key in raw.items()
        if isinstance(name, str)
        and isinstance(key, str)
        and MODULE_NAME.fullmatch(name)
        and KEY.fullmatch(key)
    ]
    return dict(found[:MAX_MAP])


def stage_mapped(module_name: str, cache_dir: str) -> bool:
    """Put the form map's module for `module_name` into FFCx's cache dir `cache_dir` as
    a finished compile (`<name>.c`, `<name>.c.cached`, the module), so FFCx loads it
    without generating code; False (nothing written) when it cannot be."""
    key, cache = _FORM_MAP.get(module_name), os.environ.get(CACHE_ENV)
    if not key or not cache:
        return False
    module = mapped_module(os.path.join(cache, key), key, module_name)
    if module is None:
        return False
    c_file = os.path.join(cache_dir, module_name + ".c")
    try:
        os.makedirs(cache_dir, exist_ok=True)
        # FFCx's own claim on the name: when it is taken, the name is left to FFCx
        fd = os.open(c_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    except OSError:
        return False
    os.close(fd)
    try:
        _write_new(cache_dir, module_name + sysconfig.get_config_var("EXT_SUFFIX"), module)
        _write_new(cache_dir, module_name + ".c.cached", b"")
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(c_file)
        return False
    STATS["mapped"] += 1
    _note_hit(os.environ.get(SPOOL_ENV), key, module_name)
    return True


def _mapped_lookup(find):
    """FFCx's `get_cached_module`, first staging a form-map module for the name."""

    def get_cached_module(module_name, object_names, cache_dir, timeout):
        if cache_dir is not None and module_name in _FORM_MAP:
            stage_mapped(module_name, str(cache_dir))
        return find(module_name, object_names, cache_dir, timeout)

    return get_cached_module


class _PatchOnImport:
    """A meta path finder that patches `ffcx.codegeneration.jit` right after it is
    first imported (duck-typed: importlib.abc costs 0.1 s at start-up)."""

    NAME = "ffcx.codegeneration.jit"

    def find_spec(self, fullname, path, target=None):
        if fullname != self.NAME:
            return None
        if self in sys.meta_path:  # the module is imported once: no longer needed
            sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader

        class Loader:
            def create_module(self, spec):
                return loader.create_module(spec)

            def exec_module(self, module):
                loader.exec_module(module)
                _patch(module)

        spec.loader = Loader()
        return spec


def install() -> bool:
    """Install the hook in this interpreter when the run has a shared forms cache
    (`SCIGATE_FORMCACHE`) or is a trusted process compiling directly
    (`SCIGATE_FORM_DIRECT`); True when installed."""
    if not os.environ.get(CACHE_ENV) and not os.environ.get(DIRECT_ENV):
        return False
    jit = sys.modules.get("ffcx.codegeneration.jit")
    if jit is not None:
        _patch(jit)
    elif not any(isinstance(f, _PatchOnImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _PatchOnImport())
    return True
