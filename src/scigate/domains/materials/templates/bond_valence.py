"""Family (c): the mean bond-valence sum of a cation (pymatgen's bond-valence tools).

Brown's bond-valence sums over the neighbours within a stated radius, averaged over the
cation's sites; occupancy-weighted (`calculate_bv_sum_unordered`).
"""

from __future__ import annotations

import random
from typing import Any

from ._common import STRUCTURE_MISTAKES, structure_context, structure_kinds
from ._structures import BUILD, describe, draw_structure

NAME = "bond_valence"
TEMPLATE = "bond_valence.py.j2"
MISTAKES = {
    **STRUCTURE_MISTAKES,
    "short_radius": "neighbour radius 2.6 Å (a common default) instead of the stated one",
    "first_site_only": "the first site of the cation taken instead of the mean over its sites",
}


def draw_params(rng: random.Random) -> dict[str, Any]:
    """A (possibly substituted) structure, the cation and the neighbour radius."""
    params = draw_structure(rng, doped=rng.random() < 0.5)
    return {
        **params,
        "cation": params["sites"][0][0],
        "radius": rng.choice((3.2, 3.4, 3.6)),
        "decimals": 4,
    }


def applicable(params: dict[str, Any]) -> list[str]:
    """Mistake kinds that can change the computation."""
    return [*structure_kinds(params), "short_radius", "first_site_only"]


def context(params: dict[str, Any], mistakes: frozenset[str]) -> dict[str, Any]:
    """Jinja context of the solution script, with the given mistakes applied."""
    return {
        **structure_context(params, mistakes),
        "cation": repr(params["cation"]),
        "radius": repr(2.6 if "short_radius" in mistakes else params["radius"]),
        "first_only": "first_site_only" in mistakes,
        "decimals": params["decimals"],
    }


def question(params: dict[str, Any]) -> str:
    """Public question text (fully specified; no options)."""
    return (
        f"Take {describe(params)}. {BUILD}. For every site holding {params['cation']}, "
        "compute the bond-valence sum over its neighbours within "
        f"{params['radius']} Å (`structure.get_neighbors(site, {params['radius']})`, "
        "`calculate_bv_sum_unordered`, which weights partially occupied sites by their "
        f"occupancies). Report the mean over those sites to exactly {params['decimals']} decimal "
        "places."
    )
