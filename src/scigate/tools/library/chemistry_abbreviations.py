"""Chemistry tool: condense common groups of a molecule into abbreviations (RDKit
rdAbbreviations with its default table: Et, tBu, CF3, CO2H, OAc, NO2, OMe, ...).

The result is a CXSMILES: each abbreviated group becomes a dummy atom `*` whose label
(`$...$` extension) names the group, e.g. aspirin -> ``*c1ccccc1* |$OAc;;;;;;;CO2H$|``.
"""

from __future__ import annotations

from scigate.tools._tool import ToolExample, ToolInputError
from scigate.tools.library.chemistry_common import parse_smiles, rdkit_chem, rdkit_tool


@rdkit_tool(
    "CondenseAbbreviationSubstanceGroups",
    "Condense common functional groups of a molecule (Et, tBu, CF3, CO2H, OAc, NO2, OMe...) into labelled abbreviations and return the compressed molecule as CXSMILES.",
    outputs=["SMILES"],
    scenarios=["structure depiction", "reaction schemes", "structure simplification"],
    # aspirin: acetoxy and carboxylic acid ortho on a benzene ring
    examples=[
        ToolExample(
            input={"smiles": "CC(=O)Oc1ccccc1C(=O)O"}, output="*c1ccccc1* |$OAc;;;;;;;CO2H$|"
        )
    ],
)
def condense_abbreviations(smiles: str, max_coverage: float = 0.4) -> str:
    """RDKit CondenseMolAbbreviations with the default abbreviations; groups covering
    more than `max_coverage` of the heavy atoms are left expanded (RDKit's default 0.4)."""
    from rdkit.Chem import rdAbbreviations

    if not 0.0 < max_coverage <= 1.0:
        raise ToolInputError("max_coverage must be in (0, 1]")
    mol = rdAbbreviations.CondenseMolAbbreviations(
        parse_smiles(smiles), rdAbbreviations.GetDefaultAbbreviations(), maxCoverage=max_coverage
    )
    return rdkit_chem().MolToCXSmiles(mol)
