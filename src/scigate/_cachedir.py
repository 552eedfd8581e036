"""The one user cache directory of scigate (a leaf module: no scigate imports)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["user_cache_dir"]


def user_cache_dir() -> Path:
    """``$SCIGATE_CACHE_DIR``, else ``$XDG_CACHE_HOME/scigate``, else ``~/.cache/scigate``."""
    configured = os.environ.get("SCIGATE_CACHE_DIR")
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "scigate"
