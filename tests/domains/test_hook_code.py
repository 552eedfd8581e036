"""Gate-1b hooks reach the run compiled once on the host (`compiled_expression`)."""

from __future__ import annotations

import builtins
import importlib.util
import marshal

import pytest

from scigate.domains._semantic import compiled_expression

SRC = "x = 40 + 2\n"


def _evaluate(expr: str, **replaced: object) -> dict:
    env = {"__builtins__": {**vars(builtins), **replaced}}
    ns: dict = {}
    exec(eval(expr, env), ns)
    return ns


def test_the_same_interpreter_loads_the_code_without_compiling() -> None:
    def no_compile(*args: object, **kwargs: object) -> None:
        raise AssertionError("the hook was compiled in the run")

    assert _evaluate(compiled_expression(SRC, "_h"), compile=no_compile)["x"] == 42


def test_another_interpreter_compiles_the_source(monkeypatch: pytest.MonkeyPatch) -> None:
    expr = compiled_expression(SRC, "_h")

    def no_blob(data: bytes) -> None:
        raise AssertionError("another interpreter's bytecode was loaded")

    monkeypatch.setattr(importlib.util, "MAGIC_NUMBER", b"\x00\x00\r\n")
    monkeypatch.setattr(marshal, "loads", no_blob)
    assert _evaluate(expr)["x"] == 42


def test_the_code_keeps_the_hooks_name_for_tracebacks() -> None:
    code = eval(compiled_expression("def f():\n    return 1\n", "_scigate_reorder"))
    assert code.co_filename == "_scigate_reorder"
