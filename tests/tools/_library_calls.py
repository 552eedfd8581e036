"""Helpers shared by the per-domain tool-library tests: load modules, call tools by name."""

from __future__ import annotations

import importlib
from typing import Any

from scigate.tools import REGISTRY, Tool


def tools_of(modules: list[str]) -> list[Tool]:
    """Import `scigate.tools.library.<module>` for each module; the tools they register."""
    for m in modules:
        importlib.import_module(f"scigate.tools.library.{m}")
    return [t for t in REGISTRY.values() if t.fn.__module__.split(".")[-1] in modules]


def run(name: str, /, **args: Any) -> Any:
    """The value of a successful call of tool `name`; fails the test otherwise."""
    result = REGISTRY[name](**args)
    assert result["ok"], result
    return result["value"]


def fail(name: str, /, **args: Any) -> str:
    """The error message of a refused call of tool `name`; fails the test on success."""
    result = REGISTRY[name](**args)
    assert result["ok"] is False, result
    assert result["error"]
    return result["error"]


def assert_offline_tools_refuse_garbage(tools: list[Tool]) -> None:
    """Every offline tool answers ok:false (never raises) to garbage in its first argument."""
    for t in tools:
        if t.spec.network:
            continue
        first = (t.required_parameters or t.parameter_names)[0]
        result = t.call({first: "@@ not valid @@"})
        assert result.ok is False and result.error, t.name
