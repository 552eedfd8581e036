"""FEniCSx template families and the template generator."""

from ._families import FAMILIES, get_family, render
from ._generator import GENERATOR_ID, TemplateGenerator, format_value, run_solution
from ._schedule import schedule

__all__ = [
    "FAMILIES",
    "GENERATOR_ID",
    "TemplateGenerator",
    "format_value",
    "get_family",
    "render",
    "run_solution",
    "schedule",
]
