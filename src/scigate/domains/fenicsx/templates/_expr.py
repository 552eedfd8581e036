"""Small symbolic expressions in two coordinates, rendered as numpy/UFL code and as TeX.

A term list is JSON-friendly (it goes into meta.json params): each term is a list
``[kind, coefficient, *ints]`` with kinds

- ``"p"``: c * X^i * Y^j                 ``["p", c, i, j]``
- ``"sx"``/``"sy"``: c * sin(k*pi*X) / c * sin(k*pi*Y)   ``["sx", c, k]``
- ``"cx"``/``"cy"``: c * cos(k*pi*X) / c * cos(k*pi*Y)   ``["cy", c, k]``
- ``"sxsy"``: c * sin(k*pi*X) * sin(l*pi*Y)              ``["sxsy", c, k, l]``
- ``"e"``: c * exp(a*X + b*Y) with a, b given as coefficients ``["e", c, a, b]``
"""

from __future__ import annotations

Term = list


def _num(c: float) -> str:
    """Shortest decimal text that round-trips (coefficients are drawn with few digits)."""
    return repr(float(c))


def _mono_code(i: int, j: int, xs: str, ys: str) -> str:
    parts = []
    for name, power in ((xs, i), (ys, j)):
        if power == 1:
            parts.append(name)
        elif power > 1:
            parts.append(f"{name}**{power}")
    return "*".join(parts)


def to_code(
    terms: list[Term], xs: str = "X", ys: str = "Y", lib: str = "ufl", const: str | None = None
) -> str:
    """Python source of the sum of ``terms`` (``lib`` is the module holding sin/cos/exp/pi).

    With ``const`` (the name of a one-argument callable, e.g. one that returns a
    ``dolfinx.fem.Constant``) every number is wrapped in it, so that a compiled UFL form
    depends on the structure of the terms only and is reused across parameter values.
    """
    pi = "np.pi"
    num = (lambda v: f"{const}({_num(v)})") if const else _num

    out = []
    for term in terms:
        kind, c = term[0], float(term[1])
        if kind == "p":
            mono = _mono_code(term[2], term[3], xs, ys)
            body = f"{num(c)}*{mono}" if mono else num(c)
        elif kind in ("sx", "sy", "cx", "cy"):
            fn = "sin" if kind[0] == "s" else "cos"
            var = xs if kind[1] == "x" else ys
            body = f"{num(c)}*{lib}.{fn}({num(term[2])}*{pi}*{var})"
        elif kind in ("sxsy", "cxsy", "sxcy"):
            fx = "cos" if kind == "cxsy" else "sin"
            fy = "cos" if kind == "sxcy" else "sin"
            body = (
                f"{num(c)}*{lib}.{fx}({num(term[2])}*{pi}*{xs})"
                f"*{lib}.{fy}({num(term[3])}*{pi}*{ys})"
            )
        elif kind == "e":
            body = f"{num(c)}*{lib}.exp({num(term[2])}*{xs} + {num(term[3])}*{ys})"
        else:
            raise ValueError(f"unknown term kind {kind!r}")
        out.append(f"({body})")
    return " + ".join(out) if out else "0.0"


def diff(terms: list[Term], var: str) -> list[Term]:
    """Exact partial derivative of a term list with respect to ``var`` ("x" or "y")."""
    import math

    out: list[Term] = []
    for term in terms:
        kind, c = term[0], float(term[1])
        if kind == "p":
            i, j = term[2], term[3]
            power = i if var == "x" else j
            if power:
                out.append(["p", c * power, i - (var == "x"), j - (var == "y")])
        elif kind in ("sx", "sy", "cx", "cy"):
            if kind[1] == var:
                k = term[2]
                sign = 1.0 if kind[0] == "s" else -1.0
                out.append([("c" if kind[0] == "s" else "s") + var, sign * c * k * math.pi, k])
        elif kind == "sxsy":
            k, ell = term[2], term[3]
            if var == "x":
                out.append(["cxsy", c * k * math.pi, k, ell])
            else:
                out.append(["sxcy", c * ell * math.pi, k, ell])
        elif kind == "e":
            out.append(["e", c * float(term[2] if var == "x" else term[3]), term[2], term[3]])
        else:
            raise ValueError(f"cannot differentiate term kind {kind!r}")
    return out


def _mono_tex(i: int, j: int, xs: str, ys: str) -> str:
    parts = []
    for name, power in ((xs, i), (ys, j)):
        if power == 1:
            parts.append(name)
        elif power > 1:
            parts.append(f"{name}^{{{power}}}")
    return "".join(parts)


def _kpi(k: int) -> str:
    return r"\pi" if k == 1 else rf"{k}\pi"


def to_tex(terms: list[Term], xs: str = "X", ys: str = "Y", lead: str = "") -> str:
    """TeX of ``lead`` plus the sum of ``terms`` (e.g. ``x + 0.041\\sin(2\\pi y) - 0.009y^{2}``)."""
    pieces: list[str] = [lead] if lead else []
    for term in terms:
        kind, c = term[0], float(term[1])
        if kind == "p":
            body = _mono_tex(term[2], term[3], xs, ys)
        elif kind in ("sx", "sy", "cx", "cy"):
            fn = r"\sin" if kind[0] == "s" else r"\cos"
            var = xs if kind[1] == "x" else ys
            body = rf"{fn}({_kpi(term[2])} {var})"
        elif kind == "sxsy":
            body = rf"\sin({_kpi(term[2])} {xs})\sin({_kpi(term[3])} {ys})"
        elif kind == "e":
            a, b = float(term[2]), float(term[3])
            sign = "-" if b < 0 else "+"
            body = rf"\exp({_num(a)}{xs} {sign} {_num(abs(b))}{ys})"
        else:
            raise ValueError(f"unknown term kind {kind!r}")
        mag = _num(abs(c))
        if body and mag == "1.0":
            mag = ""
        text = f"{mag}{body}" if body else mag
        if not pieces:
            pieces.append(f"-{text}" if c < 0 else text)
        else:
            pieces.append(f"- {text}" if c < 0 else f"+ {text}")
    return " ".join(pieces) if pieces else "0"


def bound(terms: list[Term], radius: float = 1.2) -> float:
    """Crude upper bound of |sum of terms| for |X|, |Y| <= radius (used to keep data positive)."""
    total = 0.0
    for term in terms:
        kind, c = term[0], abs(float(term[1]))
        if kind == "p":
            total += c * radius ** (term[2] + term[3])
        elif kind == "e":
            total += c * 2.718281828 ** ((abs(term[2]) + abs(term[3])) * radius)
        else:
            total += c
    return total
