"""Inside the sandbox only: helpers every gate-1b hook uses.

Not imported by scigate: `hook_prelude` puts this text in front of a hook's own text,
and both run in the hook's namespace, so each hook keeps its names to itself."""

import contextlib
import os
import sys


def _from_script(depth=2):
    """True when the call `depth` frames up comes from the script's own code (`__main__`):
    the library's modules calling each other are left alone."""
    try:
        return sys._getframe(depth).f_globals.get("__name__") == "__main__"
    except ValueError:
        return False


def _like(fn, wrapper):
    # the original's identity, without functools.wraps' __wrapped__ (a way back to it)
    for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
        with contextlib.suppress(AttributeError, TypeError):
            setattr(wrapper, attr, getattr(fn, attr))
    return wrapper


def _emit(text):
    """One report line for the gate, `MARKER token text`, on the hook's private copy of
    stderr (`_channel["fd"]`), unless the hook is its own sham (`_channel["active"]`
    false). A closed channel loses the report: without `done:` the gate decides nothing."""
    if not _channel.get("active", True):  # noqa: F821 - the hook defines it
        return
    tok = _channel["token"]  # noqa: F821
    line = f"{MARKER} {tok} {text}\n" if tok else f"{MARKER} {text}\n"  # noqa: F821
    with contextlib.suppress(OSError):
        os.write(_channel["fd"], line.encode("utf-8", "replace"))  # noqa: F821
