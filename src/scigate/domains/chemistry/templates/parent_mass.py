"""Family (a): the masses of the neutral parents of supplied salts, summed.

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
    return kinds + (["non_isomeric"] if any("[2H]" in s for s in params["smiles"]) else [])


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
        "monoisotopic mass (most abundant isotope of each element, labelled atoms at their "
        "isotope; `Descriptors.ExactMolWt`)"
        if params["mass"] == "monoisotopic"
        else "average mass (standard atomic weights, labelled atoms at their isotope; "
        "`Descriptors.MolWt`)"
    )
    return (
        f"Take {supplied(params)}. {PREPARATION}. Sum, over the neutral parents, the {kind} "
        "with every hydrogen counted. Report the sum in Da to exactly "
        f"{params['decimals']} decimal places."
    )
