"""Chemistry (RDKit) template families and their generator."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ..._templates import ComputedTemplateGenerator, FamilySet
from . import crippen_contribs, crippen_descriptor, parent_mass, partial_charges

GENERATOR_ID = "scigate.chemistry.templates/1"
#: RDKit scripts take milliseconds: redraw parameters more often than FEniCSx does
MAX_ATTEMPTS = 40
PRELOAD = (
    "rdkit.Chem",
    "rdkit.Chem.AllChem",
    "rdkit.Chem.Descriptors",
    "rdkit.Chem.Crippen",
    "rdkit.Chem.MolStandardize.rdMolStandardize",
)
FAMILIES = FamilySet(
    "chemistry",
    [parent_mass, partial_charges, crippen_descriptor, crippen_contribs],
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
    """The chemistry template generator (all four families by default)."""
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
