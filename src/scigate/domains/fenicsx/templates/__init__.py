"""FEniCSx template families and the template generator (whose pool, script worker and
schedule the other domains' template generators share)."""

from ._families import FAMILIES, get_family, render
from ._generator import (
    GENERATOR_ID,
    TemplateGenerator,
    format_value,
    near_rounding_tie,
    run_solution,
)
from ._generator import _Pool as TemplatePool
from ._runner import ScriptWorker
from ._schedule import LETTERS, schedule

__all__ = [
    "FAMILIES",
    "GENERATOR_ID",
    "LETTERS",
    "ScriptWorker",
    "TemplateGenerator",
    "TemplatePool",
    "format_value",
    "get_family",
    "near_rounding_tie",
    "render",
    "run_solution",
    "schedule",
]
