"""Family (b): the Ewald electrostatic energy per formula unit (pymatgen's `EwaldSummation`).

Formal oxidation states as stated, ordered structures; the energy of the conventional
cell divided by its number of formula units.
"""

from __future__ import annotations

import random
from typing import Any

from ._common import STRUCTURE_MISTAKES, structure_context, structure_kinds
from ._structures import BUILD, PROTOTYPES, describe, draw_structure

NAME = "ewald_energy"
TEMPLATE = "ewald_energy.py.j2"
MISTAKES = {
    **{k: v for k, v in STRUCTURE_MISTAKES.items() if k != "occupancy_ignored"},
    "wrong_oxidation": "other oxidation states than the question states (e.g. charges of a "
    "monovalent prototype, cations swapped)",
    "per_cell": "energy of the whole conventional cell, not per formula unit",
    "primitive_cell": "energy of the primitive cell divided by the conventional cell's "
    "number of formula units",
}


def draw_params(rng: random.Random) -> dict[str, Any]:
    """An ordered structure and its formal oxidation states."""
    params = draw_structure(rng)
    return {**params, "oxi": PROTOTYPES[params["prototype"]]["oxi"], "decimals": 4}


def applicable(params: dict[str, Any]) -> list[str]:
    """Mistake kinds that can change the computation."""
    return [*structure_kinds(params), "wrong_oxidation", "per_cell", "primitive_cell"]


def context(params: dict[str, Any], mistakes: frozenset[str]) -> dict[str, Any]:
    """Jinja context of the solution script, with the given mistakes applied."""
    oxi = params["oxi"]
    if "wrong_oxidation" in mistakes:
        oxi = PROTOTYPES[params["prototype"]]["wrong_oxi"]
    return {
        **structure_context(params, mistakes),
        "oxi": repr(oxi),
        "per_cell": "per_cell" in mistakes,
        "primitive": "primitive_cell" in mistakes,
        "decimals": params["decimals"],
    }


def question(params: dict[str, Any]) -> str:
    """Public question text (fully specified; no options)."""
    oxi = ", ".join(f"{el} {q:+g}" for el, q in params["oxi"].items())
    return (
        f"Take {describe(params)}. {BUILD} and assign the formal oxidation states {oxi} "
        "(`add_oxidation_state_by_element`). Compute the Ewald electrostatic energy with "
        "`EwaldSummation` (default accuracy and cut-offs) and report it per formula unit, "
        f"in eV, to exactly {params['decimals']} decimal places."
    )
