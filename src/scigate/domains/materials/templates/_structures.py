"""Crystal prototypes the materials families draw from: space group, lattice, Wyckoff
sites, the formal oxidation states, a realistic wrong assignment, and a substituent for
partial occupancy."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

#: name -> prototype; lattice parameters in Å (experimental, room temperature)
PROTOTYPES: dict[str, dict[str, Any]] = {
    "NaCl": {
        "sg": "Fm-3m", "system": "cubic", "a": 5.640,
        "sites": [["Na", [0, 0, 0]], ["Cl", [0.5, 0.5, 0.5]]],
        "oxi": {"Na": 1, "Cl": -1}, "wrong_oxi": {"Na": 0.5, "Cl": -0.5}, "dopant": ["Na", "K"],
    },
    "MgO": {
        "sg": "Fm-3m", "system": "cubic", "a": 4.212,
        "sites": [["Mg", [0, 0, 0]], ["O", [0.5, 0.5, 0.5]]],
        "oxi": {"Mg": 2, "O": -2}, "wrong_oxi": {"Mg": 1, "O": -1}, "dopant": ["Mg", "Ni"],
    },
    "CsCl": {
        "sg": "Pm-3m", "system": "cubic", "a": 4.123,
        "sites": [["Cs", [0, 0, 0]], ["Cl", [0.5, 0.5, 0.5]]],
        "oxi": {"Cs": 1, "Cl": -1}, "wrong_oxi": {"Cs": 0.5, "Cl": -0.5}, "dopant": ["Cl", "Br"],
    },
    "CaF2": {
        "sg": "Fm-3m", "system": "cubic", "a": 5.463,
        "sites": [["Ca", [0, 0, 0]], ["F", [0.25, 0.25, 0.25]]],
        "oxi": {"Ca": 2, "F": -1}, "wrong_oxi": {"Ca": 1, "F": -0.5}, "dopant": ["Ca", "Sr"],
    },
    "ZnS": {
        "sg": "F-43m", "system": "cubic", "a": 5.410,
        "sites": [["Zn", [0, 0, 0]], ["S", [0.25, 0.25, 0.25]]],
        "oxi": {"Zn": 2, "S": -2}, "wrong_oxi": {"Zn": 1, "S": -1}, "dopant": ["Zn", "Cd"],
    },
    "SrTiO3": {
        "sg": "Pm-3m", "system": "cubic", "a": 3.905,
        "sites": [["Sr", [0, 0, 0]], ["Ti", [0.5, 0.5, 0.5]], ["O", [0.5, 0.5, 0]]],
        "oxi": {"Sr": 2, "Ti": 4, "O": -2}, "wrong_oxi": {"Sr": 4, "Ti": 2, "O": -2},
        "dopant": ["Sr", "Ba"],
    },
    "TiO2": {
        "sg": "P4_2/mnm", "system": "tetragonal", "a": 4.594, "c": 2.959,
        "sites": [["Ti", [0, 0, 0]], ["O", [0.3053, 0.3053, 0]]],
        "oxi": {"Ti": 4, "O": -2}, "wrong_oxi": {"Ti": 2, "O": -1}, "dopant": ["Ti", "Sn"],
    },
    "SnO2": {
        "sg": "P4_2/mnm", "system": "tetragonal", "a": 4.737, "c": 3.186,
        "sites": [["Sn", [0, 0, 0]], ["O", [0.3056, 0.3056, 0]]],
        "oxi": {"Sn": 4, "O": -2}, "wrong_oxi": {"Sn": 2, "O": -1}, "dopant": ["Sn", "Ti"],
    },
    "ZnO": {
        "sg": "P6_3mc", "system": "hexagonal", "a": 3.250, "c": 5.207,
        "sites": [["Zn", [1 / 3, 2 / 3, 0]], ["O", [1 / 3, 2 / 3, 0.3819]]],
        "oxi": {"Zn": 2, "O": -2}, "wrong_oxi": {"Zn": 1, "O": -1}, "dopant": ["Zn", "Mg"],
    },
    "GaN": {
        "sg": "P6_3mc", "system": "hexagonal", "a": 3.189, "c": 5.185,
        "sites": [["Ga", [1 / 3, 2 / 3, 0]], ["N", [1 / 3, 2 / 3, 0.377]]],
        "oxi": {"Ga": 3, "N": -3}, "wrong_oxi": {"Ga": 1, "N": -1}, "dopant": ["Ga", "In"],
    },
}  # fmt: skip


def draw_structure(
    rng: random.Random, *, names: list[str] | None = None, doped: bool = False
) -> dict[str, Any]:
    """A prototype with lattice parameters as measured on one sample (within 1.5 % of
    the tabulated ones) and, when `doped`, one site partially substituted."""
    name = rng.choice(sorted(names or PROTOTYPES))
    proto = PROTOTYPES[name]
    out: dict[str, Any] = {
        "prototype": name,
        "sg": proto["sg"],
        "system": proto["system"],
        "a": round(proto["a"] * rng.uniform(0.985, 1.015), 4),
        "c": round(proto["c"] * rng.uniform(0.985, 1.015), 4) if "c" in proto else None,
        "sites": [[el, list(xyz)] for el, xyz in proto["sites"]],
        "dopant": None,
    }
    if doped:
        host, dopant = proto["dopant"]
        out["dopant"] = [host, dopant, rng.choice((0.1, 0.15, 0.2, 0.25, 0.3))]
    return out


def species(params: dict[str, Any], *, occupancy: bool = True) -> list[Any]:
    """The species list for `Structure.from_spacegroup` (a dict for a substituted site;
    `occupancy=False`: the substituent dropped, the host at full occupancy)."""
    out: list[Any] = []
    for el, _ in params["sites"]:
        dop = params.get("dopant")
        if occupancy and dop and dop[0] == el:
            out.append({el: round(1 - dop[2], 4), dop[1]: dop[2]})
        else:
            out.append(el)
    return out


def _frac(x: float) -> str:
    """A coordinate as written in tables: 1/3 rather than 0.333333."""
    f = Fraction(x).limit_denominator(12)
    return str(f) if abs(float(f) - x) < 1e-9 and f.denominator in (3, 6) else f"{x:g}"


def describe(params: dict[str, Any]) -> str:
    """The structure in words: space group, lattice, Wyckoff sites, substitution."""
    lat = f"a = {params['a']} Å" + (f", c = {params['c']} Å" if params["c"] else "")
    sites = "; ".join(
        f"{el} at ({', '.join(_frac(x) for x in xyz)})" for el, xyz in params["sites"]
    )
    text = (
        f"{params['prototype']} in space group {params['sg']} ({params['system']}, {lat}), "
        f"with the symmetry-distinct sites in fractional coordinates of the conventional "
        f"cell: {sites}"
    )
    dop = params.get("dopant")
    if dop:
        text += (
            f". The {dop[0]} site is randomly substituted: occupancy {round(1 - dop[2], 4)} "
            f"{dop[0]} and {dop[2]} {dop[1]}"
        )
    return text


BUILD = (
    "Build it with pymatgen (`Structure.from_spacegroup`, fractional coordinates, "
    "conventional cell)"
)
