"""Materials tools on crystal structures given as CIF text (pymatgen): density, composition,
symmetry, cells, neighbours, X-ray diffraction, structure comparison and conversion.

pymatgen is imported inside the function bodies (it takes about a second to import).
"""

from __future__ import annotations

import math
import re
import warnings
from typing import Any

from scigate.tools._tool import ToolExample, ToolInputError, tool

PMG = ["pymatgen"]
MAX_CIF_CHARS = 2_000_000


def p1_cif(
    name: str,
    abc: tuple[float, float, float],
    angles: tuple[float, float, float],
    sites: list[tuple[str, float, float, float]],
) -> str:
    """A P1 CIF with every atom written out (used for the examples and the tests)."""
    lines = [
        f"data_{name}",
        "_symmetry_space_group_name_H-M   'P 1'",
        "_symmetry_Int_Tables_number   1",
        *(f"_cell_length_{k}   {v:.6f}" for k, v in zip("abc", abc, strict=True)),
        *(
            f"_cell_angle_{k}   {v:.6f}"
            for k, v in zip(("alpha", "beta", "gamma"), angles, strict=True)
        ),
        "loop_",
        " _symmetry_equiv_pos_site_id",
        " _symmetry_equiv_pos_as_xyz",
        "  1  'x, y, z'",
        "loop_",
        " _atom_site_label",
        " _atom_site_type_symbol",
        " _atom_site_fract_x",
        " _atom_site_fract_y",
        " _atom_site_fract_z",
        " _atom_site_occupancy",
    ]
    for i, (el, x, y, z) in enumerate(sites):
        lines.append(f"  {el}{i + 1}  {el}  {x:.6f}  {y:.6f}  {z:.6f}  1")
    return "\n".join(lines) + "\n"


_FCC = [(0.0, 0.0, 0.0), (0.0, 0.5, 0.5), (0.5, 0.0, 0.5), (0.5, 0.5, 0.0)]
NACL_CIF = p1_cif(
    "NaCl",
    (5.64, 5.64, 5.64),
    (90, 90, 90),
    [("Na", *p) for p in _FCC] + [("Cl", (x + 0.5) % 1, y, z) for x, y, z in _FCC],
)
SI_CIF = p1_cif(
    "Si",
    (5.431, 5.431, 5.431),
    (90, 90, 90),
    [("Si", *p) for p in _FCC] + [("Si", x + 0.25, y + 0.25, z + 0.25) for x, y, z in _FCC],
)
_U = 0.3053  # rutile oxygen parameter
RUTILE_CIF = p1_cif(
    "TiO2",
    (4.594, 4.594, 2.959),
    (90, 90, 90),
    [
        ("Ti", 0.0, 0.0, 0.0),
        ("Ti", 0.5, 0.5, 0.5),
        ("O", _U, _U, 0.0),
        ("O", 1 - _U, 1 - _U, 0.0),
        ("O", 0.5 + _U, 0.5 - _U, 0.5),
        ("O", 0.5 - _U, 0.5 + _U, 0.5),
    ],
)
AVOGADRO = 6.02214076e23
NACL_DENSITY = 4 * (22.98976928 + 35.453) / (5.64**3 * 1e-24 * AVOGADRO)
SI_DENSITY = 8 * 28.0855 / (5.431**3 * 1e-24 * AVOGADRO)
CU_KA = 1.54184  # pymatgen's Cu K-alpha (weighted K-alpha1/K-alpha2) wavelength in Å


def _bragg(d: float) -> float:
    return 2 * math.degrees(math.asin(CU_KA / (2 * d)))


def load_structure(cif: str) -> Any:
    """A pymatgen Structure from CIF text.

    Tools take content, never paths: served over MCP, a path argument would let a remote
    client read the server's files. The CLI reads files for users (`--input @FILE`).
    """
    from pymatgen.core import Structure

    if not isinstance(cif, str) or not cif.strip():
        raise ToolInputError("could not parse CIF: the input is empty")
    text = cif
    stripped = cif.strip()
    if "\n" not in stripped and stripped.lower().endswith(".cif"):
        raise ToolInputError(
            f"expected CIF text, got what looks like a file name ({stripped}); "
            "pass the file's content (on the command line: --input @FILE)"
        )
    if len(text) > MAX_CIF_CHARS:
        raise ToolInputError("could not parse CIF: the text is larger than 2 MB")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            structure = Structure.from_str(text, fmt="cif")
    except Exception as exc:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ToolInputError(f"could not parse CIF: {message}") from exc
    if len(structure) == 0:
        raise ToolInputError("could not parse CIF: no atom sites")
    return structure


