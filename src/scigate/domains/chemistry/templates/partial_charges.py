"""Family (b): the summed partial charge of a SMARTS-selected set of atoms.

Gasteiger (`AllChem.ComputeGasteigerCharges`, 12 iterations) or MMFF94
(`MMFFGetMoleculeProperties(...).GetMMFFPartialCharge`) charges of the neutral parent
with explicit hydrogens, summed over the atoms a SMARTS pattern matches.
"""

from __future__ import annotations

import random
from typing import Any

from ._common import PARENT_MISTAKES, PREPARATION, draw_molecule, parent_context, supplied
from ._patterns import KEKULE_MISTAKE, PATTERNS

NAME = "partial_charges"
TEMPLATE = "partial_charges.py.j2"
MODELS = {
    "gasteiger": "Gasteiger charges (`ComputeGasteigerCharges`, 12 iterations)",
    "mmff94": "MMFF94 charges (`MMFFGetMoleculeProperties`, `GetMMFFPartialCharge`)",
}
MISTAKES = {
    **PARENT_MISTAKES,
    "other_model": "the other charge model (Gasteiger and MMFF94 confused)",
    "implicit_h": "charges computed without explicit hydrogens (no Chem.AddHs)",
    "kekule_smarts": KEKULE_MISTAKE,
}


def draw_params(rng: random.Random) -> dict[str, Any]:
    """A molecule, a charge model and an atom selection."""
    return {
        **draw_molecule(rng),
        "model": rng.choice(sorted(MODELS)),
        "pattern": rng.choice(sorted(PATTERNS)),
        "decimals": 4,
    }


def applicable(params: dict[str, Any]) -> list[str]:
    """Mistake kinds that can change the computation."""
    return list(MISTAKES)


def context(params: dict[str, Any], mistakes: frozenset[str]) -> dict[str, Any]:
    """Jinja context of the solution script, with the given mistakes applied."""
    model = params["model"]
    if "other_model" in mistakes:
        model = "mmff94" if model == "gasteiger" else "gasteiger"
    correct, kekule, _ = PATTERNS[params["pattern"]]
    return {
        **parent_context(params, mistakes),
        "model": model,
        "smarts": repr(kekule if "kekule_smarts" in mistakes else correct),
        "implicit_h": "implicit_h" in mistakes,
        "decimals": params["decimals"],
    }


def question(params: dict[str, Any]) -> str:
    """Public question text (fully specified; no options)."""
    smarts, _, words = PATTERNS[params["pattern"]]
    return (
        f"Take {supplied(params)}. {PREPARATION}, then add explicit hydrogens. Sum the "
        f"{MODELS[params['model']]} of {words} (SMARTS `{smarts}`, each atom once) over "
        f"all the parents. Report the sum in e to exactly {params['decimals']} decimal places."
    )
