"""Building gate-1b preludes from hook files executed in namespaces of their own."""

from __future__ import annotations

import functools
import importlib.util
import marshal
from pathlib import Path

HERE = Path(__file__).parent
#: what every hook shares, run first in its namespace
COMMON = HERE / "_hook_common.py"
#: what the chemistry and materials dependence hooks share, run after COMMON
DEPENDENCE_COMMON = HERE / "_dependence_common.py"


def hook_prelude(
    directory: Path,
    var: str,
    filename: str,
    install_args: str,
    *,
    dependence: bool = False,
) -> str:
    """Runner source that executes `directory/filename` in a namespace of its own (so two
    hooks' names cannot clash), after the helpers every hook shares (`_hook_common.py`;
    with `dependence`, also `_dependence_common.py`), and then calls its
    `install(install_args)`."""
    src = hook_source(directory / filename, dependence=dependence)
    return (
        f"{var} = {{'__name__': {var!r}}}\n"
        f"exec({compiled_expression(src, var)}, {var})\n"
        f"{var}['install']({install_args})\n"
    )


def hook_source(path: Path, *, dependence: bool = False) -> str:
    """The text a hook file runs as in its namespace: `_hook_common.py` (with
    `dependence`, also `_dependence_common.py`), then the hook's own text."""
    parts = [COMMON, DEPENDENCE_COMMON] if dependence else [COMMON]
    return "\n\n".join(p.read_text() for p in [*parts, path])


@functools.lru_cache(maxsize=64)
def compiled_expression(src: str, filename: str) -> str:
    """A Python expression that evaluates to `src` compiled as `filename`.

    Every gate-1b run used to compile its hooks' 30 kB of source again (about 5 ms of a
    50 ms FEniCSx check run); the expression carries the code compiled once here
    (`marshal`), loaded when the run's interpreter has this one's bytecode magic number,
    and compiled from the source by any other interpreter (a domain may run another).
    """
    blob = marshal.dumps(compile(src, filename, "exec"))
    magic = importlib.util.MAGIC_NUMBER
    return (
        f"(__import__('marshal').loads({blob!r}) "
        f"if __import__('importlib.util').util.MAGIC_NUMBER == {magic!r} "
        f"else compile({src!r}, {filename!r}, 'exec'))"
    )
