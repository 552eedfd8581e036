"""Biology tools that read a PDB file's text (Bio.PDB): atom count, mass, centres, distances.

The catalogue implements these with MDAnalysis; Bio.PDB gives the same numbers for a PDB
file (masses from the element column, hydrogens only if present in the file).
"""

from __future__ import annotations

import io
import math
from typing import Any

from scigate.tools._tool import ToolExample, ToolInputError, tool
from scigate.tools.library.biology_common import BIO


def _pdb_line(serial: int, name: str, res: str, x: float, y: float, z: float, el: str) -> str:
    return (
        f"HETATM{serial:5d} {name:<4s} {res:>3s} A   1    "
        f"{x:8.3f}{y:8.3f}{z:8.3f}  1.00  0.00          {el:>2s}"
    )


WATER_PDB = "\n".join(
    [
        _pdb_line(1, "O", "HOH", 0.0, 0.0, 0.0, "O"),
        _pdb_line(2, "H1", "HOH", 0.957, 0.0, 0.0, "H"),
        _pdb_line(3, "H2", "HOH", -0.240, 0.927, 0.0, "H"),
        "END",
    ]
)
CRYST1_P1 = "CRYST1    1.000    1.000    1.000  90.00  90.00  90.00 P 1           1"


def pdb_text(pdb: str) -> str:
    """The PDB text itself (tools take content, never paths; the CLI reads `--input @FILE`)."""
    if not isinstance(pdb, str) or not pdb.strip():
        raise ToolInputError("invalid PDB file: the input is empty")
    stripped = pdb.strip()
    if "\n" not in stripped and stripped.lower().endswith((".pdb", ".ent")):
        raise ToolInputError(
            f"expected PDB text, got what looks like a file name ({stripped}); "
            "pass the file's content (on the command line: --input @FILE)"
        )
    return pdb


def _atoms(pdb: str) -> list[Any]:
    from Bio.PDB import PDBParser

    text = pdb_text(pdb)
    try:
        structure = PDBParser(QUIET=True).get_structure("input", io.StringIO(text))
    except Exception as exc:
        raise ToolInputError(f"could not parse PDB file: {exc}") from exc
    models = list(structure)
    atoms = list(models[0].get_atoms()) if models else []
    if not atoms:
        raise ToolInputError("could not parse PDB file: no ATOM/HETATM records found")
    return atoms


_WATER = {"pdb": WATER_PDB}
_WATER_MASS = 15.999 + 2 * 1.008


@tool(
    name="AnalyzeAtomCount",
    functionality="Count the atoms (ATOM and HETATM records of the first model) in a PDB file.",
    inputs=["PDB file"],
    outputs=["Total atom count"],
    category="biology",
    source="Biopython (Bio.PDB)",
    objects=["protein structure"],
    scenarios=["structure analysis"],
    requires=BIO,
    examples=[(_WATER, 3)],
)
def atom_count(pdb: str) -> int:
    """Number of atoms of the first model."""
    return len(_atoms(pdb))


@tool(
    name="CalculateMolecularWeight",
    functionality="Calculate the molecular weight (g/mol) of the structure in a PDB file from its atoms' element masses.",
    inputs=["PDB file"],
    outputs=["Molecular weight (g/mol)"],
    category="biology",
    source="Biopython (Bio.PDB)",
    objects=["protein structure"],
    scenarios=["structure analysis"],
    requires=BIO,
    examples=[ToolExample(input=_WATER, output=_WATER_MASS, rel_tol=1e-3)],
)
def pdb_molecular_weight(pdb: str) -> float:
    """Sum of atomic masses (Bio.PDB element masses) of the first model."""
    return float(sum(a.mass for a in _atoms(pdb)))


