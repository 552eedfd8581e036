"""Materials tools that transform or compare crystal structures given as CIF text (pymatgen):
primitive and conventional cells, supercells, X-ray diffraction, structure matching,
POSCAR conversion and oxidation states.
"""

from __future__ import annotations

import math
import re
from typing import Any

from scigate.tools._tool import ToolExample, ToolInputError, tool
from scigate.tools.library.materials_common import (
    NACL_ARGS,
    NACL_CIF,
    NACL_DENSITY,
    NACL_VOLUME,
    PMG,
    RUTILE_CIF,
    SI_ARGS,
    SI_CIF,
    SI_DENSITY,
    analyzer,
    bragg_angle,
    cell_summary,
    load_structure,
)


def _standard_cell(cif: str, primitive: bool, symprec: float) -> dict[str, Any]:
    sga = analyzer(load_structure(cif), symprec)
    cell = (
        sga.get_primitive_standard_structure()
        if primitive
        else sga.get_conventional_standard_structure()
    )
    return cell_summary(cell)


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
            input=NACL_ARGS,
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
                "volume": NACL_VOLUME / 4,
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
            input=SI_ARGS,
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
    functionality="Simulate the powder X-ray diffraction pattern of a CIF structure (Cu Kα by default) and return the strongest peaks by intensity (strongest first): 2θ, relative intensity, d-spacing, hkl.",
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
                    "two_theta": bragg_angle(5.64 / 2),
                    "intensity": 100.0,
                    "d_spacing": 5.64 / 2,
                    "hkl": [2, 0, 0],
                },
                {
                    "two_theta": bragg_angle(5.64 / math.sqrt(8)),
                    "intensity": 65.63,
                    "d_spacing": 5.64 / math.sqrt(8),
                    "hkl": [2, 2, 0],
                },
                {
                    "two_theta": bragg_angle(5.64 / math.sqrt(20)),
                    "intensity": 24.75,
                    "d_spacing": 5.64 / math.sqrt(20),
                    "hkl": [4, 2, 0],
                },
            ],
            rel_tol=0.05,
        )
    ],
)
def xrd_pattern(
    cif: str, n_peaks: int = 5, wavelength: str = "CuKa", two_theta_max: float = 90.0
) -> list[dict[str, Any]]:
    """XRDCalculator peaks up to `two_theta_max` (degrees): the `n_peaks` most intense,
    strongest first (ties by angle); intensities scaled so the strongest is 100."""
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
    out: list[dict[str, Any]] = []
    for x, y, d, hkls in zip(pattern.x, pattern.y, pattern.d_hkls, pattern.hkls, strict=True):
        hkl = [int(v) for v in hkls[0]["hkl"]]
        out.append(
            {"two_theta": float(x), "intensity": float(y), "d_spacing": float(d), "hkl": hkl}
        )
    out.sort(key=lambda p: (-round(p["intensity"], 6), p["two_theta"]))
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
    examples=[(NACL_ARGS, {"Na": 1, "Cl": -1}), ({"cif": RUTILE_CIF}, {"Ti": 4, "O": -2})],
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
