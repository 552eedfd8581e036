"""Scripted no-tool screens for the tests."""

import re


def _shown(messages):
    user = next(m["content"] for m in messages if m["role"] == "user")
    return dict(re.findall(r"^\(([A-D])\) (.+)$", user, re.MULTILINE))


def knows_value(messages, tools=None, **settings):
    """Answers by value: picks whichever shown letter holds 0.285714."""
    for letter, value in _shown(messages).items():
        if value.strip() == "0.285714":
            return f"The value is 2/7.\nAnswer: {letter}"
    return "I am not sure.\nAnswer: A"


def always_a(messages, tools=None, **settings):
    """A pure letter prior."""
    return "Answer: A"


def mumbles(messages, tools=None, **settings):
    """Never gives a readable choice."""
    return "It depends on the mesh, I would need to run the code."


def unavailable(messages, tools=None, **settings):
    """Every call fails, as an API outage or a wrong key does."""
    raise RuntimeError("HTTP 503: service unavailable")


def picks_largest(messages, tools=None, **settings):
    """A readable answer that reasons from the value rank only: the largest value."""
    shown = _shown(messages)
    letter = max(shown, key=lambda k: float(shown[k]))
    return f"The largest looks right.\nAnswer: {letter}"


def slow_largest(messages, tools=None, **settings):
    """`picks_largest` after sleeping $SCIGATE_TEST_SCREEN_SLEEP seconds (a known gate time)."""
    import os
    import time

    time.sleep(float(os.environ.get("SCIGATE_TEST_SCREEN_SLEEP", "0")))
    return picks_largest(messages, tools, **settings)


def knows_value_else_largest(messages, tools=None, **settings):
    """Knows 2/7 = 0.285714; otherwise picks the largest value (deterministic)."""
    if "0.285714" in _shown(messages).values():
        return knows_value(messages, tools, **settings)
    return picks_largest(messages, tools, **settings)
