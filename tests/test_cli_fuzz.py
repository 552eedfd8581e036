"""Property test of the CLI's bad-input contract: every verb of the command tree (walked
automatically, so verbs added later are included), random and malformed option values.

Whatever the input: exit 0/1 with normal output, or exit 2 with exactly one line on
stderr; never a traceback, never a hang (each invocation runs under a wall-clock alarm).
Verbs that would start long work (a run, a demo, a server, an agent) are only given input
in which at least one value must be rejected, so they never start; a whitelist of cheap,
read-only verbs is driven with fully random input.
"""

from __future__ import annotations

import contextlib
import io
import math
import signal
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.main import get_command

from scigate.cli import main
from scigate.cli._app import app
from scigate.cli._validate import bound_for, validate_tree

SECONDS_PER_CALL = 20  # generous on a loaded 2-core machine; a hang takes forever

# Cheap verbs that may run to completion with any input; all others only get poisoned input.
SAFE = {
    ("tools", "list"),
    ("tools", "show"),
    ("tools", "search"),
    ("gate", "audit"),
    ("gate", "report"),
    ("gate", "export"),
    ("gate", "screen"),
}


class Hang(BaseException):
    """An invocation outlived its alarm."""


def _leaves(command: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    subs = getattr(command, "commands", None)
    if not subs:
        return [(path, command)]
    out = []
    for name, sub in sorted(subs.items()):
        out.extend(_leaves(sub, (*path, name)))
    return out


TREE = validate_tree(get_command(app).load_verbs())  # type: ignore[attr-defined]
LEAVES = _leaves(TREE)
BASE = Path(tempfile.mkdtemp(prefix="scigate-fuzz-"))


def _kind(param: Any) -> type:
    annotation = param.type_descriptor.annotation
    for kind in (bool, float, int, Path):
        if annotation is kind or kind in getattr(annotation, "__args__", ()):
            return kind
    return str


def _flag(param: Any) -> str:
    longs = [o for o in param.opts if o.startswith("--")]
    return (longs or param.opts)[0]


TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12
)
WEIRD_NUMBERS = st.sampled_from(
    ["nan", "NaN", "inf", "-inf", "1e309", "-0", "1e-400", "", " ", "0x10", "--", "1_000", "٣"]
)


def _random_value(kind: type, name: str) -> st.SearchStrategy[str]:
    if kind is float:
        return st.one_of(
            st.floats(allow_nan=True, allow_infinity=True).map(repr),
            WEIRD_NUMBERS,
            TEXT,
        )
    if kind is int:
        return st.one_of(
            st.integers(-(2**70), 2**70).map(str),
            st.integers(-3, 12).map(str),
            WEIRD_NUMBERS,
            TEXT,
        )
    if kind is Path:
        return st.one_of(
            TEXT.map(lambda t: str(BASE / "p" / t) if t.strip("./") else str(BASE / "p" / "x")),
            st.sampled_from(["/proc/nope/x", "/", str(BASE), "", "/dev/null/x"]),
        )
    return TEXT


def _poison(kind: type, param: Any) -> list[str]:
    """Values this parameter must reject, whatever else the command line says."""
    if kind is float:
        bad = ["nan", "inf", "-inf", "1e309", "abc", ""]
    elif kind is int:
        bad = ["abc", "1.5", str(2**64), str(-(2**70)), ""]
    elif kind is Path and param.name in ("db", "out", "release", "memory"):
        bad = ["/proc/nope/x.db", "/dev/null/sub/x"]
    else:
        return []
    bound = bound_for(param.name, kind, param.default)
    if bound is not None:
        if bound.high is not None and math.isfinite(bound.high):
            bad.append(str(int(bound.high) + 1))
        if bound.low is not None:
            bad.append(str(math.floor(bound.low) - 1))
    return bad


def _argv_for(draw: Any, path: tuple[str, ...], command: Any, poison: bool) -> list[str]:
    params = [p for p in command.params if p.name not in ("help",)]
    args: list[str] = []
    poisons: list[list[str]] = []
    for param in params:
        kind = _kind(param)
        is_option = param.param_type_name == "option"
        if is_option and not param.required and not draw(st.booleans()):
            continue
        if kind is bool:
            if is_option:
                args.append(_flag(param))
            continue
        value = draw(_random_value(kind, param.name))
        if is_option:
            args += [_flag(param), value]
        else:
            args.append(value or "x")
    for param in params:
        bad = _poison(_kind(param), param)
        if bad and param.param_type_name == "option":
            poisons.append([_flag(param), draw(st.sampled_from(bad))])
    if poison:
        if poisons:
            args += draw(st.sampled_from(poisons))
        else:
            args.append("--definitely-not-an-option")
    return [*path, *args]


def _invoke(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()

    def alarm(signum: int, frame: object) -> None:
        raise Hang(f"no answer within {SECONDS_PER_CALL} s: {argv}")

    saved_term = signal.getsignal(signal.SIGTERM)
    saved_alarm = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, SECONDS_PER_CALL)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(argv)
                code = 0
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, saved_alarm)
        signal.signal(signal.SIGTERM, saved_term)
    return code, out.getvalue(), err.getvalue()


def _assert_contract(argv: list[str], code: int, stdout: str, stderr: str) -> None:
    assert "Traceback" not in stderr + stdout, (argv, stderr)
    assert code in (0, 1, 2), (argv, code, stderr)
    if code == 2:
        lines = stderr.strip().splitlines()
        assert len(lines) == 1, (argv, stderr)
        assert lines[0].startswith("scigate: error: "), (argv, lines[0])


@st.composite
def poisoned(draw: Any) -> list[str]:
    path, command = draw(st.sampled_from(LEAVES))
    return _argv_for(draw, path, command, poison=True)


@st.composite
def cheap(draw: Any) -> list[str]:
    path, command = draw(st.sampled_from([leaf for leaf in LEAVES if leaf[0] in SAFE]))
    return _argv_for(draw, path, command, poison=False)


FAST = settings(
    max_examples=250,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def test_the_walk_finds_every_verb() -> None:
    found = {path for path, _ in LEAVES}
    assert {("gate", "run"), ("gate", "verify"), ("tools", "serve-mcp"), ("doctor",)} <= found
    assert found >= SAFE


@FAST
@given(poisoned())
def test_every_verb_rejects_malformed_values_with_one_line(argv: list[str]) -> None:
    code, stdout, stderr = _invoke(argv)
    _assert_contract(argv, code, stdout, stderr)
    assert code == 2, (argv, stdout, stderr)


@settings(FAST, max_examples=120)
@given(cheap())
def test_cheap_verbs_with_random_values_keep_the_contract(argv: list[str]) -> None:
    code, stdout, stderr = _invoke(argv)
    _assert_contract(argv, code, stdout, stderr)


@pytest.mark.parametrize(
    "argv",
    [
        ["gate", "verify", "--timeout", "nan", "cand"],
        ["gate", "run", "--db", "/proc/nope/x.db", "--generator", "templates"],
        ["tools", "serve-mcp", "--port", "99999"],
        ["gate", "run", "--db", str(BASE / "r.db"), "--verify-timeout", "nan"],
        ["gate", "screen", "cand", "--model", "cue/x", "--calls", "100000000"],
    ],
)
def test_the_issues_cases(argv: list[str]) -> None:
    code, stdout, stderr = _invoke(argv)
    _assert_contract(argv, code, stdout, stderr)
    assert code == 2
