"""Loading a test helper by path (a scripted model, the wire server) from any test folder."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any


def load_attr(path: Path, name: str) -> Any:
    """Attribute `name` of the Python file at `path`, executed as a module of its own."""
    spec = importlib.util.spec_from_file_location(f"loaded_{path.parent.name}_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)
