"""General scientific tools: units, arithmetic, statistics, constants, paper search."""

from __future__ import annotations

import ast
import math
import operator
import re
import statistics
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

from scigate.tools._http import fetch
from scigate.tools._tool import ToolExample, ToolInputError, tool
from scigate.tools.library._units import convert

# ------------------------------------------------------------------------------ units

_QUERY = re.compile(
    r"^\s*(?:convert\s+)?(?P<value>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*"
    r"(?P<src>.+?)\s+(?:to|in|into|->)\s+(?P<dst>.+?)\s*\??\s*$",
    re.IGNORECASE,
)


@tool(
    name="UnitConverter",
    functionality=(
        "Convert a quantity between units given as a query like '10 km to mi' (kilometres "
        "to miles): length, mass, time, temperature, energy (J, eV, kcal/mol, hartree), "
        "pressure, volume, concentration and compound units such as g/cm^3 or J/(mol*K)."
    ),
    inputs=["Query"],
    outputs=["Unit conversion results"],
    category="general",
    source="Custom Tool",
    objects=["physical quantity", "unit"],
    scenarios=["unit conversion", "dimensional analysis"],
    examples=[
        ToolExample(
            input={"query": "10 km to mi"},
            output={
                "value": 6.213711922373339,
                "unit": "mi",
                "from_value": 10.0,
                "from_unit": "km",
            },
        ),
        ToolExample(
            input={"query": "1 eV to kJ/mol"},
            output={"value": 96.48533212, "unit": "kJ/mol", "from_value": 1.0, "from_unit": "eV"},
            rel_tol=1e-8,
        ),
    ],
)
def unit_converter(query: str) -> dict[str, Any]:
    """Parse 'VALUE UNIT to UNIT' and convert."""
    m = _QUERY.match(query or "")
    if not m:
        raise ToolInputError(f"cannot read unit query {query[:80]!r}; write it like '10 km to mi'")
    value = float(m.group("value"))
    src, dst = m.group("src").strip(), m.group("dst").strip()
    return {"value": convert(value, src, dst), "unit": dst, "from_value": value, "from_unit": src}


@tool(
    name="ConvertUnits",
    functionality=(
        "Convert a number from one unit to another of the same dimension (SI prefixes, "
        "compound units like kJ/mol or g/cm^3, absolute temperatures in K, degC, degF)."
    ),
    inputs=["number", "unit", "unit"],
    outputs=["number"],
    category="general",
    source="Custom Tool",
    objects=["physical quantity", "unit"],
    scenarios=["unit conversion"],
    examples=[
        ({"value": 100.0, "from_unit": "degC", "to_unit": "K"}, 373.15),
        ({"value": 1.0, "from_unit": "atm", "to_unit": "kPa"}, 101.325),
        ({"value": 1.0, "from_unit": "kcal/mol", "to_unit": "kJ/mol"}, 4.184),
    ],
)
def convert_units(value: float, from_unit: str, to_unit: str) -> float:
    """Convert `value` from `from_unit` to `to_unit`."""
    if not math.isfinite(value):
        raise ToolInputError("value must be a finite number")
    return convert(value, from_unit, to_unit)


# ------------------------------------------------------------------------- arithmetic
#
# The evaluator is safe by construction: it walks a parsed expression whose every node is
# on a whitelist, and before any operation whose cost grows with its result (``**``,
# factorial, comb, perm, lcm, round) it estimates the result's size with logarithms and
# refuses anything past 10**1000. Every intermediate integer is checked against the same
# bound, so no step works on numbers larger than a few thousand bits and a whole
# evaluation takes microseconds; a model cannot make it raise or run for minutes.

_MAX_CHARS = 2000  # expression length
_MAX_NODES = 500  # syntax tree nodes
_MAX_DEPTH = 100  # syntax tree nesting
_MAX_DIGITS = 1000  # decimal digits of any integer (and decades of any power's result)
_INT_LIMIT = 10**_MAX_DIGITS
_LN10 = math.log(10)
_EXACT_FLOAT = 2**53

