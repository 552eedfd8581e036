"""The FFCx JIT cache: shared read-only, written only by trusted processes.

A cache that runs share read-write lets one candidate plant a compiled form module
(`libffcx_forms_<hash>.so`) that a later candidate with the same form loads, changing
its printed answer. So the shared cache (`trusted_dir(cache_dir)`, bound read-only into
every run) is filled only by trusted processes, which get `trusted_env()`: the domain's
template worker, which runs exactly the rendered solutions of the template families,
and benchmarks' warm-ups. A run compiles into a private cache in its workspace
(`$HOME/.cache/fenics`, shared by that workspace's runs only: one verification, one
agent episode), where `link_trusted` first puts a symlink to every complete module of
the shared cache, so forms compiled by trusted processes are found without compiling.
A run can replace those links in its own workspace, never the modules behind them.
Forms no trusted process compiled beforehand are shared through `_formcache` instead.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

TRUSTED_ENV = "SCIGATE_TRUSTED_JIT"  # the shared JIT dir, as a run's warm server reads it
JIT_SUBDIR = "fenics"  # $XDG_CACHE_HOME/fenics (dolfinx.jit's default cache_dir)
READY = ".c.cached"  # FFCx writes it once a module is compiled

_listing: dict[str, tuple[int, tuple[str, ...]]] = {}
_listing_lock = threading.Lock()


def trusted_dir(cache_dir: Path) -> Path:
    """The XDG cache home of trusted processes under the shared `cache_dir`."""
    return cache_dir / "trusted"


def trusted_env(cache_dir: Path | None = None) -> dict[str, str]:
    """Environment for a *trusted* process (never model-written code) whose FFCx forms
    should land in the shared cache: its XDG_CACHE_HOME, and the C compiler it runs
    directly for them (`_formcache.direct_env`)."""
    from scigate.sandbox._env import default_cache_dir
    from scigate.sandbox._formcache import direct_env

    cache = (cache_dir or default_cache_dir()).expanduser()
    home = trusted_dir(cache)
    (home / JIT_SUBDIR).mkdir(parents=True, exist_ok=True)
    return {"XDG_CACHE_HOME": str(home.resolve()), **direct_env(cache.resolve())}


def private_dir(workspace: Path) -> Path:
    """The run's own XDG cache home, inside its workspace."""
    return workspace / ".home" / ".cache"


def _complete_modules(shared: Path) -> tuple[str, ...]:
    """Every file of the shared JIT dir that belongs to a completely compiled module
    (its ready marker exists), listed again only when the directory changed."""
    try:
        mtime = shared.stat().st_mtime_ns
    except OSError:
        return ()
    key = str(shared)
    with _listing_lock:
        cached = _listing.get(key)
        if cached is not None and cached[0] == mtime:
            return cached[1]
    names = [e.name for e in os.scandir(shared)]
    ready = {n[: -len(READY)] for n in names if n.endswith(READY)}
    files = tuple(
        n
        for n in names
        if not n.endswith((".o", ".tmp")) and n.split(".", 1)[0] in ready  # .c, .c.cached, .so
    )
    with _listing_lock:
        _listing[key] = (mtime, files)
    return files


def link_trusted(workspace: Path, cache_dir: Path) -> None:
    """Make the workspace's private JIT cache and link in every complete module of the
    shared trusted one (existing entries are left alone: cheap when nothing is new).

    Every step goes through directory descriptors without following links: the
    workspace is the run's, so a `.home` or `.cache` it replaced by a symlink to a host
    directory is replaced by a real directory instead of being written through."""
    from scigate.sandbox._workspace import real_dirs

    fd = real_dirs(workspace, ".home", ".cache", JIT_SUBDIR)
    try:
        shared = trusted_dir(cache_dir) / JIT_SUBDIR
        files = _complete_modules(shared)
        if not files:
            return
        present = set(os.listdir(fd))
        for name in files:
            if name not in present:
                with contextlib.suppress(FileExistsError):
                    os.symlink(shared / name, name, dir_fd=fd)
    finally:
        os.close(fd)
