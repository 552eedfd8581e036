"""Environment checks before a verb starts: a missing extra or domain stack is one line
naming the install command (`scigate.errors.MissingExtra`, exit status 2), found before
any candidate runs, so it is never reported as a rejected candidate or a traceback."""

from __future__ import annotations

import subprocess
import sys

from scigate.errors import MissingExtra, require_module

# the module whose absence means a domain's software is not installed, and its extra
DOMAIN_STACKS: dict[str, tuple[str, str]] = {"fenicsx": ("dolfinx_solver", "fenicsx")}

# the extra that provides each module a library tool may require
EXTRA_OF_MODULE: dict[str, str] = {
    "rdkit": "chem",
    "py2opsin": "chem",
    "selfies": "chem",
    "Bio": "bio",
    "pymatgen": "materials",
    "dolfinx": "fenicsx",
    "dolfinx_solver": "fenicsx",
    "fastmcp": "mcp",
    "mcp": "mcp",
    "pyarrow": "release",
    "ray": "ray",
}


def require_domain_stack(domain: str, what: str) -> None:
    """`MissingExtra` when `domain`'s software does not import in its interpreter
    (`BadInput` for an unknown domain)."""
    from scigate.domains import get_domain

    python = get_domain(domain).python
    module, extra = DOMAIN_STACKS.get(domain, ("", ""))
    if not module:
        return
    if python == sys.executable:
        require_module(module, extra, what)
        return
    probe = f"import importlib.util,sys; sys.exit(importlib.util.find_spec({module!r}) is None)"
    try:
        found = subprocess.run([python, "-c", probe], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        raise MissingExtra(what, extra, f"{module} (interpreter {python})") from None
    if found.returncode != 0:
        raise MissingExtra(what, extra, f"{module} (interpreter {python})")


def require_tool_modules(requires: list[str], what: str) -> None:
    """`MissingExtra` for the first module of a tool's `requires` that is not installed."""
    for module in requires:
        top = module.split(".")[0]
        require_module(module, EXTRA_OF_MODULE.get(top, "all"), what)
