"""Chemistry tools on 3D coordinates: coordinates from SMILES, bonds perceived from
coordinates (RDKit rdDetermineBonds), and SD-file geometry (centre, rotatable dihedrals).

Coordinates come from one seeded ETKDG conformer with explicit hydrogens, MMFF-relaxed
(`embed_3d`), so results repeat run to run. SD files are read with their hydrogens kept;
atom indices are zero-based in file order.
"""

from __future__ import annotations

from typing import Any

from scigate.tools._tool import ToolExample, ToolInputError
from scigate.tools.library.chemistry_common import (
    canonical,
    embed_3d,
    parse_smiles,
    rdkit_chem,
    rdkit_tool,
)

MAX_SDF_MOLECULES = 1000
WATER_SDF = """water
  hand

  3  2  0  0  0  0  0  0  0  0999 V2000
    0.0000    0.0000    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0
    0.9572    0.0000    0.0000 H   0  0  0  0  0  0  0  0  0  0  0  0
   -0.2400    0.9266    0.0000 H   0  0  0  0  0  0  0  0  0  0  0  0
  1  2  1  0
  1  3  1  0
M  END
$$$$
"""


def _xyz(mol: Any) -> list[dict[str, Any]]:
    conf = mol.GetConformer()
    out = []
    for atom in mol.GetAtoms():
        p = conf.GetAtomPosition(atom.GetIdx())
        out.append({"element": atom.GetSymbol(), "x": p.x, "y": p.y, "z": p.z})
    return out


@rdkit_tool(
    "CoordsFromSMILES",
    "Generate 3D coordinates of a molecule (hydrogens included) from its SMILES with a seeded ETKDG conformer relaxed by MMFF.",
    outputs=["3D Coordinates"],
    scenarios=["3D structure generation", "docking preparation", "molecular modelling"],
    heavy=True,
)
def coords_from_smiles(smiles: str) -> list[dict[str, Any]]:
    """Element and x, y, z (angstrom) of every atom of one seeded, relaxed conformer."""
    return _xyz(embed_3d(smiles))


def _perceive(smiles: str, keep_connectivity: bool) -> dict[str, Any]:
    """Rebuild the molecule from its 3D coordinates alone and describe the result."""
    from rdkit.Chem import Descriptors, rdDetermineBonds, rdMolDescriptors

    chem = rdkit_chem()
    charge = sum(a.GetFormalCharge() for a in parse_smiles(smiles).GetAtoms())
    embedded = embed_3d(smiles)
    if keep_connectivity:
        mol = chem.RWMol(embedded)
        for bond in mol.GetBonds():
            bond.SetBondType(chem.BondType.SINGLE)
            bond.SetIsAromatic(False)
        for atom in mol.GetAtoms():
            atom.SetFormalCharge(0)
            atom.SetIsAromatic(False)
            atom.SetNoImplicit(True)
        mol = mol.GetMol()
    else:
        mol = chem.MolFromXYZBlock(chem.MolToXYZBlock(embedded))
    try:
        if keep_connectivity:
            rdDetermineBonds.DetermineBondOrders(mol, charge=charge)
        else:
            rdDetermineBonds.DetermineBonds(mol, charge=charge)
        chem.SanitizeMol(mol)
    except Exception as exc:  # RDKit raises ValueError or its own sanitisation errors
        raise ToolInputError(f"cannot perceive bonds from the coordinates: {exc}") from None
    heavy = chem.RemoveHs(mol)
    return {
        "num_atoms": mol.GetNumAtoms(),
        "num_bonds": mol.GetNumBonds(),
        "formula": rdMolDescriptors.CalcMolFormula(mol),
        "molecular_weight": Descriptors.MolWt(mol),  # type: ignore[attr-defined]  # RDKit's stub lacks the descriptors made at import
        "smiles": canonical(heavy),
        "inchi": chem.MolToInchi(heavy),
        "inchikey": chem.MolToInchiKey(heavy),
    }


_PERCEIVED = [
    "Number of atoms",
    "Number of bonds",
    "Molecule Formula",
    "molecular weight",
    "SMILES",
    "InChI",
    "InChIKey",
]


