"""Loading the tool library and looking tools up by name."""

from __future__ import annotations

import difflib
import functools
import importlib
import pkgutil

from scigate.errors import BadInput
from scigate.tools._tool import REGISTRY, Tool, cached_schemas

_LOADED: set[str] = set()


SCHEMA_CACHE = "argument-schemas.json"


@functools.cache
def _library_modules() -> tuple[str, ...]:
    """The modules of `scigate.tools.library`, listed once per process: `get_tool` calls
    `load_library` for every lookup (a 200-task bench build: ~200,000 of them), and listing
    the package directory each time was a third of the build's time."""
    from scigate.tools import library

    return tuple(f"{library.__name__}.{i.name}" for i in pkgutil.iter_modules(library.__path__))


def load_library() -> dict[str, Tool]:
    """Import every module of `scigate.tools.library` and return the tool registry.

    The tools' argument schemas come from a disk cache keyed by the library's content
    (`_diskcache`), so a process builds no pydantic model until a tool is called."""
    pending = [name for name in _library_modules() if name not in _LOADED]
    if not pending:
        return REGISTRY
    from scigate.tools import _diskcache

    key = _diskcache.library_key()
    stored = _diskcache.read_json(SCHEMA_CACHE, key)
    schemas = dict(stored) if isinstance(stored, dict) else {}
    known = set(schemas)
    with cached_schemas(schemas):
        for module in pending:
            importlib.import_module(module)
            _LOADED.add(module)
    if set(schemas) != known:
        _diskcache.write_json(SCHEMA_CACHE, key, schemas)
    return REGISTRY


def _by_alias(name: str) -> Tool | None:
    key = name.lower()
    for t in REGISTRY.values():
        if t.name.lower() == key or any(a.lower() == key for a in t.spec.aliases):
            return t
    return None


def get_tool(name: str) -> Tool:
    """The tool called `name` (or declaring it as an alias); `BadInput` with a suggestion if none."""
    tools = load_library()
    if name in tools:
        return tools[name]
    found = _by_alias(name)
    if found is not None:
        return found
    suggestions = difflib.get_close_matches(name, list(tools), n=3, cutoff=0.6)
    if not suggestions:
        lower = {n.lower(): n for n in tools}
        suggestions = [lower[m] for m in difflib.get_close_matches(name.lower(), lower, n=3)]
    hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
    raise BadInput(f"unknown tool {name!r}{hint} (see 'scigate tools list')")


def list_tools(category: str | None = None, available_only: bool = False) -> list[Tool]:
    """Tools sorted by category then name, optionally of one category or only runnable ones."""
    tools = list(load_library().values())
    if category is not None:
        cat = category.lower()
        known = {t.spec.category for t in tools} | {
            "chemistry",
            "biology",
            "materials",
            "fem",
            "general",
        }
        if cat not in known:
            raise BadInput(
                f"unknown category {category!r}; expected one of {', '.join(sorted(known))}"
            )
        tools = [t for t in tools if t.spec.category == cat]
    if available_only:
        tools = [t for t in tools if t.available()]
    return sorted(tools, key=lambda t: (t.spec.category, t.name))
