"""Family (c): a whole-molecule descriptor of the canonical tautomer of the neutral parent.

Wildman–Crippen logP or molar refractivity (`Crippen.MolLogP` / `MolMR`, hydrogens
included) or the topological polar surface area (`rdMolDescriptors.CalcTPSA` with the
stated `includeSandP`).
"""

from __future__ import annotations

import random
from typing import Any

from ._common import PARENT_MISTAKES, PREPARATION, draw_molecule, parent_context, supplied

NAME = "crippen_descriptor"
TEMPLATE = "crippen_descriptor.py.j2"
DESCRIPTORS = {
    "MolLogP": "Wildman–Crippen logP (`Crippen.MolLogP`, default `includeHs=True`)",
    "MolMR": "Wildman–Crippen molar refractivity (`Crippen.MolMR`, default `includeHs=True`)",
    "TPSA": "topological polar surface area in Å² (`rdMolDescriptors.CalcTPSA`)",
}
MISTAKES = {
    **PARENT_MISTAKES,
    "tautomer_as_given": "descriptor of the tautomer as supplied, not RDKit's canonical tautomer",
    "implicit_h": "hydrogen contributions left out (`includeHs=False`)",
    "sandp_flipped": "TPSA with the other `includeSandP` setting than the question states",
}


def draw_params(rng: random.Random) -> dict[str, Any]:
    """A molecule and a descriptor (TPSA: with or without S and P contributions)."""
    descriptor = rng.choice(sorted(DESCRIPTORS))
    sandp = rng.choice((True, False)) if descriptor == "TPSA" else None
    return {**draw_molecule(rng), "descriptor": descriptor, "include_s_and_p": sandp, "decimals": 4}


def applicable(params: dict[str, Any]) -> list[str]:
    """Mistake kinds that can change the computation."""
    kinds = ["salt_kept", "first_fragment", "charged", "tautomer_as_given"]
    return kinds + (["sandp_flipped"] if params["descriptor"] == "TPSA" else ["implicit_h"])


def context(params: dict[str, Any], mistakes: frozenset[str]) -> dict[str, Any]:
    """Jinja context of the solution script, with the given mistakes applied."""
    sandp = params["include_s_and_p"]
    if sandp is not None and "sandp_flipped" in mistakes:
        sandp = not sandp
    return {
        **parent_context(params, mistakes),
        "descriptor": params["descriptor"],
        "include_s_and_p": sandp,
        "include_hs": "implicit_h" not in mistakes,
        "tautomer": "tautomer_as_given" not in mistakes,
        "decimals": params["decimals"],
    }


def question(params: dict[str, Any]) -> str:
    """Public question text (fully specified; no options)."""
    what = DESCRIPTORS[params["descriptor"]]
    if params["descriptor"] == "TPSA":
        what += f" with `includeSandP={params['include_s_and_p']}`"
    return (
        f"A vendor supplies {supplied(params)}. {PREPARATION}, then take RDKit's canonical "
        "tautomer of it (`rdMolStandardize.TautomerEnumerator().Canonicalize`, default "
        f"settings). Compute the {what} of that tautomer. Report it rounded to exactly "
        f"{params['decimals']} decimal places."
    )