@tool(
    name="CalculateCenterOfMass",
    functionality="Calculate the mass-weighted centre (x, y, z in Å) of the molecule in a PDB file.",
    inputs=["PDB file"],
    outputs=["Center of mass coordinates"],
    category="biology",
    source="Biopython (Bio.PDB)",
    objects=["protein structure"],
    scenarios=["structure analysis", "docking"],
    requires=BIO,
    examples=[
        ToolExample(
            input=_WATER,
            output=[(0.957 - 0.240) * 1.008 / _WATER_MASS, 0.927 * 1.008 / _WATER_MASS, 0.0],
            rel_tol=1e-3,
            abs_tol=1e-6,
        )
    ],
)
def center_of_mass(pdb: str) -> list[float]:
    """Centre of mass of the first model."""
    atoms = _atoms(pdb)
    total = sum(a.mass for a in atoms)
    return [float(sum(a.mass * a.coord[i] for a in atoms) / total) for i in range(3)]


@tool(
    name="CalculateAverageCoordinates",
    functionality="Calculate the average (geometric centre) of all atom coordinates in a PDB file.",
    inputs=["PDB file"],
    outputs=["Average coordinates"],
    category="biology",
    source="Biopython (Bio.PDB)",
    objects=["protein structure"],
    scenarios=["structure analysis"],
    requires=BIO,
    examples=[
        ToolExample(
            input=_WATER, output=[(0.957 - 0.240) / 3, 0.927 / 3, 0.0], rel_tol=1e-5, abs_tol=1e-6
        )
    ],
)
def average_coordinates(pdb: str) -> list[float]:
    """Unweighted mean of the atom coordinates of the first model."""
    atoms = _atoms(pdb)
    return [float(sum(a.coord[i] for a in atoms) / len(atoms)) for i in range(3)]


@tool(
    name="CalculateAtomDistance",
    functionality="Calculate the distance (Å) between two atoms of a PDB file, by default the first two.",
    inputs=["PDB file"],
    outputs=["Distance between first two atoms (Å)"],
    category="biology",
    source="Biopython (Bio.PDB)",
    objects=["protein structure"],
    scenarios=["structure analysis"],
    requires=BIO,
    examples=[
        ToolExample(input=_WATER, output=0.957, rel_tol=1e-5),
        ToolExample(
            input={"pdb": WATER_PDB, "atom_i": 2, "atom_j": 3},
            output=math.hypot(0.957 + 0.240, 0.927),
            rel_tol=1e-5,
        ),
    ],
)
def atom_distance(pdb: str, atom_i: int = 1, atom_j: int = 2) -> float:
    """Distance between the `atom_i`-th and `atom_j`-th atoms (1-based file order)."""
    atoms = _atoms(pdb)
    for k in (atom_i, atom_j):
        if not 1 <= k <= len(atoms):
            raise ToolInputError(f"atom index {k} out of range 1..{len(atoms)}")
    return float(atoms[atom_i - 1] - atoms[atom_j - 1])


@tool(
    name="FixPDBFile",
    functionality="Insert a unit-cell CRYST1 record (1 Å cube, P 1) into a PDB file when it is missing, as many programs require one.",
    inputs=["PDB file"],
    outputs=["PDB file"],
    category="biology",
    source="Python",
    objects=["protein structure"],
    scenarios=["structure preparation"],
    examples=[
        ({"pdb": "ATOM\nEND"}, CRYST1_P1 + "\nATOM\nEND"),
        ({"pdb": "HEADER x\n" + CRYST1_P1 + "\nEND"}, "HEADER x\n" + CRYST1_P1 + "\nEND"),
    ],
)
def fix_pdb_file(pdb: str) -> str:
    """The PDB text with a CRYST1 line before the first coordinate/MODEL record if absent."""
    lines = pdb_text(pdb).splitlines()
    if any(line.startswith("CRYST1") for line in lines):
        return "\n".join(lines)
    if not any(line.startswith(("ATOM", "HETATM", "MODEL", "END")) for line in lines):
        raise ToolInputError("invalid PDB file: no ATOM, HETATM, MODEL or END records")
    at = next(
        i for i, line in enumerate(lines) if line.startswith(("ATOM", "HETATM", "MODEL", "END"))
    )
    return "\n".join([*lines[:at], CRYST1_P1, *lines[at:]])
