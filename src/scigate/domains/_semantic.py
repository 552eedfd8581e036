"""Building gate-1b preludes from hook files executed in namespaces of their own."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent
#: what every hook shares, run first in its namespace
COMMON = HERE / "_hook_common.py"
#: what the chemistry and materials dependence hooks share, run after COMMON
DEPENDENCE_COMMON = HERE / "_dependence_common.py"


def hook_prelude(
    directory: Path, var: str, filename: str, install_args: str, *, dependence: bool = False
) -> str:
    """Runner source that executes `directory/filename` in a namespace of its own (so two
    hooks' names cannot clash), after the helpers every hook shares (`_hook_common.py`;
    with `dependence`, also `_dependence_common.py`), and then calls its
    `install(install_args)`."""
    parts = [COMMON, DEPENDENCE_COMMON] if dependence else [COMMON]
    src = "\n\n".join(p.read_text() for p in [*parts, directory / filename])
    return (
        f"{var} = {{'__name__': {var!r}}}\n"
        f"exec(compile({src!r}, {var!r}, 'exec'), {var})\n"
        f"{var}['install']({install_args})\n"
    )
