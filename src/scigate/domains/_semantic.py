"""Building gate-1b preludes from hook files executed in namespaces of their own."""

from __future__ import annotations

from pathlib import Path

COMMON = Path(__file__).with_name("_hook_common.py")


def hook_prelude(directory: Path, var: str, filename: str, install_args: str) -> str:
    """Runner source that executes `directory/filename` in a namespace of its own (so two
    hooks' names cannot clash), after the helpers every hook shares (`_hook_common.py`),
    and then calls its `install(install_args)`."""
    src = COMMON.read_text() + "\n\n" + (directory / filename).read_text()
    return (
        f"{var} = {{'__name__': {var!r}}}\n"
        f"exec(compile({src!r}, {var!r}, 'exec'), {var})\n"
        f"{var}['install']({install_args})\n"
    )
