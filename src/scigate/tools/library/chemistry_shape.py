"""Chemistry tools: Kier's flexibility index (Phi) and VSA descriptors over a chosen atomic
property (RDKit `CalcPhi`, `CustomProp_VSA_`).

Conventions: both work on the hydrogen-suppressed graph (heavy atoms only), as Kier and
Labute define them. Phi = kappa1 * kappa2 / A with alpha-modified kappa indices and A the
number of heavy atoms; for n-hexane (alpha = 0) kappa1 = 6, kappa2 = 5, so Phi = 5.
A VSA descriptor sums each heavy atom's Labute approximate surface area into the bin its
property value falls in: bin i holds atoms with bins[i-1] <= value < bins[i].
"""

from __future__ import annotations

from typing import Any, Literal

from scigate.tools._tool import ToolExample, ToolInputError
from scigate.tools.library.chemistry_common import parse_smiles, rdkit_tool, rdmd

VSAProperty = Literal["crippen_logp", "crippen_mr", "gasteiger_charge"]
_PROP = "scigate_vsa_prop"


def _default_bins(prop: str) -> list[float]:
    from rdkit.Chem import MolSurf

    return {
        "crippen_logp": MolSurf.logpBins,
        "crippen_mr": MolSurf.mrBins,
        "gasteiger_charge": MolSurf.chgBins,
    }[prop]


def _atom_values(mol: Any, prop: str) -> list[float]:
    if prop == "gasteiger_charge":
        from rdkit.Chem import rdPartialCharges

        rdPartialCharges.ComputeGasteigerCharges(mol)
        return [a.GetDoubleProp("_GasteigerCharge") for a in mol.GetAtoms()]
    contribs = rdmd()._CalcCrippenContribs(mol)
    return [c[0] if prop == "crippen_logp" else c[1] for c in contribs]


@rdkit_tool(
    "CalculatePhi",
    "Calculate Kier's molecular flexibility index Phi (kappa1 * kappa2 / number of heavy atoms) of a molecule.",
    outputs=["Phi angle"],
    scenarios=["molecular descriptor calculation", "flexibility estimation", "QSAR"],
    # independent: n-hexane kappa1 = 6, kappa2 = 5 -> 5; cyclohexane (25/6)(20/9)/6
    examples=[
        ToolExample(input={"smiles": "CCCCCC"}, output=5.0),
        ToolExample(input={"smiles": "C1CCCCC1"}, output=(25 / 6) * (20 / 9) / 6),
    ],
)
def calculate_phi(smiles: str) -> float:
    """Kier flexibility index Phi (RDKit rdMolDescriptors.CalcPhi); heavy atoms only."""
    return float(rdmd().CalcPhi(parse_smiles(smiles)))


@rdkit_tool(
    "CustomPropertyVSA",
    "Compute VSA descriptors of a molecule for a chosen atomic property (Crippen logP, Crippen MR or Gasteiger charge): the van der Waals surface area of the atoms binned by that property.",
    outputs=["custom property"],
    scenarios=["molecular descriptor calculation", "QSAR"],
)
def custom_property_vsa(
    smiles: str, property: VSAProperty = "crippen_logp", bins: list[float] | None = None
) -> dict[str, Any]:
    """Labute VSA per property bin (RDKit CustomProp_VSA_); default bins are RDKit's
    SlogP/SMR/PEOE bins, so the defaults reproduce SlogP_VSA, SMR_VSA and PEOE_VSA."""
    edges = list(_default_bins(property) if bins is None else bins)
    if not edges:
        raise ToolInputError("bins must hold at least one edge")
    if any(b >= a for a, b in zip(edges[1:], edges, strict=False)):
        raise ToolInputError("bins must be strictly increasing")
    mol = parse_smiles(smiles)
    for atom, value in zip(mol.GetAtoms(), _atom_values(mol, property), strict=True):
        atom.SetDoubleProp(_PROP, float(value))
    areas = rdmd().CustomProp_VSA_(mol, _PROP, edges)
    return {"property": property, "bins": edges, "vsa": [float(a) for a in areas]}
