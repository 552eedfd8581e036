"""Family (d): Wildman–Crippen atom contributions summed over a SMARTS-selected group.

The per-atom logP contributions (`rdMolDescriptors._CalcCrippenContribs`, first column)
of the neutral parent with explicit hydrogens, summed over the atoms a SMARTS pattern
matches and the hydrogens bonded to them.
"""

from __future__ import annotations

import random
from typing import Any

from ._common import PARENT_MISTAKES, PREPARATION, draw_molecule, parent_context, supplied
from ._patterns import KEKULE_MISTAKE, PATTERNS

NAME = "crippen_contribs"
TEMPLATE = "crippen_contribs.py.j2"
MISTAKES = {
    **PARENT_MISTAKES,
    "implicit_h": "contributions taken without explicit hydrogens, so the hydrogens' own "
    "contributions are lost",
    "kekule_smarts": KEKULE_MISTAKE,
    "mr_column": "the molar-refractivity column of the contributions taken for logP",
}


def draw_params(rng: random.Random) -> dict[str, Any]:
    """A molecule and an atom selection."""
    return {**draw_molecule(rng), "pattern": rng.choice(sorted(PATTERNS)), "decimals": 4}


def applicable(params: dict[str, Any]) -> list[str]:
    """Mistake kinds that can change the computation."""
    return list(MISTAKES)


def context(params: dict[str, Any], mistakes: frozenset[str]) -> dict[str, Any]:
    """Jinja context of the solution script, with the given mistakes applied."""
    correct, kekule, _ = PATTERNS[params["pattern"]]
    return {
        **parent_context(params, mistakes),
        "smarts": repr(kekule if "kekule_smarts" in mistakes else correct),
        "implicit_h": "implicit_h" in mistakes,
        "column": 1 if "mr_column" in mistakes else 0,
        "decimals": params["decimals"],
    }


def question(params: dict[str, Any]) -> str:
    """Public question text (fully specified; no options)."""
    smarts, _, words = PATTERNS[params["pattern"]]
    return (
        f"Take {supplied(params)}. {PREPARATION}, then add explicit hydrogens. Sum the "
        "per-atom Wildman–Crippen logP contributions (`_CalcCrippenContribs`, first value) "
        f"of {words} (SMARTS `{smarts}`, each atom once) and of the hydrogens bonded to "
        f"them, over all the parents. Report the sum to exactly {params['decimals']} "
        "decimal places."
    )
