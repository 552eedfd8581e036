"""The environment a sandboxed command sees: credentials removed, HOME in the workspace."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from scigate._secrets import is_secret

__all__ = ["default_cache_dir", "is_secret", "sandbox_env", "scrub_env"]


def scrub_env(env: Mapping[str, str]) -> dict[str, str]:
    """A copy of `env` without API keys, tokens, passwords and cloud credentials."""
    return {name: value for name, value in env.items() if not is_secret(name, value)}


def default_cache_dir() -> Path:
    """The cache shared across runs: `$SCIGATE_CACHE_DIR` or `~/.cache/scigate`."""
    configured = os.environ.get("SCIGATE_CACHE_DIR")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "scigate"


def sandbox_env(
    base: Mapping[str, str],
    *,
    workspace: Path,
    extra: Mapping[str, str] | None,
    inside: str | None = None,
) -> dict[str, str]:
    """The full environment of a sandboxed command.

    HOME is `workspace/.home`; XDG_CACHE_HOME is `workspace/.home/.cache`, the run's
    private cache, where DOLFINx puts its FFCx JIT cache (`$XDG_CACHE_HOME/fenics`, see
    dolfinx/jit.py) and where `_jitcache.link_trusted` links the modules of the shared,
    read-only cache. The interpreter's bin directory (the venv's) goes first on
    PATH so `python` has DOLFINx. `extra` is added last and is not scrubbed: the caller
    chose it. `inside` is the workspace's path as the run sees it (under isolation),
    where HOME is put instead.
    """
    env = scrub_env(base)
    home = Path(inside or workspace) / ".home"
    bin_dir = str(Path(sys.executable).parent)
    path = [p for p in env.get("PATH", os.defpath).split(os.pathsep) if p and p != bin_dir]
    env.update(
        HOME=str(home),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        PATH=os.pathsep.join([bin_dir, *path]),
        PYTHONUNBUFFERED="1",
    )
    if inside is not None:
        env["TMPDIR"] = "/tmp"
    for name in ("VIRTUAL_ENV", "PWD", "OLDPWD"):
        env.pop(name, None)
    if sys.prefix != sys.base_prefix:
        env["VIRTUAL_ENV"] = sys.prefix
    env.update(extra or {})
    return env
