"""Family (a): the mass of the neutral parent of a supplied salt.

Monoisotopic or average mass of the neutral parent with every hydrogen counted and
isotope labels honoured: the sum of its atoms' masses (what `Descriptors.ExactMolWt` /
`Descriptors.MolWt` give).
"""

from __future__ import annotations

import random
from typing import Any

from ._common import PARENT_MISTAKES, PREPARATION, draw_molecule, parent_context, supplied

NAME = "parent_mass"
TEMPLATE = "parent_mass.py.j2"
MISTAKES = {
    **PARENT_MISTAKES,
    "other_mass": "average and monoisotopic masses confused",
    "implicit_h": "implicit hydrogens not counted (atom masses summed without Chem.AddHs)",
    "non_isomeric": "canonicalised through a non-isomeric SMILES, which drops isotope labels "
    "and stereo",
}


def draw_params(rng: random.Random) -> dict[str, Any]:
    """A molecule and the kind of mass."""
    return {**draw_molecule(rng), "mass": rng.choice(("monoisotopic", "average")), "decimals": 4}


def applicable(params: dict[str, Any]) -> list[str]:
    """Mistake kinds that can change the computation."""
    kinds = ["salt_kept", "first_fragment", "charged", "other_mass", "implicit_h"]
    return kinds + (["non_isomeric"] if "[2H]" in params["smiles"] else [])


def context(params: dict[str, Any], mistakes: frozenset[str]) -> dict[str, Any]:
    """Jinja context of the solution script, with the given mistakes applied."""
    average = (params["mass"] == "average") != ("other_mass" in mistakes)
    return {
        **parent_context(params, mistakes),
        "average": average,
        "implicit_h": "implicit_h" in mistakes,
        "non_isomeric": "non_isomeric" in mistakes,
        "decimals": params["decimals"],
    }


def question(params: dict[str, Any]) -> str:
    """Public question text (fully specified; no options)."""
    kind = (
        "monoisotopic mass (each atom at the mass of its most abundant isotope, or of the "
        "isotope it is labelled with; RDKit's `Descriptors.ExactMolWt`)"
        if params["mass"] == "monoisotopic"
        else "average molecular mass (standard atomic weights, labelled atoms at their "
        "isotope's mass; RDKit's `Descriptors.MolWt`)"
    )
    return (
        f"A vendor supplies {supplied(params)}. {PREPARATION}. Compute the {kind} of this "
        "neutral parent in daltons, with every hydrogen counted and isotope labels kept. "
        f"Report it rounded to exactly {params['decimals']} decimal places."
    )
