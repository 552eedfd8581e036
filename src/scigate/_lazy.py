"""Names a package face exports without importing their module until first use.

A face lists `{name: private module}` for names whose modules are heavy (networkx, jinja2,
the gate's loop and report...) and sets `__getattr__ = lazy_getattr(__name__, table)`:
`import scigate.gate` stays light, and `from scigate.gate import run_loop` imports
`scigate.gate._loop` then, once (the value is cached in the package's namespace).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["lazy_getattr"]


def lazy_getattr(package: str, table: dict[str, str]) -> Callable[[str], Any]:
    """A module-level `__getattr__` for `package` resolving the names of `table`."""
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    return __getattr__
