"""Crippen logP contributions of a SMARTS-selected group and its hydrogens, summed."""

from rdkit import Chem
from rdkit.Chem import rdMolDescriptors
from rdkit.Chem.MolStandardize import rdMolStandardize

SUPPLIED = [
    "OS(=O)(=O)O.Oc1cccc2cccnc12",
    "OS(=O)(=O)O.COc1ccc2nccc([C@@H](O)[C@@H]3C[C@@H]4CCN3C[C@@H]4C=C)c2c1",
    "Cl.CCN(CC)CC(=O)Nc1c(C)cccc1C",
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
    contributions = rdMolDescriptors._CalcCrippenContribs(mol)
    selected = {i for match in mol.GetSubstructMatches(PATTERN) for i in match}
    hydrogens = {
        n.GetIdx()
        for i in selected
        for n in mol.GetAtomWithIdx(i).GetNeighbors()
        if n.GetAtomicNum() == 1
    }
    return sum(contributions[i][0] for i in sorted(selected | hydrogens))


result = sum(value(neutral_parent(smiles)) for smiles in SUPPLIED)
print(f"{result:.4f}")
