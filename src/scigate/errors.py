"""Errors that every layer shares.

`BadInput` is the one exception the CLI turns into a single line on stderr and exit
status 2: unknown provider, malformed spec, missing directory, malformed candidate,
unreadable file. Raise it with a message a user can act on; never a traceback.
"""


class ScigateError(Exception):
    """Base class of scigate's own errors."""


class BadInput(ScigateError):
    """The user's input (a spec, a path, a candidate, an argument) cannot be used."""


class MissingExtra(BadInput):
    """A package of an optional extra (or a domain's software stack) is not installed: an
    environment error, reported as one line naming the install command (exit status 2),
    never as a rejected candidate or a traceback."""

    def __init__(self, what: str, extra: str, module: str) -> None:
        self.what, self.extra, self.module = what, extra, module
        super().__init__(
            f"{what} needs the '{extra}' extra ({module} is not installed): "
            f"{install_command(extra)}"
        )


def install_command(extra: str) -> str:
    """The command that installs `extra` the way scigate itself was installed:
    ``pip install 'scigate[chem]'`` for a wheel, ``pip install -e '.[chem]'`` (the checkout's
    path when elsewhere than the current directory) for an editable install or a checkout."""
    import json
    import os
    from importlib import metadata
    from pathlib import Path
    from urllib.parse import unquote, urlparse

    root: str | None = None
    try:
        raw = metadata.distribution("scigate").read_text("direct_url.json")
        info = json.loads(raw) if raw else {}
        if info.get("dir_info", {}).get("editable"):
            root = unquote(urlparse(info.get("url", "")).path) or None
    except (metadata.PackageNotFoundError, ValueError):  # run from a checkout's src/
        here = Path(__file__).resolve().parents[2]
        root = str(here) if (here / "pyproject.toml").is_file() else None
    if root is None:
        return f"pip install 'scigate[{extra}]'"
    shown = "." if Path(root).resolve() == Path(os.getcwd()).resolve() else root
    return f"pip install -e '{shown}[{extra}]'"


def require_module(module: str, extra: str, what: str) -> None:
    """`MissingExtra` unless `module` can be imported (checked without importing it)."""
    import importlib.util

    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or a None in sys.modules
        found = False
    if not found:
        raise MissingExtra(what, extra, module)


class BadValue(BadInput):
    """A configuration field holds a value outside its declared range (`scigate._bounds`).

    The message names the library's field (``rounds must be at least 0, got -1``); the CLI's
    one error path shows it under the flag that sets the field."""

    def __init__(self, field: str, reason: str) -> None:
        self.field, self.reason = field, reason
        super().__init__(f"{field} {reason}")


class RunStopped(ScigateError):
    """A run stopped cleanly before its end at a limit the user set (a budget): not a
    failure of its work. The CLI prints what stopped it and exits with status 3; what
    finished is kept, and ``--resume`` continues."""

    exit_code = 3


class BudgetExceeded(RunStopped):
    """The next model call could pass a budget of the run (``--max-cost``,
    ``--max-tokens`` or ``--max-calls``), so it was not sent."""

    def __init__(self, budget: str, message: str, spent: dict[str, float]) -> None:
        self.budget, self.spent = budget, spent
        super().__init__(message)
