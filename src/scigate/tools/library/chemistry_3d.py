"""Chemistry tools: 3D shape descriptors on a seeded ETKDG conformer (explicit hydrogens).

Every tool embeds the molecule with ETKDGv3 and the fixed seed 0xF00D (see
`chemistry_common.embed_3d`), so repeated calls return identical values. The examples use
geometric facts that hold for any reasonable conformer: benzene is a flat disc (NPR1 =
NPR2 = 0.5, asphericity 0.25, eccentricity sqrt(3)/2, plane-of-best-fit 0) and methane a
spherical top (NPR1 = NPR2 = 1, spherocity 1). Benzene's moments follow from its MMFF
geometry (C-C 1.40 Å, C-H 1.08 Å): PMI1 = PMI2 = ½·Σ m r² ≈ 88.7 amu·Å², PMI3 = 2·PMI1.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from scigate.tools._tool import ToolExample, ToolInputError, tool
from scigate.tools.library.chemistry_common import (
    RDKIT,
    SMILES_IN,
    SRC_RDKIT,
    embed_3d,
    float_list,
    parse_smiles_list,
    rdmd,
    rdmd_tool,
)

BENZENE = "c1ccccc1"
METHANE = "C"
_SCEN = ["3D shape analysis", "conformer analysis", "QSAR"]
_OBJ_3D = ["molecule", "3D conformer"]


# every generated tool: rdMolDescriptors.<calc> of the seeded, relaxed 3D conformer
_conformer_tool = functools.partial(
    rdmd_tool, prepare=embed_3d, scenarios=_SCEN, objects=_OBJ_3D, heavy=True
)


_SHAPES: list[tuple[str, str, str, str, list[tuple[str, float, float]]]] = [
    (
        "CalculatePMI1",
        "CalcPMI1",
        "Calculate the smallest principal moment of inertia (PMI1, amu·Å²) of a 3D conformer.",
        "PMI1",
        [(BENZENE, 88.73, 1.0)],
    ),
    (
        "CalculatePMI2",
        "CalcPMI2",
        "Calculate the middle principal moment of inertia (PMI2, amu·Å²) of a 3D conformer.",
        "PMI2",
        [(BENZENE, 88.73, 1.0)],
    ),
    (
        "CalculatePMI3",
        "CalcPMI3",
        "Calculate the largest principal moment of inertia (PMI3, amu·Å²) of a 3D conformer.",
        "PMI3",
        [(BENZENE, 177.45, 2.0)],
    ),
    (
        "GetNPR1",
        "CalcNPR1",
        "Calculate the normalised principal moments ratio NPR1 = PMI1/PMI3 of a 3D conformer.",
        "NPR1 value",
        [(BENZENE, 0.5, 0.01), (METHANE, 1.0, 0.02)],
    ),
    (
        "GetNPR2",
        "CalcNPR2",
        "Calculate the normalised principal moments ratio NPR2 = PMI2/PMI3 of a 3D conformer.",
        "NPR2 value",
        [(BENZENE, 0.5, 0.01), (METHANE, 1.0, 0.02)],
    ),
    (
        "CalculateRadiusOfGyration",
        "CalcRadiusOfGyration",
        "Compute the radius of gyration (Å) of a 3D conformer.",
        "radius of gyration",
        [(BENZENE, 1.507, 0.02)],
    ),
    (
        "GetAsphericity",
        "CalcAsphericity",
        "Calculate the asphericity of a 3D conformer (0 for a sphere, 0.25 for a flat disc, 1 for a rod).",
        "Asphericity",
        [(BENZENE, 0.25, 0.01), (METHANE, 0.0, 0.02)],
    ),
    (
        "GetEccentricity",
        "CalcEccentricity",
        "Calculate the eccentricity sqrt(PMI3² - PMI1²)/PMI3 of a 3D conformer.",
        "eccentricity value",
        [(BENZENE, math.sqrt(3) / 2, 0.01)],
    ),
    (
        "GetInertialShapeFactor",
        "CalcInertialShapeFactor",
        "Calculate the inertial shape factor PMI2/(PMI1·PMI3) of a 3D conformer.",
        "Inertial Shape Factor",
        [],
    ),
    (
        "CalculateSpherocityIndex",
        "CalcSpherocityIndex",
        "Calculate the spherocity index of a 3D conformer (0 for flat, 1 for spherical).",
        "sphericity index",
        [(BENZENE, 0.0, 0.01), (METHANE, 1.0, 0.01)],
    ),
    (
        "CalculatePBF",
        "CalcPBF",
        "Calculate the plane-of-best-fit (PBF) descriptor, the mean distance (Å) of atoms from their best plane.",
        "PBF",
        [(BENZENE, 0.0, 0.01)],
    ),
]

for _name, _calc, _func, _out, _ex in _SHAPES:
    _conformer_tool(
        _name,
        _calc,
        _func,
        _out,
        convert=float,
        doc=f"RDKit rdMolDescriptors.{_calc}, ETKDG seed 0xF00D",
        examples=[
            ToolExample(input={"smiles": s}, output=v, rel_tol=0, abs_tol=tol) for s, v, tol in _ex
        ],
    )


@tool(
    name="CalculatePmi",
    functionality="Calculate the normalised principal moments of inertia ratios NPR1 and NPR2 of a molecule (seeded 3D conformer).",
    inputs=SMILES_IN,
    outputs=["the NPR1 value", "the NPR2 value"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule", "3D conformer"],
    scenarios=[*_SCEN, "PMI plot (rod/disc/sphere)"],
    requires=RDKIT,
    heavy=True,
    examples=[
        ToolExample(
            input={"smiles": BENZENE}, output={"npr1": 0.5, "npr2": 0.5}, rel_tol=0, abs_tol=0.01
        )
    ],
)
def npr_pair(smiles: str) -> dict[str, float]:
    """NPR1 and NPR2 together (place the molecule in the rod-disc-sphere triangle)."""
    mol = embed_3d(smiles)
    md = rdmd()
    return {"npr1": float(md.CalcNPR1(mol)), "npr2": float(md.CalcNPR2(mol))}


_VECTORS = [
    (
        "GetUSR",
        "GetUSR",
        "Compute the 12 USR (ultrafast shape recognition) distance-moment descriptors of a seeded 3D conformer.",
        "USR (Ultrafast Shape Recognition)",
        12,
    ),
    (
        "GetUSRCAT",
        "GetUSRCAT",
        "Compute the 60 USRCAT descriptors (USR with CREDO atom types) of a seeded 3D conformer.",
        "USRCAT (Ultrafast Shape Recognition with Coordinate Asymmetric Torsions)",
        60,
    ),
    (
        "GetAutocorrelation3D",
        "CalcAUTOCORR3D",
        "Compute the 80 3D autocorrelation descriptors of a seeded 3D conformer.",
        "3D Autocorrelation Descriptors",
        80,
    ),
    (
        "CalculateRDF",
        "CalcRDF",
        "Compute the 210 radial distribution function (RDF) descriptors of a seeded 3D conformer.",
        "RDF descriptor",
        210,
    ),
    (
        "GetMORSE",
        "CalcMORSE",
        "Compute the 224 MoRSE (3D molecule representation of structures based on electron diffraction) descriptors.",
        "MORSE Descriptor list",
        224,
    ),
    (
        "CalculateWHIM",
        "CalcWHIM",
        "Compute the 114 WHIM (weighted holistic invariant molecular) descriptors of a seeded 3D conformer.",
        "WHIM (Weighted Holistic Invariant Molecular) descriptor",
        114,
    ),
    (
        "GetGETAWAY",
        "CalcGETAWAY",
        "Compute the 273 GETAWAY (geometry, topology and atom-weights assembly) descriptors of a seeded 3D conformer.",
        "GETAWAY Descriptors",
        273,
    ),
]

for _name, _calc, _func, _out, _len in _VECTORS:
    _conformer_tool(
        _name,
        _calc,
        _func,
        _out,
        convert=float_list,
        doc=f"RDKit rdMolDescriptors.{_calc}; {_len or 'variable'} values",
    )


@tool(
    name="GetCoulombMat",
    functionality="Calculate the Coulomb matrix (Z_i Z_j / |R_i - R_j|, 0.5 Z^2.4 on the diagonal) of a seeded 3D conformer with hydrogens.",
    inputs=SMILES_IN,
    outputs=["Coulomb matrix"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule", "3D conformer"],
    scenarios=["machine-learning molecular representation", "electrostatics"],
    requires=RDKIT,
    heavy=True,
)
def coulomb_matrix(smiles: str) -> list[list[float]]:
    """Square matrix over all atoms (H included) in RDKit atom order."""
    mat = rdmd().CalcCoulombMat(embed_3d(smiles))
    return [[float(x) for x in row] for row in mat]


@tool(
    name="GetEEMCharges",
    functionality="Compute EEM (electronegativity equalisation method) partial charges of the atoms of a seeded 3D conformer.",
    inputs=SMILES_IN,
    outputs=["EEM Charges"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule", "atom"],
    scenarios=["partial charge estimation", "electrostatics"],
    requires=RDKIT,
    heavy=True,
)
def eem_charges(smiles: str) -> list[float]:
    """One charge per atom (H included), RDKit atom order; neutral molecules only.

    RDKit's EEM returns charges summing to minus the net charge for ions (acetate sums
    to +1), so charged input is refused rather than answered wrongly.
    """
    mol = embed_3d(smiles)
    net = sum(a.GetFormalCharge() for a in mol.GetAtoms())
    if net:
        raise ToolInputError(
            f"EEM charges are only supported for neutral molecules (net charge {net:+d})"
        )
    return [float(x) for x in rdmd().CalcEEMcharges(mol)]


@tool(
    name="CalculateShapeSimilarity",
    functionality="Calculate USRCAT shape similarity scores for every pair of a list of molecules (seeded 3D conformers).",
    inputs=["SMILES list"],
    outputs=["USRCAT similarity scores of molecule pairs"],
    category="chemistry",
    source=SRC_RDKIT,
    objects=["molecule set", "3D conformer"],
    scenarios=["shape-based virtual screening", "scaffold hopping"],
    requires=RDKIT,
    heavy=True,
    examples=[
        ToolExample(
            input={"smiles_list": ["CCO", "OCC"]},
            output=[{"i": 0, "j": 1, "smiles_i": "CCO", "smiles_j": "OCC", "score": 1.0}],
            abs_tol=1e-9,
        )
    ],
)
def shape_similarity(smiles_list: list[str]) -> list[dict[str, Any]]:
    """USRCAT score 1/(1 + mean |d_i - d_j|) for each pair i < j."""
    from rdkit.Chem import rdMolDescriptors

    if len(smiles_list) < 2:
        raise ToolInputError("give at least two SMILES to compare")
    parse_smiles_list(smiles_list)
    descs = [rdMolDescriptors.GetUSRCAT(embed_3d(s)) for s in smiles_list]
    out = []
    for i in range(len(descs)):
        for j in range(i + 1, len(descs)):
            score = rdMolDescriptors.GetUSRScore(descs[i], descs[j])  # type: ignore[arg-type]  # RDKit's stub: AtomPairsParameters for lists
            out.append(
                {
                    "i": i,
                    "j": j,
                    "smiles_i": smiles_list[i],
                    "smiles_j": smiles_list[j],
                    "score": float(score),
                }
            )
    return out
