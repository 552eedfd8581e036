"""The `scigate` command line: doctor, gate, tools, agent and bench verb groups."""

from __future__ import annotations

import _thread
import os
import signal
import sys
import threading

import typer

try:  # typer >= 0.20 vendors click as typer._click
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover - older typer uses click itself
    from click import exceptions as click_exceptions  # type: ignore[no-redef]  # the fallback of the import above

from scigate._secrets import RedactingStream
from scigate.cli._app import app, show_error
from scigate.errors import ScigateError

__all__ = ["app", "main"]


def _terminate_as_interrupt(signum: int, frame: object) -> None:
    """SIGTERM takes the Ctrl-C path, so a run marks itself interrupted before exiting.

    A background job started from a script has SIGINT ignored; it still ends as interrupted.
    """
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        raise KeyboardInterrupt
    os.kill(os.getpid(), signal.SIGINT)


def _redeliver_swallowed_interrupt(args: sys.UnraisableHookArgs) -> None:
    """`sys.unraisablehook`: a Ctrl-C or SIGTERM that landed while a finalizer ran (a
    `__del__`, a weakref callback) is swallowed there with an "Exception ignored"
    traceback, and the run would go on. Deliver it again to the main thread instead."""
    if isinstance(args.exc_value, KeyboardInterrupt):
        if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL):
            signal.signal(signal.SIGINT, signal.default_int_handler)
        # from another thread, a moment later: called here, the main thread would raise
        # it at once, still inside the finalizer (where it is swallowed again, and then
        # comes back here: it lands eventually)
        later = threading.Timer(0.01, _thread.interrupt_main)
        later.daemon = True  # never holds up the interpreter's exit
        later.start()
        return
    sys.__unraisablehook__(args)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app; bad input becomes one line on stderr and exit status 2.

    Everything printed (answers, transcripts, error lines) is redacted of the caller's
    credential values on its way out.
    """
    signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    sys.unraisablehook = _redeliver_swallowed_interrupt
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = RedactingStream(stdout), RedactingStream(stderr)
    try:
        _main(argv)
    finally:
        sys.stdout, sys.stderr = stdout, stderr


def _main(argv: list[str] | None) -> None:
    try:
        code = app(args=argv, prog_name="scigate", standalone_mode=False)
    except click_exceptions.ClickException as exc:  # usage errors: click prints and uses 2
        exc.show()
        sys.exit(exc.exit_code)
    except typer.Abort:
        print("scigate: interrupted", file=sys.stderr)
        sys.exit(130)
    except ScigateError as exc:  # raised outside the command tree (the app shows its own)
        sys.exit(show_error(exc))
    except KeyboardInterrupt:
        print("scigate: interrupted", file=sys.stderr)
        sys.exit(130)
    if code == 130:  # typer turns Ctrl-C (and our SIGTERM) into exit status 130
        print("\nscigate: interrupted", file=sys.stderr)
    sys.exit(code if isinstance(code, int) else 0)
