"""The heavy-tool worker process: serves calls sent by `_bounded.WorkerPool` over its pipes.

Started as ``python -c ... worker_main(warm=[modules])``: it imports the modules of the
heavy tools the pool has run (RDKit and the like load once, before the first call is
timed), then answers ``(module, qualname, name, kwargs)`` jobs until the pipe closes.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
from typing import Any

from scigate.tools._bounded import recv_message, send_message
from scigate.tools._library import load_library
from scigate.tools._tool import REGISTRY, Tool, ToolInputError, _jsonable, format_value


@functools.lru_cache(maxsize=1024)
def _resolve(module: str, qualname: str, tool_name: str) -> Any:
    """The function behind a tool, found again inside the worker (cached per worker)."""
    if "<locals>" not in qualname:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part, None)
        if isinstance(obj, Tool):
            return obj.fn
        if callable(obj):
            return obj
    load_library()
    if tool_name in REGISTRY:
        return REGISTRY[tool_name].fn
    raise LookupError(f"tool {tool_name!r} cannot be found in a worker process")


def worker_main(fd_in: int = 0, fd_out: int | None = None, warm: list[str] | None = None) -> None:
    """Serve calls until the parent closes the pipe: (module, qualname, name, kwargs).

    `warm`: modules to import before saying ready (the heavy tools' modules)."""

    if fd_out is None:
        # replies go to the original stdout; anything a tool prints goes to stderr instead
        fd_out = os.dup(1)
        os.dup2(2, 1)
    for module in warm or []:
        with contextlib.suppress(ImportError):
            importlib.import_module(module)
    send_message(fd_out, ("ready",))
    while True:
        try:
            module, qualname, tool_name, kwargs = recv_message(fd_in)
        except (EOFError, OSError, KeyboardInterrupt):
            return
        try:
            fn = _resolve(module, qualname, tool_name)
        except Exception as exc:
            send_message(fd_out, ("error", f"{type(exc).__name__}: {exc}"))
            continue
        # importing the tool's module is not charged to the call's time limit
        send_message(fd_out, ("started",))
        try:
            value = fn(**kwargs)
            reply: tuple[Any, ...] = ("ok", _jsonable(value), format_value(value))
        except ToolInputError as exc:
            reply = ("input", str(exc))
        except ImportError as exc:
            reply = ("import", str(exc.name or exc))
        except BaseException as exc:  # a body's sys.exit() too: report it, keep serving
            reply = ("error", _describe(exc))
        try:
            send_message(fd_out, reply)
        except (EOFError, OSError):
            return


def _describe(exc: BaseException) -> str:
    try:
        text = str(exc)[:500]
    except BaseException:  # an int too long to print, a hostile __str__
        text = "(message not printable)"
    return f"{type(exc).__name__}: {text}"
