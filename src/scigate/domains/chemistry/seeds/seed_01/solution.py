"""Summed masses of the neutral parents of supplied salts, as sums of atom masses."""

from rdkit import Chem
from rdkit.Chem.MolStandardize import rdMolStandardize

SUPPLIED = [
    "Cl.[2H]C([2H])([2H])N1CCC[C@H]1c1cccnc1",
    "[Na+].CC(=O)Oc1ccccc1C(=O)[O-]",
    "[2H]c1c([2H])c(NC(C)=O)c([2H])c([2H])c1O",
]


def neutral_parent(smiles):
    """The supplied SMILES parsed, reduced to its largest fragment and neutralised."""
    supplied = Chem.MolFromSmiles(smiles)
    parent = rdMolStandardize.LargestFragmentChooser().choose(supplied)
    parent = rdMolStandardize.Uncharger().uncharge(parent)
    return parent


TABLE = Chem.GetPeriodicTable()


def atom_mass(atom):
    if atom.GetIsotope():
        return TABLE.GetMassForIsotope(atom.GetAtomicNum(), atom.GetIsotope())
    return TABLE.GetMostCommonIsotopeMass(atom.GetAtomicNum())


def value(parent):
    parent = Chem.AddHs(parent)
    return sum(atom_mass(atom) for atom in parent.GetAtoms())


result = sum(value(neutral_parent(smiles)) for smiles in SUPPLIED)
print(f"{result:.4f}")
