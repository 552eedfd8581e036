"""The five expert seed items: hand-chosen molecules and traps, one per family and more.

The seed directories under ``chemistry/seeds`` are package data built from these
parameter sets with the family templates (the same code path as the generator, so the
distractors are computed from realistic mistakes). Rebuild with
``python -m scigate.domains.chemistry.templates._seeds`` followed by
``ruff format`` on the seeds directory (formatting does not change any value).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

from . import template_generator

SEED_ROOT = Path(__file__).parent.parent / "seeds"

# (name, family, value rank, letter, parameters); ranks and letters are spread on purpose.
SEEDS: list[tuple[str, str, int, str, dict[str, Any]]] = [
    (  # isotope labels and a hydrochloride: the monoisotopic mass must keep the CD3 group
        "seed_01",
        "parent_mass",
        4,
        "B",
        {
            "molecules": ["nicotine-d3 hydrochloride", "sodium aspirinate", "paracetamol-d4"],
            "smiles": [
                "Cl.[2H]C([2H])([2H])N1CCC[C@H]1c1cccnc1",
                "[Na+].CC(=O)Oc1ccccc1C(=O)[O-]",
                "[2H]c1c([2H])c(NC(C)=O)c([2H])c([2H])c1O",
            ],
            "mass": "monoisotopic",
            "decimals": 4,
        },
    ),
    (  # triazole nitrogens are aromatic: a Kekulé SMARTS misses them
        "seed_02",
        "partial_charges",
        1,
        "D",
        {
            "molecules": [
                "fluconazole mesylate",
                "histamine dihydrochloride",
                "procaine hydrochloride",
            ],
            "smiles": [
                "CS(=O)(=O)O.OC(Cn1cncn1)(Cn1cncn1)c1ccc(F)cc1F",
                "Cl.Cl.NCCc1c[nH]cn1",
                "Cl.CCN(CC)CCOC(=O)c1ccc(N)cc1",
            ],
            "model": "gasteiger",
            "pattern": "NO",
            "decimals": 4,
        },
    ),
    (  # 2-hydroxypyridine vs 2-pyridone: the canonical tautomer decides the logP
        "seed_03",
        "crippen_descriptor",
        3,
        "A",
        {
            "molecules": ["potassium 2-pyridinolate", "allopurinol sodium", "warfarin sodium"],
            "smiles": [
                "[K+].[O-]c1ccccn1",
                "[Na+].O=c1[n-]cnc2[nH]ncc12",
                "[Na+].CC(=O)CC(c1ccccc1)c1c([O-])c2ccccc2oc1=O",
            ],
            "descriptor": "MolLogP",
            "include_s_and_p": None,
            "decimals": 4,
        },
    ),
    (  # a sulfate salt: the counter-ion's oxygens must not be selected
        "seed_04",
        "crippen_contribs",
        2,
        "C",
        {
            "molecules": [
                "8-hydroxyquinoline sulfate",
                "quinine sulfate",
                "lidocaine hydrochloride",
            ],
            "smiles": [
                "OS(=O)(=O)O.Oc1cccc2cccnc12",
                "OS(=O)(=O)O.COc1ccc2nccc([C@@H](O)[C@@H]3C[C@@H]4CCN3C[C@@H]4C=C)c2c1",
                "Cl.CCN(CC)CC(=O)Nc1c(C)cccc1C",
            ],
            "pattern": "NO",
            "decimals": 4,
        },
    ),
    (  # a sodium carboxylate: MMFF94 charges of the neutral acid, not of the anion
        "seed_05",
        "partial_charges",
        3,
        "B",
        {
            "molecules": ["sodium salicylate", "diclofenac sodium", "sodium valproate"],
            "smiles": [
                "[Na+].[O-]C(=O)c1ccccc1O",
                "[Na+].[O-]C(=O)Cc1ccccc1Nc1c(Cl)cccc1Cl",
                "[Na+].CCCC(CCC)C([O-])=O",
            ],
            "model": "mmff94",
            "pattern": "O",
            "decimals": 4,
        },
    ),
]


def build_seeds(root: Path = SEED_ROOT) -> list[Path]:
    """(Re)write the seed directories under ``root``."""
    out = []
    with template_generator(seed=0, python=sys.executable, timeout=120) as gen:
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
                    rng_key=f"scigate-seed:chemistry:{name}",
                    meta_extra={"seed_item": name},
                )
            )
    return out


if __name__ == "__main__":
    for path in build_seeds():
        print(path)
