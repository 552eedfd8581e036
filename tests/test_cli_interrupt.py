"""An interrupt (Ctrl-C, or SIGTERM taking its path) that lands while a finalizer runs
is swallowed there by Python ("Exception ignored in ..."), and the run would go on; the
CLI's `sys.unraisablehook` delivers it again to the main thread."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import signal, sys, time
    from scigate import cli
    if {hooked}:
        sys.unraisablehook = cli._redeliver_swallowed_interrupt
    signal.signal(signal.SIGINT, signal.{sigint})  # SIG_IGN: a job started with `&`

    class Finalized:
        def __del__(self):
            raise KeyboardInterrupt  # what a signal handler raises when it lands here

    try:
        Finalized()  # finalized at once: the interrupt is swallowed in __del__
        for _ in range(100):  # the re-delivery comes 0.01 s after the finalizer
            time.sleep(0.01)
        print("went on")
    except KeyboardInterrupt:
        print("interrupted")
    """
)


@pytest.mark.parametrize("sigint", ["SIG_IGN", "default_int_handler"])
@pytest.mark.parametrize("hooked", [True, False], ids=["hooked", "control"])
def test_an_interrupt_swallowed_by_a_finalizer_is_delivered_again(hooked, sigint) -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(hooked=hooked, sigint=sigint)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if hooked:
        assert out.stdout.strip() == "interrupted", out.stderr
        assert "Exception ignored" not in out.stderr
    else:
        assert out.stdout.strip() == "went on"
        assert "Exception ignored" in out.stderr


def test_sigterm_cancels_the_main_task_of_a_cli_coroutine() -> None:
    """With SIGINT ignored (a background job) asyncio's own Ctrl-C handling is off, and
    the CLI's SIGTERM handler raised KeyboardInterrupt inside whichever task ran: the loop
    ended with "Task exception was never retrieved" and a traceback. `run_async` makes
    SIGTERM cancel the main task (which unwinds and marks its run) and raises
    KeyboardInterrupt after it, and leaves the process's SIGTERM handler as it found it."""
    import asyncio
    import os
    import signal

    from scigate.cli import _terminate_as_interrupt
    from scigate.cli._async import run_async

    old_int = signal.signal(signal.SIGINT, signal.SIG_IGN)
    old_term = signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    seen: list[str] = []

    async def run() -> None:
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.sleep(60)
        except BaseException as exc:
            seen.append(type(exc).__name__)
            raise

    try:
        with pytest.raises(KeyboardInterrupt):
            run_async(run())
        assert seen == ["CancelledError"]  # not a KeyboardInterrupt raised inside the task
        assert signal.getsignal(signal.SIGTERM) is _terminate_as_interrupt
    finally:
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)
