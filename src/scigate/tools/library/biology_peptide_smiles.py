"""Biology tool: a peptide's full structure as SMILES (RDKit `MolFromSequence`).

Convention: a linear peptide of L-amino acids with a free N-terminal amine and a free
C-terminal carboxylic acid, all neutral (no zwitterion), hydrogens implicit. Only the 20
standard one-letter codes are accepted.
"""

from __future__ import annotations

from scigate.tools._tool import ToolExample, ToolInputError, tool
from scigate.tools.library.biology_common import PROTEIN_LETTERS, check_letters, strip_sequence
from scigate.tools.library.chemistry_common import RDKIT, rdkit_chem

MAX_RESIDUES = 500


@tool(
    name="ConvertingPeptide2SMILES",
    functionality="Convert a peptide sequence (one-letter amino-acid codes) into the SMILES of the linear L-peptide.",
    inputs=["protein sequence"],
    outputs=["SMILES"],
    category="biology",
    source="RDKit",
    objects=["peptide"],
    scenarios=["peptide chemistry", "cheminformatics on peptides"],
    requires=RDKIT,
    # glycyl-L-alanine, written independently
    examples=[ToolExample(input={"sequence": "GA"}, output="C[C@H](NC(=O)CN)C(=O)O")],
)
def peptide_to_smiles(sequence: str) -> str:
    """Canonical isomeric SMILES of the peptide (RDKit Chem.MolFromSequence, flavor 0)."""
    seq = check_letters(
        strip_sequence(sequence, "peptide sequence").upper(),
        PROTEIN_LETTERS,
        "peptide sequence",
        "the 20 standard one-letter amino-acid codes",
    )
    if len(seq) > MAX_RESIDUES:
        raise ToolInputError(f"peptide longer than {MAX_RESIDUES} residues")
    chem = rdkit_chem()
    mol = chem.MolFromSequence(seq)
    if mol is None or mol.GetNumAtoms() == 0:
        raise ToolInputError(f"RDKit cannot build the peptide {seq[:40]!r}")
    return chem.MolToSmiles(mol)
