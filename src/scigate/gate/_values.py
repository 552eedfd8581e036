"""Value matching: options and printed answers compare by value, not by letter.

Numeric values compare as numbers at the option's printed precision: the printed value
is rounded to the option's last decimal place (``0.060723`` equals ``0.0607230``;
``0.0607234`` rounds to ``0.060723``). Other values compare after trimming white space
and case.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation

_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def parse_number(text: str) -> Decimal | None:
    """The value of `text` as a Decimal, or None when it is not a plain number."""
    s = text.strip().replace("\u2212", "-")
    if not _NUMBER.match(s):
        return None
    try:
        return Decimal(s)
    except InvalidOperation:  # pragma: no cover - the regex already filters
        return None


def values_match(printed: str, option: str) -> bool:
    """True when `printed` equals `option` by value (numbers at the option's precision).
    A non-finite value (nan, inf) matches nothing: a failed computation proves no option."""
    if _non_finite(printed) or _non_finite(option):
        return False
    a, b = parse_number(printed), parse_number(option)
    if a is not None and b is not None:
        exponent = b.as_tuple().exponent
        if not isinstance(exponent, int):  # pragma: no cover - NaN/inf rejected by regex
            return False
        quantum = Decimal(1).scaleb(exponent)
        try:
            return a.quantize(quantum, rounding=ROUND_HALF_EVEN) == b.quantize(quantum)
        except InvalidOperation:
            return False
    return _norm(printed) == _norm(option)


def same_value(printed: str, reference: str, like: str | None) -> bool:
    """True when two printed values are equal at the printed precision of `like` (an
    option's value): numbers are both rounded to its last decimal place; without a
    numeric `like`, numbers compare exactly and other values after trimming and case."""
    a, b = parse_number(printed), parse_number(reference)
    if a is None or b is None:
        return _norm(printed) == _norm(reference)
    model = parse_number(like) if like is not None else None
    exponent = model.as_tuple().exponent if model is not None else None
    if not isinstance(exponent, int):
        return a == b
    quantum = Decimal(1).scaleb(exponent)
    try:
        return a.quantize(quantum, rounding=ROUND_HALF_EVEN) == b.quantize(
            quantum, rounding=ROUND_HALF_EVEN
        )
    except InvalidOperation:
        return False


def match_option(printed: str, options: dict[str, str]) -> list[str]:
    """The letters of every option that `printed` matches by value (sorted)."""
    return sorted(letter for letter, value in options.items() if values_match(printed, value))


def coarse_matches(printed: str, options: dict[str, str]) -> list[str]:
    """The letters of options written more finely than `printed` that round to it at its
    precision: a print of ``17`` is consistent with ``17.0`` and with ``17.4`` alike."""
    a = parse_number(printed)
    if a is None or not isinstance(exponent := a.as_tuple().exponent, int):
        return []
    quantum = Decimal(1).scaleb(exponent)
    out = []
    for letter, value in options.items():
        b = parse_number(value)
        if b is None or not isinstance(b_exponent := b.as_tuple().exponent, int):
            continue
        if b_exponent >= exponent:
            continue
        try:
            if b.quantize(quantum, rounding=ROUND_HALF_EVEN) == a.quantize(quantum):
                out.append(letter)
        except InvalidOperation:
            continue
    return sorted(out)


def options_distinct(options: dict[str, str]) -> list[tuple[str, str]]:
    """Pairs of letters whose option values coincide (empty when all are distinct)."""
    letters = sorted(options)
    return [
        (a, b)
        for i, a in enumerate(letters)
        for b in letters[i + 1 :]
        if values_match(options[a], options[b]) or values_match(options[b], options[a])
    ]


def numeric_values(options: dict[str, str]) -> dict[str, float] | None:
    """Every option as a float, or None when any option is not numeric."""
    out: dict[str, float] = {}
    for letter, value in options.items():
        number = parse_number(value)
        if number is None:
            return None
        out[letter] = float(number)
    return out


def value_rank(options: dict[str, str], letter: str) -> int | None:
    """1-based rank of option `letter`'s value among the options (1 = smallest)."""
    values = numeric_values(options)
    if values is None or letter not in values:
        return None
    return 1 + sum(1 for v in values.values() if v < values[letter])


def _non_finite(text: str) -> bool:
    try:
        value = float(text.strip().replace("\u2212", "-"))
    except ValueError:
        return False
    return value != value or value in (float("inf"), float("-inf"))


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()
