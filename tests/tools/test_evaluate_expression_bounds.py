"""Every tool call is bounded and `Tool.call` never raises (issue 19, item 8).

`EvaluateExpression` is safe by construction: hostile expressions come back as an error
result in a fraction of a second, never as an exception or minutes of CPU. Light tools in
general get a wall-time bound from `Tool.call` (a thread the caller stops waiting for).
"""

from __future__ import annotations

import math
import time

import pytest

from scigate.tools import _bounded, get_tool, tool
from scigate.tools._bounded import abandoned_calls, limit_override

# The refusals are decided before any arithmetic: their messages say which check refused.
# A time bound on top only catches minutes of CPU, so it is generous (an evaluation takes
# milliseconds; the light-tool time limit that would stop a runaway one is 60 s).
FAST = 5.0
_LOCAL: dict = {}


def _timed_call(expression: str):  # type: ignore[no-untyped-def]
    evaluate = get_tool("EvaluateExpression")  # loading the library is not timed
    start = time.perf_counter()
    result = evaluate.call({"expression": expression})
    return result, time.perf_counter() - start


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("10**4400", "too large (about 10^4400"),  # raised out of Tool.call before
        ("9**9**9", "too large"),
        ("comb(10**7, 5*10**6)", "comb(10000000, 5000000) is too large"),  # ran unbounded
        ("factorial(10**6)", "factorial(1000000) is too large"),
        ("perm(10**7)", "is too large"),
        ("2**-10**6", "too small"),
        ("2**-(10**400)", "too small"),
        ("1.5**(10**999)", "too large"),
        ("1.5 * 10**999", "cannot evaluate"),
        ("(10 ** 999) * 10", "too large"),
        ("(10**500)**3", "too large"),
        ("lcm(10**600 + 1, 10**600 + 3)", "too large"),
        ("round(5, -10**9)", "round's digits"),
        ("(" * 10_000 + "1" + ")" * 10_000, "longer than 2000 characters"),
        ("(" * 900 + "1" + ")" * 900, "cannot parse expression"),
        ("-" * 1999 + "1", "nested more than 100 levels"),
        ("max(" + "1, " * 600 + "1)", "more than 500 parts"),
        ("9" * 1999, "number is too large"),
        ("__import__('os')", "unknown function '__import__'"),
        ("__import__('os').system('true')", "unsupported syntax"),
        ("(1).__class__", "unsupported syntax: Attribute"),
        ("pi.real", "unsupported syntax: Attribute"),
        ("lambda: 1", "unsupported syntax: Lambda"),
        ("[x for x in (1, 2)]", "unsupported syntax"),
        ("'a' * 10**9", "unsupported syntax: Constant"),
        ("round(2.5, ndigits=1)", "without keywords"),
        ("max(*[1, 2])", "unsupported syntax"),
        ("(-8) ** 0.5", "not a real number"),
        ("sqrt(-1)", "cannot evaluate"),
        ("gamma(500)", "cannot evaluate"),
        ("1e999", "not finite"),
        ("1 / 0", "division by zero"),
        ("1 +", "cannot parse expression"),
        ("1\x00", "cannot parse expression"),
    ],
)
def test_hostile_expressions_are_refused_fast_without_raising(
    expression: str, message: str
) -> None:
    result, elapsed = _timed_call(expression)
    assert not result.ok
    assert message in result.error, result.error
    assert elapsed < FAST, f"{expression[:40]!r} took {elapsed:.3f} s"
    assert result.as_dict() == {"ok": False, "error": result.error}


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("2 * (3 + 4)", 14),
        ("2^10", 1024),
        ("-(3 - 5) * 2 % 3", 1),
        ("7 // 2 + 7 % 2", 4),
        ("sqrt(2) * log(e**3)", 3 * math.sqrt(2)),
        ("factorial(5) / 4", 30.0),
        ("factorial(449) // factorial(448)", 449),
        ("comb(1000, 500) % 1000", math.comb(1000, 500) % 1000),
        ("comb(5, 7)", 0),
        ("perm(5, 2) + perm(4)", 44),
        ("lcm(4, 6) + gcd(12, 18)", 18),
        ("2**3321 % 7", pow(2, 3321, 7)),
        ("10**999 // 10**998", 10),
        ("10 ** -5", 1e-05),
        ("0.5 ** 1000", 0.5**1000),
        ("(-2) ** 3", -8),
        ("(-1) ** (10**900)", 1),
        ("1 ** (10**999)", 1),
        ("0 ** 5", 0),
        ("round(3.14159, 2) + round(1234, -2)", 1203.14),
        ("max(1, 2, 3) + min(4, 5) + abs(-1)", 8),
        ("hypot(3, 4) * degrees(pi) / 180", 5.0),
        ("isqrt(10**100)", 10**50),
    ],
)
def test_ordinary_expressions_still_evaluate(expression: str, value: float) -> None:
    result, elapsed = _timed_call(expression)
    assert result.ok, result.error
    assert result.value == pytest.approx(value)
    assert elapsed < FAST


