"""What the chemistry families share: drawing a molecule, the parent-preparation mistakes
and the wording of the preparation steps."""

from __future__ import annotations

import random
from typing import Any

from ._molecules import MOLECULES

PARENT_MISTAKES = {
    "salt_kept": "counter-ion not stripped (the whole salt used instead of its largest fragment)",
    "first_fragment": "the first fragment of the SMILES taken instead of the largest",
    "charged": "parent left in its supplied charge state (not neutralised)",
}

PREPARATION = (
    "Parse the SMILES with RDKit (`Chem.MolFromSmiles`, default sanitisation), keep the "
    "largest fragment (`rdMolStandardize.LargestFragmentChooser().choose`) and neutralise "
    "it (`rdMolStandardize.Uncharger().uncharge`)"
)


def draw_molecule(rng: random.Random) -> dict[str, Any]:
    """A molecule (name and supplied SMILES) from the family library."""
    name, smiles = rng.choice(MOLECULES)
    return {"molecule": name, "smiles": smiles}


def parent_context(params: dict[str, Any], mistakes: frozenset[str]) -> dict[str, Any]:
    """Jinja context of the shared parent preparation (`_parent.py.j2`)."""
    return {
        "smiles": repr(params["smiles"]),
        "salt_kept": "salt_kept" in mistakes,
        "first_fragment": "first_fragment" in mistakes,
        "charged": "charged" in mistakes,
    }


def supplied(params: dict[str, Any]) -> str:
    """The molecule as the question presents it."""
    return f"{params['molecule']}, supplied as the SMILES `{params['smiles']}`"
