"""Running the `scigate` entry point in-process from tests."""

from __future__ import annotations

import contextlib
import io
import signal


def run_main(*argv: str) -> tuple[int, str, str]:
    """Run the entry point in-process; return (exit status, stdout, stderr)."""
    from scigate.cli import main

    out, err = io.StringIO(), io.StringIO()
    saved = signal.getsignal(signal.SIGTERM)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(list(argv))
                code = 0
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        signal.signal(signal.SIGTERM, saved)
    return code, out.getvalue(), err.getvalue()


def interruptible() -> None:
    """`preexec_fn` of a child the test interrupts: SIGINT delivered and handled as in a
    shell, whatever the test worker's own signal mask and disposition (a child inherits
    both; a worker thread of another test's library may have left SIGINT blocked)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    signal.signal(signal.SIGINT, signal.SIG_DFL)
