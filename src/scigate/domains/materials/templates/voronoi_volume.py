"""Family (d): the mean Voronoi volume of an element's sites (pymatgen's `VoronoiNN`).

Each site's Voronoi polyhedron volume (the sum of the `volume` entries of
`VoronoiNN().get_voronoi_polyhedra`), averaged over the sites of the stated element.
"""

from __future__ import annotations

import random
from typing import Any

from ._common import STRUCTURE_MISTAKES, structure_context, structure_kinds
from ._structures import BUILD, describe, draw_structure

NAME = "voronoi_volume"
TEMPLATE = "voronoi_volume.py.j2"
#: rock salt and CsCl split the cell evenly (a closed form); these do not
NON_TRIVIAL = ["CaF2", "ZnS", "SrTiO3", "TiO2", "SnO2", "ZnO", "GaN"]
MISTAKES = {
    **{k: v for k, v in STRUCTURE_MISTAKES.items() if k != "occupancy_ignored"},
    "per_cell_sum": "the sum over the element's sites in the cell instead of the mean",
    "short_cutoff": "a neighbour cut-off of 3 Å, too short to close the polyhedra",
    "other_element": "the volumes of the other element's sites",
}


def draw_params(rng: random.Random) -> dict[str, Any]:
    """An ordered, non-trivial structure and the element."""
    params = draw_structure(rng, names=NON_TRIVIAL)
    return {**params, "element": rng.choice([el for el, _ in params["sites"]]), "decimals": 4}


def applicable(params: dict[str, Any]) -> list[str]:
    """Mistake kinds that can change the computation."""
    return [*structure_kinds(params), "per_cell_sum", "short_cutoff", "other_element"]


def context(params: dict[str, Any], mistakes: frozenset[str]) -> dict[str, Any]:
    """Jinja context of the solution script, with the given mistakes applied."""
    element = params["element"]
    if "other_element" in mistakes:
        element = next(el for el, _ in params["sites"] if el != element)
    return {
        **structure_context(params, mistakes),
        "element": repr(element),
        "cutoff": 3.0 if "short_cutoff" in mistakes else 13.0,
        "per_cell": "per_cell_sum" in mistakes,
        "decimals": params["decimals"],
    }


def question(params: dict[str, Any]) -> str:
    """Public question text (fully specified; no options)."""
    return (
        f"Take {describe(params)}. {BUILD}. With `VoronoiNN()` (default cut-off 13 Å), "
        f"take the Voronoi polyhedron volume of every {params['element']} site (the sum "
        "of the `volume` entries returned by `get_voronoi_polyhedra`) and report the mean "
        f"over those sites in Å³, to exactly {params['decimals']} decimal places."
    )