_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}
_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf}
_FUNCTIONS: dict[str, Any] = {
    name: getattr(math, name)
    for name in [
        "sqrt",
        "exp",
        "log",
        "log10",
        "log2",
        "log1p",
        "expm1",
        "sin",
        "cos",
        "tan",
        "asin",
        "acos",
        "atan",
        "atan2",
        "sinh",
        "cosh",
        "tanh",
        "asinh",
        "acosh",
        "atanh",
        "floor",
        "ceil",
        "trunc",
        "degrees",
        "radians",
        "hypot",
        "gcd",
        "erf",
        "erfc",
        "gamma",
        "lgamma",
        "fabs",
        "copysign",
        "isqrt",
    ]
}
_FUNCTIONS |= {"abs": abs, "min": min, "max": max}


def _too_large(what: str, decades: float) -> ToolInputError:
    size = f"about 10^{decades:.0f}" if math.isfinite(decades) else "far too many digits"
    return ToolInputError(f"{what} is too large ({size}; the limit is 10^{_MAX_DIGITS})")


def _checked(value: Any, what: str = "result") -> Any:
    """`value` when it is a real number within the size limit; a `ToolInputError` otherwise."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        if abs(value) >= _INT_LIMIT:
            raise _too_large(what, math.log10(abs(value)))
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, complex):
        raise ToolInputError(f"{what} is not a real number ({value})")
    raise ToolInputError(f"{what} is not a number ({type(value).__name__})")


def _whole(value: Any, what: str) -> int:
    """`value` as an int when it is a whole number (5 or 5.0), else a `ToolInputError`."""
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return int(value)
    raise ToolInputError(f"{what} needs whole numbers, got {value!r}")


def _log10_factorial(n: int) -> float:
    """log10(n!) (n >= 0), inf when n! is beyond any limit here."""
    if n > 10**6:
        return math.inf
    return math.lgamma(n + 1) / _LN10


def _log10_falling(n: int, k: int) -> float:
    """log10(n! / (n-k)!) for 0 <= k <= n: the size of perm(n, k)."""
    if k > 4 * _MAX_DIGITS:  # perm(n, k) >= k!, and 4000! is far past the limit
        return math.inf
    if n < _EXACT_FLOAT:
        return (math.lgamma(n + 1) - math.lgamma(n - k + 1)) / _LN10
    return k * math.log10(n)  # upper bound: k factors each <= n


def _log10_comb(n: int, k: int) -> float:
    """log10 of comb(n, k) for 0 <= k <= n (k taken as the smaller side)."""
    k = min(k, n - k)
    if k == 0:
        return 0.0
    if k > 4 * _MAX_DIGITS:  # comb(n, k) >= 2**k when n >= 2k: past the limit
        return math.inf
    if n < _EXACT_FLOAT:
        return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)) / _LN10
    return k * math.log10(n) - math.lgamma(k + 1) / _LN10  # n**k / k! bounds it


def _factorial(n: Any) -> int:
    m = _whole(n, "factorial")
    if m < 0:
        raise ToolInputError("factorial needs a whole number >= 0")
    decades = _log10_factorial(m)
    if decades > _MAX_DIGITS:
        raise _too_large(f"factorial({m})", decades)
    return math.factorial(m)


def _comb(n: Any, k: Any) -> int:
    a, b = _whole(n, "comb"), _whole(k, "comb")
    if a < 0 or b < 0:
        raise ToolInputError("comb needs whole numbers >= 0")
    if b > a:
        return 0
    decades = _log10_comb(a, b)
    if decades > _MAX_DIGITS:
        raise _too_large(f"comb({a}, {b})", decades)
    return math.comb(a, b)


def _perm(n: Any, k: Any = None) -> int:
    a = _whole(n, "perm")
    b = a if k is None else _whole(k, "perm")
    if a < 0 or b < 0:
        raise ToolInputError("perm needs whole numbers >= 0")
    if b > a:
        return 0
    decades = _log10_falling(a, b)
    if decades > _MAX_DIGITS:
        raise _too_large(f"perm({a}, {b})", decades)
    return math.perm(a, b)


def _lcm(*values: Any) -> int:
    result = 1
    for v in values:  # one step at a time, each checked: the running lcm only grows
        result = _checked(math.lcm(result, _whole(v, "lcm")), "lcm")
    return result


def _round(value: Any, ndigits: Any = None) -> Any:
    if ndigits is None:
        return round(value)
    places = _whole(ndigits, "round")
    if abs(places) > _MAX_DIGITS:  # round(5, -10**9) would build 10**(10**9)
        raise ToolInputError(f"round's digits must be between -{_MAX_DIGITS} and {_MAX_DIGITS}")
    return round(value, places)


_FUNCTIONS |= {
    "factorial": _factorial,
    "comb": _comb,
    "perm": _perm,
    "lcm": _lcm,
    "round": _round,
}


def _power(base: Any, exponent: Any) -> Any:
    """base ** exponent, refused before computing when the result would leave the limits."""
    if base != 0 and exponent != 0 and abs(base) != 1:
        try:
            scale = float(exponent)
        except OverflowError:
            scale = math.inf if exponent > 0 else -math.inf
        decades = scale * math.log10(abs(base))
        if decades > _MAX_DIGITS:
            raise _too_large("result of **", decades)
        if decades < -_MAX_DIGITS:
            raise ToolInputError(
                f"result of ** is too small (about 10^{decades:.0f}); it underflows to 0"
            )
    result = base**exponent
    if result == 0 and base != 0:
        raise ToolInputError("result of ** is too small to represent; it underflows to 0")
    return result


def _tree_size(tree: ast.AST) -> tuple[int, int]:
    """(number of nodes, nesting depth) of `tree`, walked without recursion."""
    count, deepest = 0, 0
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        count += 1
        deepest = max(deepest, depth)
        if count > _MAX_NODES or deepest > _MAX_DEPTH:
            break
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return count, deepest


def _eval(node: ast.AST) -> Any:
    """Evaluate a whitelisted node (the tree's size and depth are checked beforehand)."""
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return _checked(node.value, "number")
    if isinstance(node, ast.Name):
        if node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        raise ToolInputError(f"unknown name {node.id!r}")
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow):
            return _checked(_power(left, right))
        return _checked(_BINARY[type(node.op)](left, right))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        fn = _FUNCTIONS.get(node.func.id)
        if fn is None:
            raise ToolInputError(f"unknown function {node.func.id!r}")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise ToolInputError("unsupported syntax: Starred")
        return _checked(fn(*[_eval(a) for a in node.args]), f"result of {node.func.id}")
    if isinstance(node, ast.Call):
        raise ToolInputError(
            f"unsupported syntax: call of {type(node.func).__name__} "
            "(only the listed math functions, by name and without keywords)"
        )
    raise ToolInputError(f"unsupported syntax: {type(node).__name__}")


