"""Family (d): the mean Voronoi volume of an element's sites (pymatgen's `VoronoiNN`).

Each site's Voronoi polyhedron volume (the sum of the `volume` entries of its polyhedron
from `VoronoiNN(cutoff=6.0)`), averaged over the sites of the stated element. The solution
tessellates once for all sites (`get_all_voronoi_polyhedra`): a site-by-site call at the
default 13 Å cut-off costs 10-15x more and gives the same volumes for every prototype
drawn here (tested to 1e-9 Å³), so 6 Å is stated in the question.
"""

from __future__ import annotations

import random
from typing import Any

from ._common import STRUCTURE_MISTAKES, structure_context, structure_kinds
from ._structures import BUILD, describe, draw_structure

NAME = "voronoi_volume"
TEMPLATE = "voronoi_volume.py.j2"
#: rock salt and CsCl split the cell evenly (a closed form); these do not
#: the cut-off the question states (Å): it closes every polyhedron of these prototypes
CUTOFF = 6.0
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
        "cutoff": 3.0 if "short_cutoff" in mistakes else CUTOFF,
        "per_cell": "per_cell_sum" in mistakes,
        "decimals": params["decimals"],
    }


def question(params: dict[str, Any]) -> str:
    """Public question text (fully specified; no options)."""
    return (
        f"Take {describe(params)}. {BUILD}. With pymatgen's `VoronoiNN(cutoff={CUTOFF})` "
        f"(a {CUTOFF:g} Å neighbour cut-off), take the Voronoi polyhedron volume of every "
        f"{params['element']} site (the sum of the `volume` entries of the site's "
        "polyhedron, as `get_voronoi_polyhedra` or `get_all_voronoi_polyhedra` return it) "
        f"and report the mean over those sites in Å³, to exactly {params['decimals']} "
        "decimal places."
    )
