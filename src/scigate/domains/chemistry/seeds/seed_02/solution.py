"""Summed partial charges of SMARTS-selected atoms in the neutral parents."""

from rdkit import Chem
from rdkit.Chem import AllChem
from rdkit.Chem.MolStandardize import rdMolStandardize

SUPPLIED = [
    "CS(=O)(=O)O.OC(Cn1cncn1)(Cn1cncn1)c1ccc(F)cc1F",
    "Cl.Cl.NCCc1c[nH]cn1",
    "Cl.CCN(CC)CCOC(=O)c1ccc(N)cc1",
]


def neutral_parent(smiles):
    """The supplied SMILES parsed, reduced to its largest fragment and neutralised."""
    supplied = Chem.MolFromSmiles(smiles)
    parent = rdMolStandardize.LargestFragmentChooser().choose(supplied)
    parent = rdMolStandardize.Uncharger().uncharge(parent)
    return parent


PATTERN = Chem.MolFromSmarts("[#7,#8]")


def value(parent):
    mol = Chem.AddHs(parent)
    AllChem.ComputeGasteigerCharges(mol)
    charges = [atom.GetDoubleProp("_GasteigerCharge") for atom in mol.GetAtoms()]
    selected = {i for match in mol.GetSubstructMatches(PATTERN) for i in match}
    return sum(charges[i] for i in sorted(selected))


result = sum(value(neutral_parent(smiles)) for smiles in SUPPLIED)
print(f"{result:.4f}")