@tool(
    name="EvaluateExpression",
    functionality=(
        "Evaluate an arithmetic expression safely: numbers, + - * / // % **, parentheses, "
        "constants pi and e, and math functions such as sqrt, log, exp, sin, factorial."
    ),
    inputs=["math expression"],
    outputs=["number"],
    category="general",
    source="Custom Tool",
    objects=["arithmetic expression"],
    scenarios=["calculation", "numerical answer checking"],
    examples=[
        ({"expression": "2 * (3 + 4)"}, 14),
        ({"expression": "sqrt(2) * log(e**3)"}, 3 * math.sqrt(2)),
        ({"expression": "factorial(5) / 4"}, 30.0),
    ],
)
def evaluate_expression(expression: str) -> float | int:
    """Evaluate an arithmetic expression without executing code (bounded: see above)."""
    text = (expression or "").strip().replace("^", "**")
    if not text:
        raise ToolInputError("empty expression")
    if len(text) > _MAX_CHARS:
        raise ToolInputError(f"expression is longer than {_MAX_CHARS} characters")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ToolInputError(f"cannot parse expression: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise ToolInputError(f"cannot parse expression: {type(exc).__name__}") from None
    count, depth = _tree_size(tree)
    if count > _MAX_NODES:
        raise ToolInputError(f"expression has more than {_MAX_NODES} parts")
    if depth > _MAX_DEPTH:
        raise ToolInputError(f"expression is nested more than {_MAX_DEPTH} levels deep")
    try:
        value = _eval(tree)
    except ToolInputError:
        raise
    except ZeroDivisionError:
        raise ToolInputError("division by zero") from None
    except (OverflowError, ValueError, TypeError, ArithmeticError) as exc:
        raise ToolInputError(f"cannot evaluate: {exc}") from None
    except (RecursionError, MemoryError) as exc:
        raise ToolInputError(f"cannot evaluate: {type(exc).__name__}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise ToolInputError(f"result is not finite ({value})")
    return value


# ------------------------------------------------------------------------- statistics


def _numbers(values: list[float], what: str = "values", minimum: int = 1) -> list[float]:
    if len(values) < minimum:
        raise ToolInputError(f"{what} needs at least {minimum} number(s), got {len(values)}")
    if not all(math.isfinite(v) for v in values):
        raise ToolInputError(f"{what} contains a non-finite number")
    return [float(v) for v in values]


@tool(
    name="DescriptiveStatistics",
    functionality=(
        "Summary statistics of a list of numbers: count, sum, mean, median, sample standard "
        "deviation and variance, minimum, maximum and quartiles."
    ),
    inputs=["number list"],
    outputs=["statistics"],
    category="general",
    source="Python Package(statistics)",
    objects=["measurement series", "data set"],
    scenarios=["data analysis", "error estimation"],
    examples=[
        (
            {"values": [1, 2, 3, 4]},
            {
                "count": 4,
                "sum": 10.0,
                "mean": 2.5,
                "median": 2.5,
                "stdev": 1.2909944487358056,
                "variance": 1.6666666666666667,
                "min": 1.0,
                "max": 4.0,
                "q1": 1.75,
                "q3": 3.25,
            },
        )
    ],
)
def descriptive_statistics(values: list[float]) -> dict[str, float | int | None]:
    """Summary statistics (sample standard deviation; quartiles by linear interpolation)."""
    xs = _numbers(values)
    many = len(xs) > 1
    q1, _, q3 = statistics.quantiles(xs, n=4, method="inclusive") if many else (xs[0],) * 3
    return {
        "count": len(xs),
        "sum": math.fsum(xs),
        "mean": statistics.fmean(xs),
        "median": statistics.median(xs),
        "stdev": statistics.stdev(xs) if many else None,
        "variance": statistics.variance(xs) if many else None,
        "min": min(xs),
        "max": max(xs),
        "q1": q1,
        "q3": q3,
    }


@tool(
    name="LinearRegression",
    functionality=(
        "Least-squares straight-line fit y = slope * x + intercept of paired number lists, "
        "with the coefficient of determination R^2."
    ),
    inputs=["number list", "number list"],
    outputs=["statistics"],
    category="general",
    source="Python Package(statistics)",
    objects=["measurement series", "calibration curve"],
    scenarios=["data fitting", "calibration", "kinetics"],
    examples=[
        ({"x": [0, 1, 2, 3], "y": [1, 3, 5, 7]}, {"slope": 2.0, "intercept": 1.0, "r_squared": 1.0})
    ],
)
def linear_regression(x: list[float], y: list[float]) -> dict[str, float]:
    """Ordinary least squares on (x, y)."""
    xs, ys = _numbers(x, "x", 2), _numbers(y, "y", 2)
    if len(xs) != len(ys):
        raise ToolInputError(f"x and y differ in length ({len(xs)} vs {len(ys)})")
    if len(set(xs)) < 2:
        raise ToolInputError("x values are all equal; the slope is undefined")
    slope, intercept = statistics.linear_regression(xs, ys)
    r2 = statistics.correlation(xs, ys) ** 2 if len(set(ys)) > 1 else 1.0
    return {"slope": slope, "intercept": intercept, "r_squared": r2}


@tool(
    name="RoundSignificantFigures",
    functionality="Round a number to a given number of significant figures.",
    inputs=["number", "integer"],
    outputs=["number"],
    category="general",
    source="Custom Tool",
    scenarios=["reporting results", "answer formatting"],
    examples=[
        ({"value": 0.000123456, "figures": 3}, 0.000123),
        ({"value": 98765, "figures": 2}, 99000),
    ],
)
def round_significant(value: float, figures: int) -> float:
    """Round `value` to `figures` significant figures."""
    if not 1 <= figures <= 17:
        raise ToolInputError("figures must be between 1 and 17")
    if not math.isfinite(value):
        raise ToolInputError("value must be a finite number")
    if value == 0:
        return 0.0
    return float(f"{value:.{figures}g}")


# ------------------------------------------------------------------------- constants


@tool(
    name="GetPhysicalConstant",
    functionality=(
        "Look up a CODATA physical constant by name (e.g. 'Boltzmann constant', 'Planck "
        "constant', 'Avogadro constant'): value, unit and standard uncertainty."
    ),
    inputs=["constant name"],
    outputs=["physical constant"],
    category="general",
    source="Python Package(scipy)",
    objects=["physical constant"],
    scenarios=["physics calculation", "chemistry calculation"],
    requires=["scipy"],
    examples=[
        (
            {"name": "Boltzmann constant"},
            {
                "name": "Boltzmann constant",
                "value": 1.380649e-23,
                "unit": "J K^-1",
                "uncertainty": 0.0,
            },
        )
    ],
)
def physical_constant(name: str) -> dict[str, Any]:
    """A CODATA constant from scipy.constants (exact name, or the closest match)."""
    import difflib

    from scipy.constants import physical_constants

    key = (name or "").strip()
    if not key:
        raise ToolInputError("empty constant name")
    if key not in physical_constants:
        lower = {k.lower(): k for k in physical_constants}
        if key.lower() in lower:
            key = lower[key.lower()]
        else:
            close = difflib.get_close_matches(key.lower(), lower, n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(lower[c] for c in close)}?" if close else ""
            raise ToolInputError(f"unknown physical constant {name!r}{hint}")
    value, unit, uncertainty = physical_constants[key]
    return {"name": key, "value": value, "unit": unit, "uncertainty": uncertainty}


# ------------------------------------------------------------------------- web services

ARXIV_API = "https://export.arxiv.org/api/query"
_ATOM = {"a": "http://www.w3.org/2005/Atom"}


def parse_arxiv_feed(xml_text: str) -> list[dict[str, Any]]:
    """Papers from an arXiv API Atom feed: id, title, authors, summary, published, pdf link."""
    try:
        root = ET.fromstring(xml_text)
    except ET.ParseError as exc:
        raise ToolInputError(f"arXiv returned malformed XML ({exc})") from None
    papers = []
    for entry in root.findall("a:entry", _ATOM):

        def text(tag: str, node: ET.Element = entry) -> str:
            found = node.find(tag, _ATOM)
            return " ".join((found.text or "").split()) if found is not None else ""

        pdf = next(
            (
                link.get("href", "")
                for link in entry.findall("a:link", _ATOM)
                if link.get("title") == "pdf"
            ),
            "",
        )
        papers.append(
            {
                "id": text("a:id"),
                "title": text("a:title"),
                "authors": [text("a:name", a) for a in entry.findall("a:author", _ATOM)],
                "summary": text("a:summary"),
                "published": text("a:published"),
                "pdf": pdf,
            }
        )
    return papers


@tool(
    name="DownloadPapers",
    functionality=(
        "Search arXiv for papers matching keywords and return their titles, authors, "
        "abstracts, dates and PDF links (arXiv API)."
    ),
    inputs=["paper keywords"],
    outputs=["related papers"],
    category="general",
    source="Web API",
    objects=["scientific literature"],
    scenarios=["literature search"],
    network=True,
)
def download_papers(keywords: str, max_results: int = 5) -> list[dict[str, Any]]:
    """Query the arXiv API (Atom feed) for `keywords`."""
    text = " ".join((keywords or "").split())
    if not text:
        raise ToolInputError("empty keywords")
    if not 1 <= max_results <= 50:
        raise ToolInputError("max_results must be between 1 and 50")
    query = " AND ".join(f"all:{word}" for word in text.split())
    response = fetch(
        ARXIV_API,
        service="arXiv",
        params={"search_query": query, "start": 0, "max_results": max_results},
    )
    return parse_arxiv_feed(response.text)
