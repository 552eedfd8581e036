"""Coroutines run from the command line, with SIGTERM ending them as Ctrl-C does."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Coroutine
from typing import Any


def run_async[T](main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)`, where SIGTERM cancels the main task (which marks its run
    interrupted as it unwinds) and KeyboardInterrupt is raised once that task has ended.

    Without this, the process-wide SIGTERM handler raises KeyboardInterrupt wherever the
    main thread is, which inside a task (a background job, whose SIGINT is ignored, so
    asyncio's own Ctrl-C handling is off) ends the loop with "Task exception was never
    retrieved" and a traceback on stderr.
    """
    if threading.current_thread() is not threading.main_thread():
        return asyncio.run(main)
    signalled = False

    async def guarded() -> T:
        nonlocal signalled
        loop, task = asyncio.get_running_loop(), asyncio.current_task()
        assert task is not None
        previous = signal.getsignal(signal.SIGTERM)

        def on_term() -> None:
            nonlocal signalled
            if not signalled:  # a second SIGTERM while unwinding changes nothing
                signalled = True
                task.cancel()

        loop.add_signal_handler(signal.SIGTERM, on_term)
        try:
            return await main
        finally:
            with contextlib.suppress(RuntimeError):  # a loop already closing
                loop.remove_signal_handler(signal.SIGTERM)
            if previous is not None:  # removal left SIG_DFL behind
                signal.signal(signal.SIGTERM, previous)

    try:
        result = asyncio.run(guarded())
    except asyncio.CancelledError:
        if signalled:
            raise KeyboardInterrupt from None
        raise
    if signalled:  # the coroutine took the cancel and returned: still an interrupt
        raise KeyboardInterrupt
    return result
