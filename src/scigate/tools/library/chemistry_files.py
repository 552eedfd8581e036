"""Chemistry tools on structure files: a 3D structure file to SMILES, an SD file to CSV.

Formats are told apart by their content: Tripos mol2 (``@<TRIPOS>``), PDB records
(ATOM/HETATM), else MDL molfile/SD blocks. PDB files carry no bond orders unless CONECT
records repeat them, so RDKit's PDB reader may give single bonds; mol2 and molfiles keep
them.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

from scigate.tools._tool import ToolExample, ToolInputError
from scigate.tools.library.chemistry_common import canonical, rdkit_chem, rdkit_tool
from scigate.tools.library.chemistry_coords import WATER_SDF, read_sdf

WATER_MOL2 = """@<TRIPOS>MOLECULE
water
 3 2 0 0 0
SMALL
NO_CHARGES

@<TRIPOS>ATOM
      1 O1          0.0000    0.0000    0.0000 O.3       1 HOH1        0.0000
      2 H1          0.9572    0.0000    0.0000 H         1 HOH1        0.0000
      3 H2         -0.2400    0.9266    0.0000 H         1 HOH1        0.0000
@<TRIPOS>BOND
     1     1     2    1
     2     1     3    1
"""


def _read_structure(text: str) -> list[Any]:
    chem = rdkit_chem()
    if not (text or "").strip():
        raise ToolInputError("empty structure file")
    if "@<TRIPOS>MOLECULE" in text:
        blocks = ["@<TRIPOS>MOLECULE" + b for b in text.split("@<TRIPOS>MOLECULE")[1:]]
        mols = [chem.MolFromMol2Block(b, removeHs=False) for b in blocks]
        kind = "mol2"
    elif re.search(r"^(ATOM  |HETATM)", text, re.M):
        mols = [chem.MolFromPDBBlock(text, removeHs=False)]
        kind = "PDB"
    else:
        return read_sdf(text)
    if any(m is None for m in mols):
        raise ToolInputError(f"malformed {kind} file: RDKit cannot read it")
    return mols


@rdkit_tool(
    "Convert3DMolecules2SMILES",
    "Convert small molecules given as a 3D structure file (mol2, mol/SDF or PDB text) into SMILES, one per molecule.",
    inputs=["Structural model with suffixes mol2 mol sdf pdbqt pdb"],
    outputs=["SMILES"],
    scenarios=["file format conversion", "docking post-processing", "cheminformatics"],
    examples=[
        ToolExample(input={"structure": WATER_MOL2}, output=["O"]),
        ToolExample(input={"structure": WATER_SDF}, output=["O"]),
    ],
)
def structure_to_smiles(structure: str) -> list[str]:
    """Canonical SMILES (hydrogens implicit, stereo from the 3D coordinates) per molecule."""
    chem = rdkit_chem()
    out = []
    for mol in _read_structure(structure):
        if mol.GetNumConformers() and mol.GetConformer().Is3D():
            chem.AssignStereochemistryFrom3D(mol)
        out.append(canonical(chem.RemoveHs(mol)))
    return out


@rdkit_tool(
    "ConvertSdfToCsv",
    "Convert an SD file to CSV text: one row per molecule with its name, SMILES and every SD property.",
    inputs=["SDF"],
    outputs=["CSV file"],
    scenarios=["file format conversion", "data preparation", "compound library handling"],
    examples=[ToolExample(input={"sdf": WATER_SDF}, output="name,smiles\r\nwater,O\r\n")],
)
def sdf_to_csv(sdf: str) -> str:
    """CSV (RFC 4180, CRLF line ends): columns name, smiles, then the SD properties in
    order of first appearance; a molecule without a property leaves the cell empty."""
    chem = rdkit_chem()
    rows, columns = [], ["name", "smiles"]
    for mol in read_sdf(sdf):
        props = mol.GetPropsAsDict(includePrivate=False, includeComputed=False)
        row = {
            "name": mol.GetProp("_Name") if mol.HasProp("_Name") else "",
            "smiles": canonical(chem.RemoveHs(mol)),
        }
        for key, value in props.items():
            if key not in columns:
                columns.append(key)
            row[key] = value
        rows.append(row)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, restval="")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()