def _analyzer(structure: Any, symprec: float = 0.01, angle_tolerance: float = 5.0) -> Any:
    from pymatgen.symmetry.analyzer import SpacegroupAnalyzer

    if not 0 < symprec <= 1:
        raise ToolInputError(f"symprec must be in (0, 1] Å, got {symprec}")
    return SpacegroupAnalyzer(structure, symprec=symprec, angle_tolerance=angle_tolerance)


def _lattice(structure: Any) -> dict[str, float]:
    lat = structure.lattice
    return {
        "a": lat.a,
        "b": lat.b,
        "c": lat.c,
        "alpha": lat.alpha,
        "beta": lat.beta,
        "gamma": lat.gamma,
        "volume": lat.volume,
    }


def _cell_summary(structure: Any) -> dict[str, Any]:
    return {
        "formula": structure.composition.formula,
        "reduced_formula": structure.composition.reduced_formula,
        "nsites": len(structure),
        **_lattice(structure),
        "density": float(structure.density),
    }


_NACL = {"cif": NACL_CIF}
_SI = {"cif": SI_CIF}
_A3 = 5.64**3


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
            input=_NACL,
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
                "volume": _A3,
                "density": NACL_DENSITY,
            },
            rel_tol=1e-4,
        )
    ],
)
def structure_info(cif: str) -> dict[str, Any]:
    """Formula, site count, lattice (Å, degrees, Å³) and density (g/cm³) of the cell as given."""
    return _cell_summary(load_structure(cif))


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
        ToolExample(input=_NACL, output=NACL_DENSITY, rel_tol=1e-4),
        ToolExample(input=_SI, output=SI_DENSITY, rel_tol=1e-4),
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
            _SI,
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
    sga = _analyzer(load_structure(cif), symprec, angle_tolerance)
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
    examples=[(_NACL, "cubic"), ({"cif": RUTILE_CIF}, "tetragonal")],
)
def crystal_system(cif: str, symprec: float = 0.01) -> str:
    """SpacegroupAnalyzer.get_crystal_system."""
    return _analyzer(load_structure(cif), symprec).get_crystal_system()


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
    return {"matrix": s.lattice.matrix.tolist(), **_lattice(s)}


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
                {"index": 2, "species": "O", "frac_coords": [_U, _U, 0.0]},
                {"index": 3, "species": "O", "frac_coords": [1 - _U, 1 - _U, 0.0]},
                {"index": 4, "species": "O", "frac_coords": [0.5 + _U, 0.5 - _U, 0.5]},
                {"index": 5, "species": "O", "frac_coords": [0.5 - _U, 0.5 + _U, 0.5]},
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
        (_NACL, [{"index": 0, "species": "Na", "cn": 6}, {"index": 4, "species": "Cl", "cn": 6}]),
        (_SI, [{"index": 0, "species": "Si", "cn": 4}]),
    ],
)
def coordination_numbers(cif: str) -> list[dict[str, Any]]:
    """One entry per symmetry-equivalent set (first site of each set)."""
    s = load_structure(cif)
    sym = _analyzer(s).get_symmetrized_structure()
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
        ToolExample(input=_NACL, output={"distance": 2.82, "pair": ["Cl", "Na"]}, rel_tol=1e-6),
        ToolExample(
            input=_SI,
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


def _standard_cell(cif: str, primitive: bool, symprec: float) -> dict[str, Any]:
    sga = _analyzer(load_structure(cif), symprec)
    cell = (
        sga.get_primitive_standard_structure()
        if primitive
        else sga.get_conventional_standard_structure()
    )
    return _cell_summary(cell)


@tool(
    name="GetPrimitiveCell",
    functionality="Reduce a CIF structure to its standard primitive cell and report its formula, number of sites, lattice parameters and volume.",
    inputs=["CIF"],
    outputs=["primitive cell"],
    category="materials",
    source="pymatgen",
    objects=["crystal structure", "unit cell"],
    scenarios=["DFT setup", "crystallography"],
    requires=PMG,
    examples=[
        ToolExample(
            input=_NACL,
            output={
                "formula": "Na1 Cl1",
                "reduced_formula": "NaCl",
                "nsites": 2,
                "a": 5.64 / math.sqrt(2),
                "b": 5.64 / math.sqrt(2),
                "c": 5.64 / math.sqrt(2),
                "alpha": 60.0,
                "beta": 60.0,
                "gamma": 60.0,
                "volume": _A3 / 4,
                "density": NACL_DENSITY,
            },
            rel_tol=1e-4,
        )
    ],
)
def primitive_cell(cif: str, symprec: float = 0.01) -> dict[str, Any]:
    """SpacegroupAnalyzer.get_primitive_standard_structure summary."""
    return _standard_cell(cif, True, symprec)


@tool(
    name="GetConventionalCell",
    functionality="Convert a CIF structure to its standard conventional cell and report its formula, number of sites, lattice parameters and volume.",
    inputs=["CIF"],
    outputs=["conventional cell"],
    category="materials",
    source="pymatgen",
    objects=["crystal structure", "unit cell"],
    scenarios=["crystallography"],
    requires=PMG,
    examples=[
        ToolExample(
            input=_SI,
            output={
                "formula": "Si8",
                "reduced_formula": "Si",
                "nsites": 8,
                "a": 5.431,
                "b": 5.431,
                "c": 5.431,
                "alpha": 90.0,
                "beta": 90.0,
                "gamma": 90.0,
                "volume": 5.431**3,
                "density": SI_DENSITY,
            },
            rel_tol=1e-4,
        )
    ],
)
def conventional_cell(cif: str, symprec: float = 0.01) -> dict[str, Any]:
    """SpacegroupAnalyzer.get_conventional_standard_structure summary."""
    return _standard_cell(cif, False, symprec)


@tool(
    name="CalculateXRDPattern",
    functionality="Simulate the powder X-ray diffraction pattern of a CIF structure (Cu Kα by default) and return the strongest low-angle peaks: 2θ, relative intensity, d-spacing, hkl.",
    inputs=["CIF"],
    outputs=["XRD peaks"],
    category="materials",
    source="pymatgen",
    objects=["crystal structure", "X-ray diffraction"],
    scenarios=["phase identification", "crystallography"],
    requires=PMG,
    examples=[
        ToolExample(
            input={"cif": NACL_CIF, "n_peaks": 3},
            output=[
                {
                    "two_theta": _bragg(5.64 / math.sqrt(3)),
                    "intensity": 8.08,
                    "d_spacing": 5.64 / math.sqrt(3),
                    "hkl": [1, 1, 1],
                },
                {
                    "two_theta": _bragg(5.64 / 2),
                    "intensity": 100.0,
                    "d_spacing": 5.64 / 2,
                    "hkl": [2, 0, 0],
                },
                {
                    "two_theta": _bragg(5.64 / math.sqrt(8)),
                    "intensity": 65.63,
                    "d_spacing": 5.64 / math.sqrt(8),
                    "hkl": [2, 2, 0],
                },
            ],
            rel_tol=0.05,
        )
    ],
)
def xrd_pattern(
    cif: str, n_peaks: int = 5, wavelength: str = "CuKa", two_theta_max: float = 90.0
) -> list[dict[str, Any]]:
    """XRDCalculator peaks up to `two_theta_max` (degrees), first `n_peaks` by angle; intensities scaled to 100."""
    from pymatgen.analysis.diffraction.xrd import WAVELENGTHS, XRDCalculator

    if wavelength not in WAVELENGTHS:
        raise ToolInputError(
            f"unknown wavelength {wavelength!r}; use one of {', '.join(WAVELENGTHS)}"
        )
    if n_peaks < 1:
        raise ToolInputError("n_peaks must be positive")
    if not 0 < two_theta_max <= 180:
        raise ToolInputError("two_theta_max must be in (0, 180] degrees")
    s = load_structure(cif)
    pattern = XRDCalculator(wavelength=wavelength).get_pattern(
        s, two_theta_range=(0, two_theta_max)
    )
    out = []
    for x, y, d, hkls in zip(pattern.x, pattern.y, pattern.d_hkls, pattern.hkls, strict=True):
        hkl = [int(v) for v in hkls[0]["hkl"]]
        out.append(
            {"two_theta": float(x), "intensity": float(y), "d_spacing": float(d), "hkl": hkl}
        )
    return out[:n_peaks]


@tool(
    name="CompareStructures",
    functionality="Decide whether two CIF structures are the same crystal (pymatgen StructureMatcher, allowing different cells, settings and origins).",
    inputs=["CIF", "CIF"],
    outputs=["True or False"],
    category="materials",
    source="pymatgen",
    objects=["crystal structure"],
    scenarios=["duplicate detection", "phase identification"],
    requires=PMG,
    examples=[
        ({"cif_a": NACL_CIF, "cif_b": NACL_CIF}, True),
        ({"cif_a": NACL_CIF, "cif_b": SI_CIF}, False),
    ],
)
def compare_structures(cif_a: str, cif_b: str) -> bool:
    """StructureMatcher().fit with its default tolerances (ltol 0.2, stol 0.3, angle_tol 5°)."""
    from pymatgen.analysis.structure_matcher import StructureMatcher

    return bool(StructureMatcher().fit(load_structure(cif_a), load_structure(cif_b)))


def _scaling(text: str) -> list[int]:
    parts = [p for p in re.split(r"[\s,x×]+", text.strip()) if p]
    try:
        values = [int(p) for p in parts]
    except ValueError as exc:
        raise ToolInputError(f"scaling must be integers like '2,2,2', got {text!r}") from exc
    if len(values) == 1:
        values *= 3
    if len(values) != 3 or any(v < 1 for v in values) or math.prod(values) > 1000:
        raise ToolInputError("scaling must be 1 or 3 positive integers with product <= 1000")
    return values


@tool(
    name="MakeSupercell",
    functionality="Build a supercell of a CIF structure by integer scaling along a, b and c; return its formula, site count, volume and CIF text.",
    inputs=["CIF", "scaling"],
    outputs=["CIF"],
    category="materials",
    source="pymatgen",
    objects=["crystal structure", "supercell"],
    scenarios=["defect calculations", "molecular dynamics setup"],
    requires=PMG,
    examples=[
        ToolExample(
            input={"cif": SI_CIF, "scaling": "2,1,1"},
            output={"formula": "Si16", "nsites": 16, "volume": 2 * 5.431**3},
            rel_tol=1e-6,
        )
    ],
)
def make_supercell(cif: str, scaling: str = "2,2,2", include_cif: bool = False) -> dict[str, Any]:
    """Structure.make_supercell; the CIF text is included when `include_cif` is true."""
    s = load_structure(cif)
    s.make_supercell(_scaling(scaling))
    out: dict[str, Any] = {
        "formula": s.composition.formula,
        "nsites": len(s),
        "volume": float(s.volume),
    }
    if include_cif:
        out["cif"] = s.to(fmt="cif")
    return out


@tool(
    name="ConvertCIFToPOSCAR",
    functionality="Convert a CIF crystal structure into VASP POSCAR text.",
    inputs=["CIF"],
    outputs=["POSCAR"],
    category="materials",
    source="pymatgen",
    objects=["crystal structure"],
    scenarios=["DFT setup"],
    requires=PMG,
    examples=[
        (
            {
                "cif": "data_x\n_cell_length_a 3\n_cell_length_b 3\n_cell_length_c 3\n_cell_angle_alpha 90\n_cell_angle_beta 90\n_cell_angle_gamma 90\n_symmetry_space_group_name_H-M 'P 1'\nloop_\n_atom_site_label\n_atom_site_type_symbol\n_atom_site_fract_x\n_atom_site_fract_y\n_atom_site_fract_z\nPo1 Po 0 0 0\n"
            },
            "Po1\n1.0\n   3.0000000000000000    0.0000000000000000    0.0000000000000002\n   0.0000000000000005    3.0000000000000000    0.0000000000000002\n   0.0000000000000000    0.0000000000000000    3.0000000000000000\nPo\n1\ndirect\n   0.0000000000000000    0.0000000000000000    0.0000000000000000 Po\n",
        )
    ],
)
def cif_to_poscar(cif: str) -> str:
    """pymatgen Poscar text of the structure."""
    return load_structure(cif).to(fmt="poscar")


@tool(
    name="GetOxidationStatesFromCIF",
    functionality="Assign oxidation states to the elements of an ionic CIF structure with the bond-valence method.",
    inputs=["CIF"],
    outputs=["oxidation states"],
    category="materials",
    source="pymatgen",
    objects=["crystal structure", "oxidation state"],
    scenarios=["defect chemistry", "structure validation"],
    requires=PMG,
    examples=[(_NACL, {"Na": 1, "Cl": -1}), ({"cif": RUTILE_CIF}, {"Ti": 4, "O": -2})],
)
def oxidation_states_from_cif(cif: str) -> dict[str, int]:
    """BVAnalyzer valences per element (the value of the first site of each element)."""
    from pymatgen.analysis.bond_valence import BVAnalyzer

    s = load_structure(cif)
    try:
        valences = BVAnalyzer().get_valences(s)
    except ValueError as exc:
        raise ToolInputError(f"no charge-balanced bond-valence assignment found: {exc}") from exc
    out: dict[str, int] = {}
    for site, v in zip(s, valences, strict=True):
        out.setdefault(site.species_string, int(v))
    return out
