"""Materials tools on crystal structures given as CIF text (pymatgen): structure summary,
density, composition, symmetry, lattice, coordinates and neighbours.

Cell transformations, X-ray diffraction, comparison and conversion live in
`materials_cells`; CIF reading and the reference structures in `materials_common`.
pymatgen is imported inside the function bodies (it takes about a second to import).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from scigate.tools._tool import ToolExample, ToolInputError, tool
from scigate.tools.library.materials_common import (
    NACL_ARGS,
    NACL_CIF,
    NACL_DENSITY,
    NACL_VOLUME,
    PMG,
    RUTILE_CIF,
    RUTILE_U,
    SI_ARGS,
    SI_DENSITY,
    analyzer,
    cell_summary,
    lattice_parameters,
    load_structure,
)


@tool(
    name="GetStructureInfo",
    functionality="Read a crystal structure (CIF) and return its formula, number of sites, lattice parameters a, b, c, α, β, γ, cell volume and density.",
    inputs=["CIF"],
    outputs=["structure information"],
    category="materials",
    source="pymatgen",
    objects=["crystal structure"],
    scenarios=["structure characterisation"],
    requires=PMG,
    examples=[
        ToolExample(
            input=NACL_ARGS,
            output={
                "formula": "Na4 Cl4",
                "reduced_formula": "NaCl",
                "nsites": 8,
                "a": 5.64,
                "b": 5.64,
                "c": 5.64,
                "alpha": 90.0,
                "beta": 90.0,
                "gamma": 90.0,
                "volume": NACL_VOLUME,
                "density": NACL_DENSITY,
            },
            rel_tol=1e-4,
        )
    ],
)
def structure_info(cif: str) -> dict[str, Any]:
    """Formula, site count, lattice (Å, degrees, Å³) and density (g/cm³) of the cell as given."""
    return cell_summary(load_structure(cif))


@tool(
    name="CalculateDensity",
    functionality="Calculate the density (g/cm³) of a crystal structure given as CIF.",
    inputs=["CIF"],
    outputs=["density"],
    category="materials",
    source="pymatgen",
    objects=["crystal structure"],
    scenarios=["materials screening"],
    requires=PMG,
    examples=[
        ToolExample(input=NACL_ARGS, output=NACL_DENSITY, rel_tol=1e-4),
        ToolExample(input=SI_ARGS, output=SI_DENSITY, rel_tol=1e-4),
    ],
)
def density(cif: str) -> float:
    """Structure.density: cell mass / cell volume."""
    return float(load_structure(cif).density)


@tool(
    name="GetElementComposition",
    functionality="Return the elemental composition (atoms of each element in the cell, and atomic fractions) of a crystal structure given as CIF.",
    inputs=["CIF"],
    outputs=["elemental composition"],
    category="materials",
    source="pymatgen",
    objects=["crystal structure", "composition"],
    scenarios=["structure characterisation"],
    requires=PMG,
    examples=[
        (
            {"cif": RUTILE_CIF},
            {
                "counts": {"Ti": 2.0, "O": 4.0},
                "fractions": {"Ti": 1 / 3, "O": 2 / 3},
                "reduced_formula": "TiO2",
            },
        )
    ],
)
def element_composition(cif: str) -> dict[str, Any]:
    """Element counts in the cell, atomic fractions and the reduced formula."""
    comp = load_structure(cif).composition.element_composition
    return {
        "counts": {str(e): float(n) for e, n in comp.items()},
        "fractions": {str(e): float(comp.get_atomic_fraction(e)) for e in comp},
        "reduced_formula": comp.reduced_formula,
    }


@tool(
    name="CalculateSymmetry",
    functionality="Determine the space group (Hermann-Mauguin symbol and number), point group, crystal system and lattice type of a CIF structure with spglib (symprec 0.01 Å, angle tolerance 5° by default).",
    inputs=["CIF"],
    outputs=["symmetry information"],
    category="materials",
    source="pymatgen",
    objects=["crystal structure", "space group"],
    scenarios=["structure characterisation", "crystallography"],
    requires=PMG,
    examples=[
        (
            SI_ARGS,
            {
                "space_group_symbol": "Fd-3m",
                "space_group_number": 227,
                "point_group": "m-3m",
                "crystal_system": "cubic",
                "lattice_type": "cubic",
                "symprec": 0.01,
            },
        ),
        (
            {"cif": RUTILE_CIF},
            {
                "space_group_symbol": "P4_2/mnm",
                "space_group_number": 136,
                "point_group": "4/mmm",
                "crystal_system": "tetragonal",
                "lattice_type": "tetragonal",
                "symprec": 0.01,
            },
        ),
    ],
)
def symmetry(cif: str, symprec: float = 0.01, angle_tolerance: float = 5.0) -> dict[str, Any]:
    """SpacegroupAnalyzer results; raise `symprec` for slightly distorted experimental data."""
    sga = analyzer(load_structure(cif), symprec, angle_tolerance)
    return {
        "space_group_symbol": sga.get_space_group_symbol(),
        "space_group_number": sga.get_space_group_number(),
        "point_group": sga.get_point_group_symbol(),
        "crystal_system": sga.get_crystal_system(),
        "lattice_type": sga.get_lattice_type(),
        "symprec": symprec,
    }


@tool(
    name="GetCrystalSystemFromCIF",
    functionality="Determine the crystal system (triclinic ... cubic) of a crystal structure given as CIF.",
    inputs=["CIF"],
    outputs=["crystal system"],
    category="materials",
    source="pymatgen",
    objects=["crystal structure"],
    scenarios=["crystallography"],
    requires=PMG,
    examples=[(NACL_ARGS, "cubic"), ({"cif": RUTILE_CIF}, "tetragonal")],
)
def crystal_system(cif: str, symprec: float = 0.01) -> str:
    """SpacegroupAnalyzer.get_crystal_system."""
    return analyzer(load_structure(cif), symprec).get_crystal_system()


@tool(
    name="MofLattice",
    functionality="Return the lattice of a crystal structure (MOF or any CIF): lattice vectors, a, b, c, α, β, γ and volume.",
    inputs=["CIF"],
    outputs=["lattice structure"],
    category="materials",
    source="pymatgen",
    objects=["crystal structure", "MOF"],
    scenarios=["crystallography"],
    requires=PMG,
    examples=[
        ToolExample(
            input={"cif": RUTILE_CIF},
            output={
                "matrix": [[4.594, 0.0, 0.0], [0.0, 4.594, 0.0], [0.0, 0.0, 2.959]],
                "a": 4.594,
                "b": 4.594,
                "c": 2.959,
                "alpha": 90.0,
                "beta": 90.0,
                "gamma": 90.0,
                "volume": 4.594**2 * 2.959,
            },
            rel_tol=1e-6,
            abs_tol=1e-9,
        )
    ],
)
def lattice(cif: str) -> dict[str, Any]:
    """Lattice matrix rows (Å) and parameters."""
    s = load_structure(cif)
    return {"matrix": s.lattice.matrix.tolist(), **lattice_parameters(s)}


@tool(
    name="MofFractionalCoordinates",
    functionality="List the fractional coordinates and species of every site of a crystal structure (MOF or any CIF).",
    inputs=["CIF"],
    outputs=["fractional coordinates"],
    category="materials",
    source="pymatgen",
    objects=["crystal structure", "MOF"],
    scenarios=["crystallography"],
    requires=PMG,
    examples=[
        ToolExample(
            input={"cif": RUTILE_CIF},
            output=[
                {"index": 0, "species": "Ti", "frac_coords": [0.0, 0.0, 0.0]},
                {"index": 1, "species": "Ti", "frac_coords": [0.5, 0.5, 0.5]},
                {"index": 2, "species": "O", "frac_coords": [RUTILE_U, RUTILE_U, 0.0]},
                {"index": 3, "species": "O", "frac_coords": [1 - RUTILE_U, 1 - RUTILE_U, 0.0]},
                {"index": 4, "species": "O", "frac_coords": [0.5 + RUTILE_U, 0.5 - RUTILE_U, 0.5]},
                {"index": 5, "species": "O", "frac_coords": [0.5 - RUTILE_U, 0.5 + RUTILE_U, 0.5]},
            ],
            abs_tol=1e-6,
        )
    ],
)
def fractional_coordinates(cif: str) -> list[dict[str, Any]]:
    """Sites in file order (0-based index)."""
    s = load_structure(cif)
    return [
        {
            "index": i,
            "species": site.species_string,
            "frac_coords": [float(x) for x in site.frac_coords],
        }
        for i, site in enumerate(s)
    ]


def _neighbours(structure: Any, index: int) -> list[dict[str, Any]]:
    from pymatgen.analysis.local_env import CrystalNN

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        info = CrystalNN().get_nn_info(structure, index)
    out = [
        {
            "index": int(n["site_index"]),
            "species": n["site"].species_string,
            "distance": float(n["site"].distance(structure[index])),
            "image": [int(x) for x in n["image"]],
        }
        for n in info
    ]
    return sorted(out, key=lambda n: (round(n["distance"], 6), n["index"], n["image"]))


@tool(
    name="MofNeighborIndices",
    functionality="List the neighbours (site index, species, distance, periodic image) of one site of a crystal structure (MOF or any CIF), found with CrystalNN.",
    inputs=["CIF", "site index"],
    outputs=["neighbor indices"],
    category="materials",
    source="pymatgen",
    objects=["crystal structure", "MOF"],
    scenarios=["coordination analysis"],
    requires=PMG,
    examples=[
        ToolExample(
            input={"cif": NACL_CIF, "site_index": 0},
            output=[
                {"index": i, "species": "Cl", "distance": 2.82, "image": img}
                for i, img in [
                    (4, [-1, 0, 0]),
                    (4, [0, 0, 0]),
                    (6, [0, 0, -1]),
                    (6, [0, 0, 0]),
                    (7, [0, -1, 0]),
                    (7, [0, 0, 0]),
                ]
            ],
            rel_tol=1e-6,
        )
    ],
)
def neighbour_indices(cif: str, site_index: int = 0) -> list[dict[str, Any]]:
    """CrystalNN neighbours of site `site_index` (0-based), nearest first."""
    s = load_structure(cif)
    if not 0 <= site_index < len(s):
        raise ToolInputError(f"site_index {site_index} out of range 0..{len(s) - 1}")
    return _neighbours(s, site_index)


@tool(
    name="GetCoordinationNumbers",
    functionality="Compute the coordination number (CrystalNN) of each symmetry-distinct site of a crystal structure given as CIF.",
    inputs=["CIF"],
    outputs=["coordination numbers"],
    category="materials",
    source="pymatgen",
    objects=["crystal structure"],
    scenarios=["coordination analysis"],
    requires=PMG,
    examples=[
        (
            NACL_ARGS,
            [{"index": 0, "species": "Na", "cn": 6}, {"index": 4, "species": "Cl", "cn": 6}],
        ),
        (SI_ARGS, [{"index": 0, "species": "Si", "cn": 4}]),
    ],
)
def coordination_numbers(cif: str) -> list[dict[str, Any]]:
    """One entry per symmetry-equivalent set (first site of each set)."""
    s = load_structure(cif)
    sym = analyzer(s).get_symmetrized_structure()
    firsts = sorted(group[0] for group in sym.equivalent_indices)
    return [
        {"index": i, "species": s[i].species_string, "cn": len(_neighbours(s, i))} for i in firsts
    ]


@tool(
    name="GetNearestNeighborDistance",
    functionality="Find the shortest interatomic distance (Å, periodic images included) in a crystal structure and the pair of species involved.",
    inputs=["CIF"],
    outputs=["nearest neighbor distance"],
    category="materials",
    source="pymatgen",
    objects=["crystal structure"],
    scenarios=["structure validation"],
    requires=PMG,
    examples=[
        ToolExample(input=NACL_ARGS, output={"distance": 2.82, "pair": ["Cl", "Na"]}, rel_tol=1e-6),
        ToolExample(
            input=SI_ARGS,
            output={"distance": 5.431 * math.sqrt(3) / 4, "pair": ["Si", "Si"]},
            rel_tol=1e-6,
        ),
    ],
)
def nearest_neighbour_distance(cif: str) -> dict[str, Any]:
    """Minimum over sites of the distance to the nearest other atom or periodic image."""
    s = load_structure(cif)
    radius = 3.0
    while radius <= 24.0:
        best: tuple[float, list[str]] | None = None
        for i, nbrs in enumerate(s.get_all_neighbors(radius)):
            for n in nbrs:
                if n.nn_distance > 1e-8 and (best is None or n.nn_distance < best[0]):
                    best = (float(n.nn_distance), sorted([s[i].species_string, n.species_string]))
        if best is not None:
            return {"distance": best[0], "pair": best[1]}
        radius *= 2
    raise ToolInputError("no neighbour within 24 Å: the structure is unphysical")
