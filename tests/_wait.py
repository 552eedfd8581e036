"""Waiting in tests for something to happen, never for a time that is "usually" enough.

`wait_until` polls a condition until it holds, with a deadline far beyond what the event
should take (a loaded machine slows everything; a deadline only decides when a test that
is going to fail anyway gives up). A test that needs to know that something did *not*
happen waits for an event that must come after it instead (the order of events), not
for a sleep.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

#: the deadline of a wait for something that takes well under a second on an idle machine
DEADLINE = 60.0


def wait_until[T](
    condition: Callable[[], T],
    *,
    timeout: float = DEADLINE,
    interval: float = 0.01,
    message: str | Callable[[], str] = "the condition never held",
) -> T:
    """Poll `condition` until it returns something truthy and return that; fail the
    test with `message` when `timeout` seconds pass first."""
    end = time.monotonic() + timeout
    while True:
        got = condition()
        if got:
            return got
        if time.monotonic() > end:
            text = message() if callable(message) else message
            raise AssertionError(f"{text} (waited {timeout:g} s)")
        time.sleep(interval)


async def await_until[T](
    condition: Callable[[], T],
    *,
    timeout: float = DEADLINE,
    interval: float = 0.01,
    message: str | Callable[[], str] = "the condition never held",
) -> T:
    """`wait_until` for async tests: polls without blocking the event loop."""
    end = time.monotonic() + timeout
    while True:
        got = condition()
        if got:
            return got
        if time.monotonic() > end:
            text = message() if callable(message) else message
            raise AssertionError(f"{text} (waited {timeout:g} s)")
        await asyncio.sleep(interval)
