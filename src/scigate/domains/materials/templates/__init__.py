"""Materials (pymatgen) template families and their generator."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..._templates import ComputedTemplateGenerator, FamilySet
from . import bond_valence, ewald_energy, voronoi_volume, xrd_pattern

GENERATOR_ID = "scigate.materials.templates/1"
MAX_ATTEMPTS = 20
PRELOAD = (
    "pymatgen.core",
    "pymatgen.analysis.diffraction.xrd",
    "pymatgen.analysis.ewald",
    "pymatgen.analysis.bond_valence",
    "pymatgen.analysis.local_env",
    # a file the worker runs once: pymatgen's space groups built once per worker, not per script
    str(Path(__file__).with_name("_keep_space_groups.py")),
)
FAMILIES = FamilySet(
    "materials",
    [xrd_pattern, ewald_energy, bond_valence, voronoi_volume],
    Path(__file__).parent,
)


def template_generator(
    seed: int = 0,
    families: Sequence[str] | None = None,
    *,
    python: str,
    timeout: float,
    check_solution: bool = True,
) -> ComputedTemplateGenerator:
    """The materials template generator (all four families by default)."""
    return ComputedTemplateGenerator(
        FAMILIES,
        generator_id=GENERATOR_ID,
        preload=PRELOAD,
        seed=seed,
        families=families,
        python=python,
        timeout=timeout,
        check_solution=check_solution,
        max_attempts=MAX_ATTEMPTS,
    )


__all__ = ["FAMILIES", "GENERATOR_ID", "PRELOAD", "template_generator"]
