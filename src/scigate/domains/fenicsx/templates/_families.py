"""Registry of template families and rendering of their solution scripts.

A family is a module with ``NAME``, ``TEMPLATE`` (a Jinja file next to it), ``MISTAKES``
(kind -> description), ``draw_params(rng)``, ``applicable(params)``, ``context(params,
mistakes)`` and ``question(params)``. The correct value and every distractor come from
the same template: a mistake only switches a branch of the rendered script, and the
correct solution is the rendering with no mistakes.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import jinja2

from scigate.errors import BadInput

from . import basix_tabulate, deformed_poisson, mapped_quadrature, nonlinear_punctured

FAMILIES: dict[str, ModuleType] = {
    m.NAME: m for m in (deformed_poisson, nonlinear_punctured, basix_tabulate, mapped_quadrature)
}


def get_family(name: str) -> ModuleType:
    """The family module called ``name`` (BadInput if unknown)."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise BadInput(
            f"unknown fenicsx template family {name!r}; known: {', '.join(FAMILIES)}"
        ) from None


@cache
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(Path(__file__).parent)),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
    )


def render(family: str, params: dict[str, Any], mistakes: frozenset[str] = frozenset()) -> str:
    """Source of the standalone script computing ``family`` at ``params`` with ``mistakes``."""
    module = get_family(family)
    unknown = set(mistakes) - set(module.MISTAKES)
    if unknown:
        raise BadInput(f"unknown mistakes for {family}: {sorted(unknown)}")
    return _env().get_template(module.TEMPLATE).render(**module.context(params, mistakes))
