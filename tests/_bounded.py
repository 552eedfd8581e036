"""Run a call that may block (a FIFO opened, a hung read) without hanging the suite."""

from __future__ import annotations

import threading
from collections.abc import Callable


def bounded(fn: Callable[[], object], seconds: float = 60.0) -> object:
    """Run `fn` in a thread; fail instead of hanging when it blocks past `seconds`."""
    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the test
            box["error"] = exc

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"blocked for more than {seconds} s"
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box.get("value")
