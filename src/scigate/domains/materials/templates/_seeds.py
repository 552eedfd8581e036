"""The five expert seed items: hand-chosen structures and traps, one per family and more.

The seed directories under ``materials/seeds`` are package data built from these
parameter sets with the family templates (the same code path as the generator, so the
distractors are computed from realistic mistakes). Rebuild with
``python -m scigate.domains.materials.templates._seeds`` followed by ``ruff format`` on
the seeds directory (formatting does not change any value).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

from . import template_generator
from ._structures import PROTOTYPES

SEED_ROOT = Path(__file__).parent.parent / "seeds"


def _structure(name: str, a: float, c: float | None = None, dopant=None) -> dict[str, Any]:
    proto = PROTOTYPES[name]
    return {
        "prototype": name,
        "sg": proto["sg"],
        "system": proto["system"],
        "a": a,
        "c": c,
        "sites": [[el, list(xyz)] for el, xyz in proto["sites"]],
        "dopant": dopant,
    }


# (name, family, value rank, letter, parameters); ranks and letters are spread on purpose.
SEEDS: list[tuple[str, str, int, str, dict[str, Any]]] = [
    (  # Sn on the Ti site of rutile scatters strongly: occupancy and wavelength both matter
        "seed_01",
        "xrd_pattern",
        2,
        "C",
        {
            **_structure("TiO2", 4.6012, 2.9655, ["Ti", "Sn", 0.2]),
            "wavelength": "CuKa1",
            "range": [10, 110],
            "quantity": "weighted_2theta",
            "decimals": 4,
        },
    ),
    (  # perovskite: the A and B cation charges must not be swapped
        "seed_02",
        "ewald_energy",
        3,
        "A",
        {**_structure("SrTiO3", 3.9052), "oxi": PROTOTYPES["SrTiO3"]["oxi"], "decimals": 4},
    ),
    (  # wurtzite with Mg on the Zn site: occupancy-weighted bond-valence sums
        "seed_03",
        "bond_valence",
        1,
        "D",
        {
            **_structure("ZnO", 3.2498, 5.2066, ["Zn", "Mg", 0.15]),
            "cation": "Zn",
            "radius": 3.2,
            "decimals": 4,
        },
    ),
    (  # fluorite: the fluoride Voronoi cells, a mean over eight sites of the cell
        "seed_04",
        "voronoi_volume",
        4,
        "B",
        {**_structure("CaF2", 5.4631), "element": "F", "decimals": 4},
    ),
    (  # fluorite again: four formula units in the conventional cell, one in the primitive
        "seed_05",
        "ewald_energy",
        2,
        "B",
        {**_structure("CaF2", 5.4631), "oxi": PROTOTYPES["CaF2"]["oxi"], "decimals": 4},
    ),
]


def build_seeds(root: Path = SEED_ROOT) -> list[Path]:
    """(Re)write the seed directories under ``root``."""
    out = []
    with template_generator(seed=0, python=sys.executable, timeout=300) as gen:
        for name, family, rank, letter, params in SEEDS:
            target = root / name
            if target.exists():
                shutil.rmtree(target)
            out.append(
                gen.write_candidate(
                    family,
                    params,
                    rank,
                    letter,
                    target,
                    rng_key=f"scigate-seed:materials:{name}",
                    meta_extra={"seed_item": name},
                )
            )
    return out


if __name__ == "__main__":
    for path in build_seeds():
        print(path)
