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
