"""A Crippen or TPSA descriptor of the canonical tautomers, summed over the parents."""

from rdkit import Chem
from rdkit.Chem import Crippen
from rdkit.Chem.MolStandardize import rdMolStandardize

SUPPLIED = [
    "[K+].[O-]c1ccccn1",
    "[Na+].O=c1[n-]cnc2[nH]ncc12",
    "[Na+].CC(=O)CC(c1ccccc1)c1c([O-])c2ccccc2oc1=O",
]


def neutral_parent(smiles):
    """The supplied SMILES parsed, reduced to its largest fragment and neutralised."""
    supplied = Chem.MolFromSmiles(smiles)
    parent = rdMolStandardize.LargestFragmentChooser().choose(supplied)
    parent = rdMolStandardize.Uncharger().uncharge(parent)
    return parent


def value(parent):
    parent = rdMolStandardize.TautomerEnumerator().Canonicalize(parent)
    return Crippen.MolLogP(parent, includeHs=True)


result = sum(value(neutral_parent(smiles)) for smiles in SUPPLIED)
print(f"{result:.4f}")
