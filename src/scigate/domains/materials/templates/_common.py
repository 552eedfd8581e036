"""What the materials families share: the structure-building mistakes and their context."""

from __future__ import annotations

from typing import Any

from ._structures import species

STRUCTURE_MISTAKES = {
    "frac_as_cartesian": "fractional coordinates entered as Cartesian (`coords_are_cartesian=True`)",
    "a_c_swapped": "lattice parameters a and c swapped",
    "occupancy_ignored": "site occupancy ignored (the substituent dropped, host at full occupancy)",
}


def structure_kinds(params: dict[str, Any]) -> list[str]:
    """Structure mistakes that can change the computation for these parameters."""
    kinds = ["frac_as_cartesian"]
    if params["c"] is not None:
        kinds.append("a_c_swapped")
    if params.get("dopant"):
        kinds.append("occupancy_ignored")
    return kinds


def structure_context(params: dict[str, Any], mistakes: frozenset[str]) -> dict[str, Any]:
    """Jinja context of the shared structure build (`_structure.py.j2`)."""
    a, c = params["a"], params["c"]
    if "a_c_swapped" in mistakes and c is not None:
        a, c = c, a
    return {
        "system": params["system"],
        "a": repr(a),
        "c": repr(c),
        "sg": repr(params["sg"]),
        "species": repr(species(params, occupancy="occupancy_ignored" not in mistakes)),
        "coords": repr([xyz for _, xyz in params["sites"]]),
        "cartesian": "frac_as_cartesian" in mistakes,
    }
