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
    "With RDKit, parse each SMILES (default sanitisation), keep its largest fragment "
    "(`LargestFragmentChooser`) and neutralise that (`Uncharger`)"
)


#: molecules per question: a small batch, as a plate of salts from a vendor
BATCH = 3


def draw_molecule(rng: random.Random) -> dict[str, Any]:
    """A batch of molecules (names and supplied SMILES) from the family library."""
    picked = rng.sample(MOLECULES, BATCH)
    return {"molecules": [name for name, _ in picked], "smiles": [s for _, s in picked]}


def parent_context(params: dict[str, Any], mistakes: frozenset[str]) -> dict[str, Any]:
    """Jinja context of the shared parent preparation (`_parent.py.j2`)."""
    return {
        "smiles": repr(list(params["smiles"])),
        "salt_kept": "salt_kept" in mistakes,
        "first_fragment": "first_fragment" in mistakes,
        "charged": "charged" in mistakes,
    }


def supplied(params: dict[str, Any]) -> str:
    """The batch as the question presents it."""
    items = [f"{n} (`{s}`)" for n, s in zip(params["molecules"], params["smiles"], strict=True)]
    return "; ".join(items)
