"""Inside the sandbox only: helpers every chemistry and materials gate-1b hook uses.

Not imported by scigate: `hook_prelude` puts this text in front of a hook's own text,
and both run in the hook's namespace, so each hook keeps its names to itself."""

import contextlib
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