def test_the_largest_allowed_integer_is_displayed() -> None:
    result, _ = _timed_call("10**999")
    assert result.ok and result.display == "1" + "0" * 999
    assert not _timed_call("10**1000")[0].ok


# ---------------------------------------------------------------- Tool.call never raises


class _HostileError(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no message for you")


def _register(name: str, **options):  # type: ignore[no-untyped-def]
    return tool(
        name=name,
        functionality=f"{name} (test tool).",
        inputs=[],
        outputs=["number"],
        category="general",
        source="test",
        registry=_LOCAL,
        **options,
    )


@_register("ExitsTheProcess")
def _exits() -> int:
    raise SystemExit(3)


@_register("InterruptsItself")
def _interrupts() -> int:
    raise KeyboardInterrupt


@_register("RecursesForever")
def _recurses() -> int:
    def again() -> int:
        return again()

    return again()


@_register("RunsOutOfMemory")
def _no_memory() -> int:
    raise MemoryError


@_register("OverflowsAFloat")
def _overflows() -> float:
    return math.exp(10_000)


@_register("ReturnsAHugeInt")
def _huge_int() -> int:
    return 10**5000  # str() of it raises ValueError (the 4300-digit limit)


@_register("RaisesUnprintably")
def _unprintable() -> int:
    raise _HostileError


@_register("SpinsForever")
def _spins() -> int:
    while True:
        pass


@_register("SleepsInC", time_limit=0.1)
def _sleeps_in_c(seconds: float = 0.6) -> float:
    time.sleep(seconds)  # a C call: the stop request lands only when it returns
    return seconds


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("ExitsTheProcess", "tried to exit the process"),
        ("InterruptsItself", "KeyboardInterrupt"),
        ("RecursesForever", "RecursionError"),
        ("RunsOutOfMemory", "MemoryError"),
        ("OverflowsAFloat", "OverflowError"),
        ("ReturnsAHugeInt", "ValueError"),
        ("RaisesUnprintably", "_HostileError: (message not printable)"),
    ],
)
def test_tool_call_turns_every_failure_into_a_result(name: str, message: str) -> None:
    result = _LOCAL[name].call({})
    assert not result.ok and message in result.error, result.error
    assert result.error.startswith(f"{name}: ")


@_register("TakesAnything")
def _takes_anything(data: list) -> int:
    return len(data)


def test_hostile_arguments_are_a_result_too() -> None:
    deep: list = []
    for _ in range(50_000):
        deep = [deep]
    assert not get_tool("DescriptiveStatistics").call({"values": deep}).ok
    # the input-size walk itself recursed out of Tool.call before
    nested = _LOCAL["TakesAnything"].call({"data": deep})
    assert not nested.ok and "RecursionError" in nested.error
    assert not get_tool("EvaluateExpression").call({"expression": 10**5000}).ok


def test_a_light_tool_is_bounded_in_wall_time_and_its_loop_is_stopped() -> None:
    with limit_override(0.3):
        start = time.monotonic()
        result = _LOCAL["SpinsForever"].call({})
        elapsed = time.monotonic() - start
    assert not result.ok and "time limit of 0.3 s exceeded" in result.error
    assert elapsed < 10  # the loop spins forever: only the 0.3 s limit ends the call
    deadline = time.monotonic() + 60  # the abandoned pure-Python loop is stopped too
    while abandoned_calls() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert abandoned_calls() == 0


def test_abandoned_calls_still_running_hold_back_new_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_bounded, "MAX_ABANDONED", 2)
    sleeper = _LOCAL["SleepsInC"]
    first = [sleeper.call({"seconds": 3}) for _ in range(2)]
    assert all(not r.ok and "time limit of 0.1 s" in r.error for r in first)
    refused = sleeper.call({"seconds": 0})
    assert abandoned_calls() == 2  # refused while both still ran: it did not wait for them
    assert not refused.ok and "2 earlier calls ran past their time limit" in refused.error
    deadline = time.monotonic() + 60
    while abandoned_calls() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert sleeper.call({"seconds": 0}).ok


def test_the_time_limit_override_reaches_the_light_tool_thread() -> None:
    seen: list[float] = []

    @tool(
        name="ReportsItsLimit",
        functionality="The time limit in effect inside the body (test tool).",
        inputs=[],
        outputs=["number"],
        category="general",
        source="test",
        registry={},
    )
    def report() -> float:
        seen.append(_bounded.effective_time_limit(None))
        return seen[-1]

    with limit_override(7.5):
        assert report.call({}).value == 7.5
