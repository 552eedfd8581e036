"""Validation of every CLI option at the boundary, attached centrally to the command tree.

`validate_tree` walks the click command tree that typer builds from the app and chains a
check in front of each parameter's callback, chosen by the value's type and the
parameter's name, so options that verbs add later are covered without their own code:

- every float is finite; every int fits SQLite's 64-bit integers;
- durations (``timeout``, ``time_limit``, ``seconds``, ...) and counts (``rounds``,
  ``calls``, ``concurrency``, ``workers``, ``max_steps``, ...) are positive (zero only where
  the option's own default is zero, i.e. zero has a meaning) and below an upper bound at
  which the work would effectively hang;
- ``port`` is in 1..65535, ratios in [0, 1], ``temperature`` in [0, 2], seeds non-negative;
- no text or path holds a NUL character; output paths (``--db``, ``--out``, ``--release``,
  ``--memory``) are creatable: their nearest existing ancestor is a writable directory in
  which the missing directories can really be made (probed, then removed again).

A flag that sets a field of a library config record is declared with `library_option`
instead: its check and the range in its help come from the field's own declaration
(`scigate._bounds`), and a library `BadValue` about that field is shown under the flag's
name (`flag_of`), so a range is written once, on the record.

A failed check is a click `BadParameter`, which the app prints as one line, exit 2.
Only values the user gave are checked; defaults are trusted.
"""

from __future__ import annotations

import math
import os
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import typer

from scigate._bounds import Range, range_of

try:  # typer >= 0.20 vendors click as typer._click
    from typer._click import core as click_core
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover - older typer uses click itself
    from click import core as click_core  # type: ignore[no-redef]  # the fallback of the import above
    from click import exceptions as click_exceptions  # type: ignore[no-redef]  # the fallback of the import above

__all__ = ["Bound", "bound_for", "check_value", "flag_of", "library_option", "validate_tree"]

INT64_MAX = 2**63 - 1
WEEK = 7 * 24 * 3600.0


@dataclass(frozen=True)
class Bound:
    """The accepted closed range of a numeric option (None: unbounded on that side)."""

    low: float | None
    high: float | None
    what: str

    def check(self, value: float) -> str | None:
        """The reason `value` is out of range, or None."""
        if self.low is not None and value < self.low:
            return f"must be {self._range()} ({self.what}), got {value}"
        if self.high is not None and value > self.high:
            return f"must be {self._range()} ({self.what}), got {value}"
        return None

    def _range(self) -> str:
        if self.high is None:
            return f"at least {_num(self.low)}"
        if self.low is None:
            return f"at most {_num(self.high)}"
        return f"between {_num(self.low)} and {_num(self.high)}"


def _num(x: float | None) -> str:
    return str(int(x)) if x is not None and float(x).is_integer() else str(x)


# Name tokens -> upper bound. A name matches when one of its `_`-separated tokens (or the
# whole name) is listed; the first matching rule wins, so specific names come first.
_DURATIONS = {"timeout", "seconds", "time_limit", "deadline", "interval", "wait"}
_COUNTS: list[tuple[set[str], float, str]] = [
    ({"calls"}, 1_000, "model calls per screen"),
    ({"rounds"}, 100_000, "rounds"),
    ({"runs", "repeats", "repetitions"}, 1_000, "repetitions"),
    ({"concurrency", "workers", "jobs", "parallel"}, 1_024, "parallel workers"),
    ({"max_steps", "steps"}, 100_000, "steps"),
    ({"max_tokens", "tokens"}, 1_000_000_000, "tokens"),
    ({"retries", "max_retries", "attempts"}, 100, "retries"),
    ({"bytes", "size", "mb", "mib", "gb", "gib"}, 2.0**53, "a size"),
    ({"k", "top_k", "limit", "n", "count", "items", "batch"}, 1_000_000, "items"),
    ({"expand", "hops", "depth"}, 100, "graph hops"),
    ({"ranks"}, 64, "MPI processes"),
]
_RATIOS = {"ratio", "fraction", "share", "threshold", "probability", "known_ratio"}


def _tokens(name: str) -> set[str]:
    return {name, *name.split("_")}


def bound_for(name: str, kind: type, default: Any) -> Bound | None:
    """The range rule for a parameter called `name` holding `kind` values, or None."""
    tokens = _tokens(name)
    zero_ok = isinstance(default, int | float) and not isinstance(default, bool) and default == 0
    if name == "port" or name.endswith("_port"):
        return Bound(1, 65535, "a TCP port")
    if "seed" in tokens:
        return Bound(0, INT64_MAX, "a seed")
    if "temperature" in tokens:
        return Bound(0, 2, "a sampling temperature")
    if tokens & _RATIOS:
        return Bound(0, 1, "a ratio")
    if tokens & _DURATIONS or name in _DURATIONS:
        low = 0.0 if zero_ok else (1e-3 if kind is float else 1)
        return Bound(low, WEEK, "seconds, at most a week")
    for names, high, what in _COUNTS:
        if tokens & names or name in names:
            return Bound(0 if zero_ok else 1, high, what)
    return None


def _check_path(name: str, path: Path) -> str | None:
    text = str(path)
    if "\x00" in text:
        return "must not contain a NUL character"
    if not text.strip():
        return "must not be empty"
    if not _is_output(name):
        return None
    try:
        if path.exists():
            if name == "db" and path.is_dir():
                return f"{path} is a directory, not a database file"
            return None
        return _creatable(path)
    except OSError as e:  # e.g. a name too long, a loop of symbolic links
        return f"cannot use {path}: {e.strerror or e}"