@rdkit_tool(
    "DetermineBonds",
    "Assign the connectivity and bond orders of a molecule from its atomic coordinates alone (a seeded 3D conformer of the SMILES, bonds discarded), and describe the rebuilt molecule.",
    outputs=_PERCEIVED,
    scenarios=["structure perception", "XYZ to molecule", "validation of 3D structures"],
    heavy=True,
    examples=[
        ToolExample(
            input={"smiles": "CCO"},
            output={
                "num_atoms": 9,
                "num_bonds": 8,
                "formula": "C2H6O",
                "molecular_weight": 46.069,
                "smiles": "CCO",
                "inchi": "InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3",
                "inchikey": "LFQSCWFLJHTTHZ-UHFFFAOYSA-N",
            },
            abs_tol=1e-3,
        )
    ],
)
def determine_bonds(smiles: str) -> dict[str, Any]:
    """RDKit rdDetermineBonds.DetermineBonds (connect-the-dots, then Hueckel-free bond
    orders) on the XYZ of one conformer; hydrogens counted in atoms and bonds."""
    return _perceive(smiles, keep_connectivity=False)


@rdkit_tool(
    "DetermineBondOrders",
    "Assign the bond orders of a molecule from its atomic coordinates, keeping its connectivity (all bonds reset to single first), and describe the rebuilt molecule.",
    outputs=_PERCEIVED,
    scenarios=["structure perception", "bond order assignment", "validation of 3D structures"],
    heavy=True,
)
def determine_bond_orders(smiles: str) -> dict[str, Any]:
    """RDKit rdDetermineBonds.DetermineBondOrders on the conformer with single bonds only."""
    return _perceive(smiles, keep_connectivity=True)


def read_sdf(sdf: str) -> list[Any]:
    """The molecules of an SD file (hydrogens kept, 3D or 2D coordinates required)."""
    import io

    chem = rdkit_chem()
    text = (sdf or "").rstrip()  # the first line is the (possibly empty) molecule name
    if not text.strip():
        raise ToolInputError("empty SDF")
    if "M  END" not in text:
        raise ToolInputError("malformed SDF: no 'M  END' line (expected molfile blocks)")
    supplier = chem.ForwardSDMolSupplier(io.BytesIO((text + "\n").encode()), removeHs=False)
    mols = []
    for i, mol in enumerate(supplier):
        if mol is None:
            raise ToolInputError(f"malformed SDF: molecule {i} cannot be read")
        if mol.GetNumConformers() == 0:
            raise ToolInputError(f"molecule {i} of the SDF has no coordinates")
        mols.append(mol)
        if len(mols) > MAX_SDF_MOLECULES:
            raise ToolInputError(f"SDF holds more than {MAX_SDF_MOLECULES} molecules")
    if not mols:
        raise ToolInputError("malformed SDF: no molecule")
    return mols


@rdkit_tool(
    "CalculateMolecularCenter",
    "Calculate the geometric centre (mean x, y, z of all atoms in the file) of each molecule in an SDF file.",
    inputs=["SDF"],
    outputs=["x y and z coordinates of the molecular center"],
    scenarios=["docking box placement", "molecular modelling"],
    # water written by hand: O at the origin, H at (0.9572, 0, 0) and (-0.24, 0.9266, 0)
    examples=[
        ToolExample(
            input={"sdf": WATER_SDF},
            output=[[(0.9572 - 0.24) / 3, 0.9266 / 3, 0.0]],
            abs_tol=1e-9,
        )
    ],
)
def molecular_center(sdf: str) -> list[list[float]]:
    """Unweighted mean position of every atom (hydrogens included when the file has them)."""
    out = []
    for mol in read_sdf(sdf):
        pos = mol.GetConformer().GetPositions()
        out.append([float(v) for v in pos.mean(axis=0)])
    return out


def _heavy_degree(atom: Any) -> int:
    return sum(1 for n in atom.GetNeighbors() if n.GetAtomicNum() > 1)


def _in_triple(atom: Any) -> bool:
    return any(str(b.GetBondType()) == "TRIPLE" for b in atom.GetBonds())


