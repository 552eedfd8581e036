"""Errors that every layer shares.

`BadInput` is the one exception the CLI turns into a single line on stderr and exit
status 2: unknown provider, malformed spec, missing directory, malformed candidate,
unreadable file. Raise it with a message a user can act on; never a traceback.
"""


class ScigateError(Exception):
    """Base class of scigate's own errors."""


class BadInput(ScigateError):
    """The user's input (a spec, a path, a candidate, an argument) cannot be used."""
