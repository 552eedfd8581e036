"""Numeric ranges of configuration fields, declared once, on the library's config record.

A field declares its range in its annotation with `annotated_types` (what pydantic's
`Field(ge=...)` stores too)::

    rounds: Annotated[int, Interval(ge=0, le=100_000)] = 10

Pydantic enforces it when a model is built; `Bounded` turns pydantic's error into one
`BadValue` naming the field (``rounds must be between 0 and 100000, got -1``), and
`check_bounds` checks any record (dataclasses too) after the fact. The CLI reads the same
declaration (`field_range`) for its flag's check and help text, and shows a `BadValue`
under the flag's name: a bound changed here changes the library and the CLI alike.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from dataclasses import dataclass
from typing import Any, Self

import annotated_types
from pydantic import BaseModel, ValidationError

from scigate.errors import BadInput, BadValue

__all__ = ["Bounded", "Range", "check_bounds", "field_range", "range_of"]


@dataclass(frozen=True)
class Range:
    """A numeric range: `ge`/`gt` below, `le`/`lt` above (None: open on that side)."""

    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None

    def reason(self, value: float) -> str | None:
        """Why `value` is outside the range (``must be at least 1, got 0``), or None."""
        if isinstance(value, float) and not math.isfinite(value):
            return f"must be a finite number, got {value}"
        inside = (
            (self.ge is None or value >= self.ge)
            and (self.gt is None or value > self.gt)
            and (self.le is None or value <= self.le)
            and (self.lt is None or value < self.lt)
        )
        return None if inside else f"must be {self.text()}, got {value}"

    def text(self) -> str:
        """The range in words: ``between 1 and 64``, ``at least 0``, ``above 0 and at most 604800``."""
        low = f"at least {_num(self.ge)}" if self.ge is not None else None
        if self.gt is not None:
            low = f"above {_num(self.gt)}"
        high = f"at most {_num(self.le)}" if self.le is not None else None
        if self.lt is not None:
            high = f"below {_num(self.lt)}"
        if self.ge is not None and self.le is not None:
            return f"between {_num(self.ge)} and {_num(self.le)}"
        return " and ".join(p for p in (low, high) if p) or "any number"

    def interval(self) -> str:
        """The range in interval notation: ``[0, 1]``, ``(0, 604800]``, ``[1, inf)``."""
        low = f"[{_num(self.ge)}" if self.ge is not None else f"({_num(self.gt)}"
        if self.ge is None and self.gt is None:
            low = "(-inf"
        high = f"{_num(self.le)}]" if self.le is not None else f"{_num(self.lt)})"
        if self.le is None and self.lt is None:
            high = "inf)"
        return f"{low}, {high}"

    def with_low(self, ge: float) -> Range:
        """This range with another inclusive lower bound (a caller's stricter or looser floor)."""
        return dataclasses.replace(self, ge=ge, gt=None)


def _num(x: float | None) -> str:
    return str(int(x)) if x is not None and float(x).is_integer() else str(x)


def _item_metadata(annotation: Any) -> list[Any]:
    """The declared bounds of the items of a list field (``list[Annotated[int, Ge(1)]]``):
    a range on a list field bounds each of its values."""
    if typing.get_origin(annotation) in (list, tuple, set, frozenset):
        args = [a for a in typing.get_args(annotation) if a is not Ellipsis]
        if len(args) == 1:
            return list(getattr(args[0], "__metadata__", ()))
    return []


def _metadata(record_type: type, name: str) -> list[Any]:
    if issubclass(record_type, BaseModel):
        info = record_type.model_fields.get(name)
        if info is None:
            raise KeyError(f"{record_type.__name__} has no field {name!r}")
        return list(info.metadata) + _item_metadata(info.annotation)
    hints = typing.get_type_hints(record_type, include_extras=True)
    if name not in hints:
        raise KeyError(f"{record_type.__name__} has no field {name!r}")
    extras = list(getattr(hints[name], "__metadata__", ()))
    for extra in list(extras):  # pydantic's Field(ge=...) inside Annotated
        extras.extend(getattr(extra, "metadata", []) or [])
    return extras


def field_range(record_type: type, name: str) -> Range | None:
    """The declared range of field `name` of `record_type`, or None when it declares none."""
    bounds: dict[str, float] = {}
    for item in _metadata(record_type, name):
        if isinstance(item, annotated_types.Interval):
            bounds |= {
                k: v for k in ("ge", "gt", "le", "lt") if (v := getattr(item, k)) is not None
            }
        for kind in ("Ge", "Gt", "Le", "Lt"):
            if isinstance(item, getattr(annotated_types, kind)):
                bounds[kind.lower()] = getattr(item, kind.lower())
    return Range(**bounds) if bounds else None


def range_of(record_type: type, name: str) -> Range:
    """`field_range`, for a field that must declare one (KeyError otherwise)."""
    found = field_range(record_type, name)
    if found is None:
        raise KeyError(f"{record_type.__name__}.{name} declares no range")
    return found


def _field_names(record: Any) -> list[str]:
    if isinstance(record, BaseModel):
        return list(type(record).model_fields)
    return [f.name for f in dataclasses.fields(record)]


def _min_length(record_type: type, name: str) -> int | None:
    """The declared least number of values of a collection field (`min_length`), or None."""
    lengths = [
        m.min_length for m in _metadata(record_type, name) if isinstance(m, annotated_types.MinLen)
    ]
    return max(lengths) if lengths else None


def _too_short(name: str, least: int, value: Any) -> BadValue:
    return BadValue(name, f"must hold at least {least} value(s), got {value!r}")


def check_bounds(record: Any) -> None:
    """`BadValue` for the first field of `record` outside its declared range (for a list
    field, the first of its values outside it, or fewer values than its `min_length`)."""
    for name in _field_names(record):
        value = getattr(record, name)
        many = isinstance(value, list | tuple | set | frozenset)
        least = _min_length(type(record), name) if many else None
        if least is not None and len(value) < least:
            raise _too_short(name, least, value)
        found = field_range(type(record), name)
        if found is None or value is None:
            continue
        for item in value if many else [value]:
            if isinstance(item, bool) or not isinstance(item, int | float):
                continue
            reason = found.reason(item)
            if reason:
                raise BadValue(name, reason)


def bad_input_of(record_type: type[BaseModel], exc: ValidationError) -> BadInput:
    """One line for pydantic's error about `record_type`, naming the field."""
    err = exc.errors()[0]
    loc = err.get("loc") or ()
    name = str(loc[0]) if loc else ""
    found = field_range(record_type, name) if name in record_type.model_fields else None
    value = err.get("input")
    if found is not None and isinstance(value, int | float) and not isinstance(value, bool):
        reason = found.reason(value)
        if reason:
            return BadValue(name, reason)
    if err.get("type") == "too_short" and name in record_type.model_fields:
        return _too_short(name, (err.get("ctx") or {}).get("min_length", 1), value)
    where = ".".join(str(x) for x in loc) or record_type.__name__
    return BadInput(f"{where}: {err['msg']}")


class Bounded(BaseModel):
    """A config record whose construction reports a bad field as one `BadInput` line
    (`BadValue` for a value outside the field's declared range), not a ValidationError."""

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise bad_input_of(type(self), exc) from None

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> Self:
        """`BaseModel.model_validate`, its errors one `BadInput` line."""
        try:
            return super().model_validate(obj, **kwargs)
        except ValidationError as exc:
            raise bad_input_of(cls, exc) from None