@rdkit_tool(
    "ExtractRotatableDihedralsFromSdf",
    "Extract the rotatable dihedrals (four atom indices around each rotatable single bond) of each molecule in an SDF file.",
    inputs=["SDF"],
    outputs=["the indices of atoms forming each rotatable dihedral in the molecule"],
    scenarios=["conformer search", "torsion scanning", "molecular modelling"],
)
def rotatable_dihedrals(sdf: str) -> list[list[list[int]]]:
    """Per molecule, [a, b, c, d] (file indices, b < c) for each acyclic single bond b-c
    whose atoms both have another heavy neighbour and no triple bond (bonds to methyl or
    hydroxyl groups do not count); a and d are the lowest-index heavy neighbours."""
    out = []
    for mol in read_sdf(sdf):
        dihedrals = []
        for bond in mol.GetBonds():
            b, c = sorted((bond.GetBeginAtom(), bond.GetEndAtom()), key=lambda a: a.GetIdx())
            if (
                str(bond.GetBondType()) != "SINGLE"
                or bond.IsInRing()
                or min(b.GetAtomicNum(), c.GetAtomicNum()) <= 1
                or min(_heavy_degree(b), _heavy_degree(c)) < 2
                or _in_triple(b)
                or _in_triple(c)
            ):
                continue
            bi, ci = b.GetIdx(), c.GetIdx()
            dihedrals.append([_end(mol, bi, ci), bi, ci, _end(mol, ci, bi)])
        out.append(sorted(dihedrals, key=lambda d: (d[1], d[2])))
    return out


def _end(mol: Any, atom: int, other: int) -> int:
    neighbours = mol.GetAtomWithIdx(atom).GetNeighbors()
    return min(n.GetIdx() for n in neighbours if n.GetIdx() != other and n.GetAtomicNum() > 1)


@rdkit_tool(
    "CalculateUsrcatScores",
    "Calculate USRCAT (Ultrafast Shape Recognition with CREDO Atom Types) shape descriptors of the molecules in an SDF file, and for each pair their USRCAT score and Morgan-fingerprint Tanimoto coefficient.",
    inputs=["SDF"],
    outputs=["the USRCAT scores", "Tanimoto coefficients for pairs of molecules"],
    scenarios=["shape similarity", "virtual screening", "scaffold hopping"],
)
def usrcat_scores(sdf: str, weights: list[float] | None = None) -> dict[str, Any]:
    """USRCAT descriptors (60 numbers: 5 atom subsets x 4 reference points x 3 moments) of
    each molecule's first conformer, and per pair score = 1 / (1 + sum_k w_k * mean_k
    |a - b|) over the 5 blocks of 12 (RDKit GetUSRScore; weights default to 1) plus the
    Tanimoto coefficient of Morgan radius-2, 2048-bit fingerprints."""
    from rdkit import DataStructs
    from rdkit.Chem import rdFingerprintGenerator, rdMolDescriptors

    w = [1.0] * 5 if weights is None else [float(x) for x in weights]
    if len(w) != 5 or any(x < 0 for x in w):
        raise ToolInputError("weights must be 5 non-negative numbers, one per USRCAT block")
    mols = read_sdf(sdf)
    if len(mols) < 2:
        raise ToolInputError("the SDF needs at least two molecules to compare")
    descriptors = []
    for i, mol in enumerate(mols):
        if not mol.GetConformer().Is3D():
            raise ToolInputError(f"molecule {i} of the SDF has no 3D coordinates")
        descriptors.append([float(v) for v in rdMolDescriptors.GetUSRCAT(mol)])
    gen = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)
    fps = [gen.GetFingerprint(rdkit_chem().RemoveHs(m)) for m in mols]
    pairs = [
        {
            "i": i,
            "j": j,
            "usrcat_score": float(rdMolDescriptors.GetUSRScore(descriptors[i], descriptors[j], w)),  # type: ignore[arg-type]  # RDKit's stub: AtomPairsParameters for lists
            "tanimoto": float(DataStructs.TanimotoSimilarity(fps[i], fps[j])),
        }
        for i in range(len(mols))
        for j in range(i + 1, len(mols))
    ]
    return {"usrcat": descriptors, "pairs": pairs}
