"""Summed partial charges of SMARTS-selected atoms in the neutral parents."""

from rdkit import Chem
from rdkit.Chem import AllChem
from rdkit.Chem.MolStandardize import rdMolStandardize

SUPPLIED = [
    "[Na+].[O-]C(=O)c1ccccc1O",
    "[Na+].[O-]C(=O)Cc1ccccc1Nc1c(Cl)cccc1Cl",
    "[Na+].CCCC(CCC)C([O-])=O",
]


def neutral_parent(smiles):
    """The supplied SMILES parsed, reduced to its largest fragment and neutralised."""
    supplied = Chem.MolFromSmiles(smiles)
    parent = rdMolStandardize.LargestFragmentChooser().choose(supplied)
    parent = rdMolStandardize.Uncharger().uncharge(parent)
    return parent


PATTERN = Chem.MolFromSmarts("[#8]")


def value(parent):
    mol = Chem.AddHs(parent)
    properties = AllChem.MMFFGetMoleculeProperties(mol)
    charges = [properties.GetMMFFPartialCharge(i) for i in range(mol.GetNumAtoms())]
    selected = {i for match in mol.GetSubstructMatches(PATTERN) for i in match}
    return sum(charges[i] for i in sorted(selected))


result = sum(value(neutral_parent(smiles)) for smiles in SUPPLIED)
print(f"{result:.4f}")
