"""The five expert seed items: nonlinear Poisson on a punctured square, hand-chosen variants.

The seed directories under ``fenicsx/seeds`` are package data built from these parameter
sets with the nonlinear_punctured template (same code path as the generator, so the
distractors are computed from realistic mistakes). Rebuild with
``python -m scigate.domains.fenicsx.templates._seeds`` followed by
``ruff format`` on the seeds directory (formatting does not change any value).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from ._generator import TemplateGenerator

SEED_ROOT = Path(__file__).parent.parent / "seeds"

# (name, value rank, letter, parameters); ranks and letters are spread on purpose.
SEEDS: list[tuple[str, int, str, dict[str, Any]]] = [
    (
        "seed_01",
        2,
        "B",
        {  # Neumann flux into the hole, mean of u.
            "n": 20,
            "diagonal": "right",
            "hole": [0.4, 0.6, 0.4, 0.6],
            "c": 1.0,
            "f": [["p", 2.0, 0, 0], ["sxsy", 1.5, 1, 1]],
            "gD": [["p", 0.1, 0, 0], ["p", 0.2, 1, 0], ["p", -0.15, 0, 1]],
            "hole_bc": "neumann",
            "h": [["p", 0.5, 0, 0], ["p", 0.3, 1, 0]],
            "beta": 1.0,
            "u_hole": 0.0,
            "qoi": "int_u",
            "qdeg": 4,
            "decimals": 6,
        },
    ),
    (
        "seed_02",
        3,
        "D",
        {  # Robin condition on an off-centre hole, L2 norm squared.
            "n": 20,
            "diagonal": "right",
            "hole": [0.3, 0.6, 0.4, 0.7],
            "c": 2.0,
            "f": [["p", 3.0, 0, 0], ["p", 1.2, 1, 1], ["cy", -0.8, 1]],
            "gD": [["p", 0.05, 0, 0], ["p", 0.25, 1, 1], ["p", -0.1, 0, 1]],
            "hole_bc": "robin",
            "h": [["p", 0.4, 0, 0], ["p", -0.2, 0, 1]],
            "beta": 2.0,
            "u_hole": 0.0,
            "qoi": "int_u2",
            "qdeg": 5,
            "decimals": 6,
        },
    ),
    (
        "seed_03",
        1,
        "A",
        {  # Robin condition, flux through the hole boundary.
            "n": 20,
            "diagonal": "left",
            "hole": [0.4, 0.6, 0.4, 0.6],
            "c": 1.5,
            "f": [["p", 4.0, 0, 0], ["sx", 2.0, 2]],
            "gD": [["p", 0.25, 1, 0], ["p", 0.1, 1, 1]],
            "hole_bc": "robin",
            "h": [["p", 0.8, 0, 0], ["p", 0.3, 1, 0]],
            "beta": 1.0,
            "u_hole": 0.0,
            "qoi": "hole_flux",
            "qdeg": 4,
            "decimals": 6,
        },
    ),
    (
        "seed_04",
        4,
        "C",
        {  # Dirichlet value on the hole, largest nodal value.
            "n": 20,
            "diagonal": "right",
            "hole": [0.3, 0.7, 0.3, 0.5],
            "c": 0.8,
            "f": [["p", 12.0, 0, 0], ["p", -4.0, 2, 0], ["p", 3.0, 0, 1]],
            "gD": [["p", 0.1, 0, 0], ["p", -0.2, 1, 0], ["p", 0.3, 1, 1]],
            "hole_bc": "dirichlet",
            "h": [["p", 0.0, 0, 0]],
            "beta": 1.0,
            "u_hole": 0.2,
            "qoi": "max_nodal",
            "qdeg": 4,
            "decimals": 6,
        },
    ),
    (
        "seed_05",
        3,
        "B",
        {  # Trigonometric forcing, Neumann hole, weighted Dirichlet energy.
            "n": 20,
            "diagonal": "left",
            "hole": [0.2, 0.5, 0.5, 0.8],
            "c": 2.5,
            "f": [["p", 2.0, 0, 0], ["sxsy", 1.5, 1, 2]],
            "gD": [["p", 0.2, 1, 0], ["p", 0.1, 0, 1]],
            "hole_bc": "neumann",
            "h": [["p", -0.4, 0, 0], ["p", 0.6, 0, 1]],
            "beta": 1.0,
            "u_hole": 0.0,
            "qoi": "energy",
            "qdeg": 6,
            "decimals": 6,
        },
    ),
]


def build_seeds(root: Path = SEED_ROOT) -> list[Path]:
    """(Re)write the seed directories under ``root``."""
    out = []
    with TemplateGenerator(seed=0) as gen:
        for name, rank, letter, params in SEEDS:
            target = root / name
            if target.exists():
                shutil.rmtree(target)
            out.append(
                gen.write_candidate(
                    "nonlinear_punctured",
                    params,
                    rank,
                    letter,
                    target,
                    rng_key=f"scigate-seed:{name}",
                    generator="expert-seed",
                    meta_extra={"seed_item": name},
                )
            )
    return out


if __name__ == "__main__":
    for path in build_seeds():
        print(path)
