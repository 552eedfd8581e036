"""A small dimensional unit system for the unit-conversion tools.

A unit expression is a product of factors such as ``kJ/mol``, ``g/cm^3``, ``m s-2`` or
``kcal*mol^-1``; each factor is a unit symbol, optionally with an SI prefix and an integer
power. Values are CODATA 2018 / NIST SP 811 exact or recommended conversion factors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scigate.tools._tool import ToolInputError

# dimension order: length, mass, time, current, temperature, amount, luminous intensity
Dims = tuple[int, int, int, int, int, int, int]
_NONE: Dims = (0, 0, 0, 0, 0, 0, 0)
L: Dims = (1, 0, 0, 0, 0, 0, 0)
M: Dims = (0, 1, 0, 0, 0, 0, 0)
T: Dims = (0, 0, 1, 0, 0, 0, 0)
I: Dims = (0, 0, 0, 1, 0, 0, 0)  # noqa: E741
K: Dims = (0, 0, 0, 0, 1, 0, 0)
N: Dims = (0, 0, 0, 0, 0, 1, 0)


def _mul(a: Dims, b: Dims, p: int = 1) -> Dims:
    return tuple(x + p * y for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


def _d(*parts: tuple[Dims, int]) -> Dims:
    out = _NONE
    for dims, power in parts:
        out = _mul(out, dims, power)
    return out


ENERGY = _d((M, 1), (L, 2), (T, -2))
_E_CHARGE = 1.602176634e-19
_AVOGADRO = 6.02214076e23
_HARTREE = 4.3597447222071e-18

_PREFIXES = {
    "Y": 1e24, "Z": 1e21, "E": 1e18, "P": 1e15, "T": 1e12, "G": 1e9, "M": 1e6, "k": 1e3,
    "h": 1e2, "da": 1e1, "d": 1e-1, "c": 1e-2, "m": 1e-3, "µ": 1e-6, "μ": 1e-6, "u": 1e-6,
    "n": 1e-9, "p": 1e-12, "f": 1e-15, "a": 1e-18,
}  # fmt: skip


@dataclass(frozen=True)
class _Unit:
    factor: float  # value in SI base units of 1 of this unit
    dims: Dims
    prefixable: bool = False
    offset: float = 0.0  # for absolute temperatures: K = factor * value + offset


_UNITS: dict[str, _Unit] = {
    # length
    "m": _Unit(1.0, L, True),
    "Å": _Unit(1e-10, L), "angstrom": _Unit(1e-10, L), "ang": _Unit(1e-10, L),
    "in": _Unit(0.0254, L), "inch": _Unit(0.0254, L), "ft": _Unit(0.3048, L),
    "yd": _Unit(0.9144, L), "mi": _Unit(1609.344, L), "mile": _Unit(1609.344, L),
    "nmi": _Unit(1852.0, L), "au": _Unit(149597870700.0, L), "ly": _Unit(9460730472580800.0, L),
    "pc": _Unit(3.0856775814913673e16, L), "bohr": _Unit(5.29177210903e-11, L),
    # mass
    "g": _Unit(1e-3, M, True), "t": _Unit(1e3, M), "tonne": _Unit(1e3, M),
    "lb": _Unit(0.45359237, M), "oz": _Unit(0.028349523125, M),
    "Da": _Unit(1.66053906660e-27, M, True), "u": _Unit(1.66053906660e-27, M),
    "amu": _Unit(1.66053906660e-27, M),
    # time
    "s": _Unit(1.0, T, True), "min": _Unit(60.0, T), "h": _Unit(3600.0, T),
    "hr": _Unit(3600.0, T), "day": _Unit(86400.0, T), "week": _Unit(604800.0, T),
    "yr": _Unit(31557600.0, T), "year": _Unit(31557600.0, T),
    # current, amount
    "A": _Unit(1.0, I, True), "mol": _Unit(1.0, N, True),
    # temperature
    "K": _Unit(1.0, K, True),
    "degC": _Unit(1.0, K, offset=273.15), "°C": _Unit(1.0, K, offset=273.15),
    "celsius": _Unit(1.0, K, offset=273.15),
    "degF": _Unit(5 / 9, K, offset=273.15 - 32 * 5 / 9),
    "°F": _Unit(5 / 9, K, offset=273.15 - 32 * 5 / 9),
    "fahrenheit": _Unit(5 / 9, K, offset=273.15 - 32 * 5 / 9),
    "degR": _Unit(5 / 9, K), "rankine": _Unit(5 / 9, K),
    # energy
    "J": _Unit(1.0, ENERGY, True), "eV": _Unit(_E_CHARGE, ENERGY, True),
    "cal": _Unit(4.184, ENERGY, True), "Ha": _Unit(_HARTREE, ENERGY),
    "hartree": _Unit(_HARTREE, ENERGY), "Ry": _Unit(_HARTREE / 2, ENERGY),
    "erg": _Unit(1e-7, ENERGY), "Wh": _Unit(3600.0, ENERGY, True),
    "BTU": _Unit(1055.05585262, ENERGY),
    # pressure, force, power
    "Pa": _Unit(1.0, _d((M, 1), (L, -1), (T, -2)), True),
    "bar": _Unit(1e5, _d((M, 1), (L, -1), (T, -2)), True),
    "atm": _Unit(101325.0, _d((M, 1), (L, -1), (T, -2))),
    "torr": _Unit(101325.0 / 760, _d((M, 1), (L, -1), (T, -2))),
    "Torr": _Unit(101325.0 / 760, _d((M, 1), (L, -1), (T, -2))),
    "mmHg": _Unit(133.322387415, _d((M, 1), (L, -1), (T, -2))),
    "psi": _Unit(6894.757293168361, _d((M, 1), (L, -1), (T, -2))),
    "N": _Unit(1.0, _d((M, 1), (L, 1), (T, -2)), True),
    "dyn": _Unit(1e-5, _d((M, 1), (L, 1), (T, -2))),
    "lbf": _Unit(4.4482216152605, _d((M, 1), (L, 1), (T, -2))),
    "W": _Unit(1.0, _d((M, 1), (L, 2), (T, -3)), True),
    "hp": _Unit(745.69987158227022, _d((M, 1), (L, 2), (T, -3))),
    # electromagnetism
    "C": _Unit(1.0, _d((I, 1), (T, 1)), True),
    "e": _Unit(_E_CHARGE, _d((I, 1), (T, 1))),
    "V": _Unit(1.0, _d((M, 1), (L, 2), (T, -3), (I, -1)), True),
    "ohm": _Unit(1.0, _d((M, 1), (L, 2), (T, -3), (I, -2)), True),
    "Ω": _Unit(1.0, _d((M, 1), (L, 2), (T, -3), (I, -2)), True),
    "F": _Unit(1.0, _d((M, -1), (L, -2), (T, 4), (I, 2)), True),
    "T": _Unit(1.0, _d((M, 1), (T, -2), (I, -1)), True),
    "G": _Unit(1e-4, _d((M, 1), (T, -2), (I, -1))),
    # frequency, volume, concentration, viscosity, angle
    "Hz": _Unit(1.0, _d((T, -1)), True),
    "L": _Unit(1e-3, _d((L, 3)), True), "l": _Unit(1e-3, _d((L, 3)), True),
    "gal": _Unit(3.785411784e-3, _d((L, 3))),
    "M": _Unit(1e3, _d((N, 1), (L, -3)), True),
    "P": _Unit(0.1, _d((M, 1), (L, -1), (T, -1)), True),
    "rad": _Unit(1.0, _NONE), "deg": _Unit(3.141592653589793 / 180, _NONE),
    "°": _Unit(3.141592653589793 / 180, _NONE),
    "percent": _Unit(0.01, _NONE), "%": _Unit(0.01, _NONE), "ppm": _Unit(1e-6, _NONE),
}  # fmt: skip

_FACTOR = re.compile(r"^(?P<sym>[^\s\^*/\d+-]+)(?:(?:\^|\*\*)?(?P<pow>[+-]?\d+))?$")


@dataclass(frozen=True)
class Quantity:
    """A parsed unit expression: SI factor, dimensions and (for a lone temperature) an offset."""

    factor: float
    dims: Dims
    offset: float = 0.0


def _symbol(sym: str) -> _Unit:
    if sym in _UNITS:
        return _UNITS[sym]
    for prefix in sorted(_PREFIXES, key=len, reverse=True):
        if sym.startswith(prefix) and sym[len(prefix) :] in _UNITS:
            base = _UNITS[sym[len(prefix) :]]
            if base.prefixable:
                return _Unit(base.factor * _PREFIXES[prefix], base.dims)
    raise ToolInputError(f"unknown unit {sym!r}")


def parse_unit(expr: str) -> Quantity:
    """Parse a unit expression like 'kJ/mol', 'g/cm^3', 'm s-2' or '°C'."""
    text = expr.strip().replace("·", "*").replace("**", "^")
    # 'J/(mol*K)' -> 'J/mol/K': one level of parentheses after a division
    text = re.sub(
        r"/\s*\(([^()]*)\)",
        lambda m: "".join("/" + f for f in re.split(r"[\s*]+", m.group(1).strip()) if f),
        text,
    )
    if "(" in text or ")" in text:
        raise ToolInputError(f"cannot read unit {expr!r}: only '/(a*b)' parentheses are supported")
    if not text:
        raise ToolInputError("empty unit")
    if text in _UNITS and _UNITS[text].offset:
        u = _UNITS[text]
        return Quantity(u.factor, u.dims, u.offset)
    factor, dims = 1.0, _NONE
    tokens = re.split(r"\s*([*/])\s*|\s+", text)
    sign = 1
    for tok in tokens:
        if tok is None or tok == "" or tok == "*":
            continue
        if tok == "/":
            sign = -1
            continue
        if tok == "1":
            continue
        m = _FACTOR.match(tok)
        if not m:
            raise ToolInputError(f"cannot read unit factor {tok!r} in {expr!r}")
        unit = _symbol(m.group("sym"))
        if unit.offset:
            # a temperature inside a compound unit is a temperature difference
            unit = _Unit(unit.factor, unit.dims)
        power = int(m.group("pow") or 1) * sign
        factor *= unit.factor**power
        dims = _mul(dims, unit.dims, power)
        sign = 1
    return Quantity(factor, dims)


_DIM_NAMES = ("m", "kg", "s", "A", "K", "mol", "cd")


def describe_dims(dims: Dims) -> str:
    """SI base-unit rendering of a dimension vector, e.g. 'kg m^2 s^-2'."""
    parts = [f"{n}^{p}" if p != 1 else n for n, p in zip(_DIM_NAMES, dims, strict=True) if p]
    return " ".join(parts) or "dimensionless"


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """Convert `value` from one unit expression to another of the same dimensions."""
    src, dst = parse_unit(from_unit), parse_unit(to_unit)
    per_entity = 1.0
    if src.dims != dst.dims and _mul(src.dims, N, -1) == dst.dims:
        per_entity = _AVOGADRO  # per particle -> per mole (e.g. eV -> kJ/mol)
    elif src.dims != dst.dims and _mul(dst.dims, N, -1) == src.dims:
        per_entity = 1 / _AVOGADRO  # per mole -> per particle
    elif src.dims != dst.dims:
        raise ToolInputError(
            f"cannot convert {from_unit} ({describe_dims(src.dims)}) "
            f"to {to_unit} ({describe_dims(dst.dims)}): different dimensions"
        )
    si = (value * src.factor + src.offset) * per_entity
    return (si - dst.offset) / dst.factor