def _is_output(name: str) -> bool:
    tokens = _tokens(name)
    return bool(tokens & {"db", "out", "output", "release", "memory"}) or name.endswith("_dir")


def _creatable(path: Path) -> str | None:
    """Why the missing `path` could not be created, or None (probed without leaving a trace)."""
    missing: list[Path] = []
    ancestor = path.absolute()
    while not ancestor.exists():
        missing.append(ancestor)
        if ancestor.parent == ancestor:
            break
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        return f"cannot create {path}: {ancestor} is not a directory"
    if not os.access(ancestor, os.W_OK | os.X_OK):
        return f"cannot create {path}: {ancestor} is not writable"
    # Permissions do not tell everything (/proc, read-only mounts): try it.
    probe = ancestor / f".scigate-probe-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    try:
        probe.mkdir()
    except OSError as e:
        return f"cannot create {path}: {e.strerror or e} in {ancestor}"
    probe.rmdir()
    return None


def check_value(name: str, value: Any, default: Any = None) -> str | None:
    """Why `value` is not acceptable for a parameter called `name`, or None if it is."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, list | tuple):
        for item in value:
            reason = check_value(name, item, default)
            if reason:
                return reason
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return f"must be a finite number, got {value}"
        bound = bound_for(name, float, default)
        return bound.check(value) if bound else None
    if isinstance(value, int):
        if abs(value) > INT64_MAX:
            return f"must be between {-INT64_MAX} and {INT64_MAX}"
        bound = bound_for(name, int, default)
        return bound.check(value) if bound else None
    if isinstance(value, Path):
        return _check_path(name, value)
    if isinstance(value, str) and "\x00" in value:
        return "must not contain a NUL character"
    return None


_USER_SOURCES = {click_core.ParameterSource.COMMANDLINE, click_core.ParameterSource.ENVIRONMENT}

#: field of a library record (or parameter of a library function) -> the flag that sets
#: it, where the two names differ: the one mapping from the library's names to the CLI's
_FLAGS: dict[str, str] = {}
_NO_DEFAULT: Any = object()


def flag_of(field: str) -> str:
    """The flag that sets the library field `field` (`--field-name` unless declared)."""
    return _FLAGS.get(field, "--" + field.replace("_", "-"))


def _name_field(field: str, flag: str) -> None:
    """Declare that `flag` sets the library's `field` (shown for its errors)."""
    known = _FLAGS.setdefault(field, flag)
    if known != flag:  # one field, one flag: else a library error could name the wrong one
        raise RuntimeError(f"library field {field!r} is set by both {known} and {flag}")


def library_option(
    default: Any = _NO_DEFAULT,
    *flags: str,
    record: type | None = None,
    field: str,
    help: str,
    low: float | None = None,
    names_field: bool = True,
) -> Any:
    """A `typer.Option` setting `record.field`, checked against the field's declared range
    (`low` replaces its lower bound where the CLI's differs, e.g. a flag whose 0 means
    "one per core"), the range appended to `help`. With `names_field`, the library's
    errors about `field` are shown under this flag. Without `record`, the option sets a
    library function's parameter `field` that declares no range: only its errors'
    name is mapped (``out_dir must be a directory`` shown as ``--out must be ...``)."""
    # inside `Annotated`, typer takes a leading "--flag" for the flag, not the default
    named = flags or ((default,) if isinstance(default, str) and default.startswith("-") else ())
    if names_field and named:
        _name_field(field, named[0])
    if record is None:
        if default is _NO_DEFAULT:
            return typer.Option(*flags, help=help)
        return typer.Option(default, *flags, help=help)
    declared_in: type = record

    def bound() -> Range:  # read when checking: the declaration is the only copy
        declared = range_of(declared_in, field)
        return declared if low is None else declared.with_low(low)

    def callback(ctx: typer.Context, param: typer.CallbackParam, value: Any) -> Any:
        if value is not None and ctx.get_parameter_source(param.name or "") in _USER_SOURCES:
            for item in value if isinstance(value, list | tuple) else [value]:
                reason = bound().reason(item)
                if reason:
                    raise click_exceptions.BadParameter(reason, ctx=ctx, param=cast(Any, param))
        return value

    callback.__scigate_range__ = bound  # type: ignore[attr-defined]
    text = f"{help} (Allowed: {bound().text()}.)"
    if default is _NO_DEFAULT:
        return typer.Option(*flags, help=text, callback=callback)
    return typer.Option(default, *flags, help=text, callback=callback)


def _chain(param: click_core.Parameter) -> Callable[..., Any]:
    original = param.callback

    declared = getattr(original, "__scigate_range__", None)  # `library_option` checks it

    def callback(ctx: click_core.Context, p: click_core.Parameter, value: Any) -> Any:
        if ctx.get_parameter_source(p.name or "") in _USER_SOURCES and declared is None:
            reason = check_value(p.name or "", value, p.default)
            if reason:
                raise click_exceptions.BadParameter(reason, ctx=ctx, param=cast(Any, p))
        return original(ctx, p, value) if original is not None else value

    callback.__scigate_validated__ = True  # type: ignore[attr-defined]
    return callback


def _walk(command: click_core.Command) -> Iterable[click_core.Command]:
    yield command
    for sub in (getattr(command, "commands", None) or {}).values():
        yield from _walk(sub)


def validate_tree(command: click_core.Command) -> click_core.Command:
    """Attach the boundary checks to every parameter of `command` and its subcommands."""
    for cmd in _walk(command):
        for param in cmd.params:
            if not getattr(param.callback, "__scigate_validated__", False):
                param.callback = _chain(param)
    return command
