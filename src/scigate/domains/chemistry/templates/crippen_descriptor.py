"""Family (c): a whole-molecule descriptor of the neutral parents' canonical tautomers, summed.

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
    "MolLogP": "Wildman–Crippen logP (`Crippen.MolLogP`, `includeHs=True`)",
    "MolMR": "Wildman–Crippen molar refractivity (`Crippen.MolMR`, `includeHs=True`)",
    "TPSA": "topological polar surface area in Å² (`CalcTPSA`)",
}
MISTAKES = {
    **PARENT_MISTAKES,
    "tautomer_as_given": "descriptor of the tautomer as supplied, not RDKit's canonical tautomer",
    "implicit_h": "hydrogen contributions left out (`includeHs=False`)",
    "sandp_flipped": "TPSA with the other `includeSandP` setting than the question states",
    "kekulized": "descriptor computed on the Kekulé form with aromatic flags cleared "
    "(`Chem.Kekulize(mol, clearAromaticFlags=True)`), so aromatic atom types are lost",
}


def draw_params(rng: random.Random) -> dict[str, Any]:
    """A molecule and a descriptor (TPSA: with or without S and P contributions)."""
    # logP (seed items) is left out of the draw: nearly every mistake lowers it, so the
    # scheduled rank 1 (correct value smallest) would rarely be reachable
    descriptor = rng.choice(("MolMR", "TPSA"))
    sandp = rng.choice((True, False)) if descriptor == "TPSA" else None
    return {**draw_molecule(rng), "descriptor": descriptor, "include_s_and_p": sandp, "decimals": 4}


def applicable(params: dict[str, Any]) -> list[str]:
    """Mistake kinds that can change the computation."""
    kinds = ["salt_kept", "first_fragment", "charged", "tautomer_as_given", "kekulized"]
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
        "kekulized": "kekulized" in mistakes,
        "decimals": params["decimals"],
    }


def question(params: dict[str, Any]) -> str:
    """Public question text (fully specified; no options)."""
    what = DESCRIPTORS[params["descriptor"]]
    if params["descriptor"] == "TPSA":
        what += f" with `includeSandP={params['include_s_and_p']}`"
    return (
        f"Take {supplied(params)}. {PREPARATION}, then take its canonical tautomer "
        f"(`TautomerEnumerator().Canonicalize`). Report the sum of the {what} of these "
        f"tautomers to exactly {params['decimals']} decimal places."
    )
