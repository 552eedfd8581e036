"""Building gate-1b preludes from hook files executed in namespaces of their own."""

from __future__ import annotations

from pathlib import Path


def hook_prelude(directory: Path, var: str, filename: str, install_args: str) -> str:
    """Runner source that executes `directory/filename` in a namespace of its own (so two
    hooks' names cannot clash) and then calls its `install(install_args)`."""
    src = (directory / filename).read_text()
    return (
        f"{var} = {{'__name__': {var!r}}}\n"
        f"exec(compile({src!r}, {var!r}, 'exec'), {var})\n"
        f"{var}['install']({install_args})\n"
    )
