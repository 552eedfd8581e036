"""Shared helpers of the materials tools: reading CIF text into a pymatgen Structure,
symmetry analysis, cell summaries, and the reference structures (NaCl, Si, rutile) that
the examples and tests use.

pymatgen is imported inside the helpers (it takes about a second to import).
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any

from scigate.tools._tool import ToolInputError

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
RUTILE_U = 0.3053  # rutile oxygen parameter
RUTILE_CIF = p1_cif(
    "TiO2",
    (4.594, 4.594, 2.959),
    (90, 90, 90),
    [
        ("Ti", 0.0, 0.0, 0.0),
        ("Ti", 0.5, 0.5, 0.5),
        ("O", RUTILE_U, RUTILE_U, 0.0),
        ("O", 1 - RUTILE_U, 1 - RUTILE_U, 0.0),
        ("O", 0.5 + RUTILE_U, 0.5 - RUTILE_U, 0.5),
        ("O", 0.5 - RUTILE_U, 0.5 + RUTILE_U, 0.5),
    ],
)
AVOGADRO = 6.02214076e23
NACL_DENSITY = 4 * (22.98976928 + 35.453) / (5.64**3 * 1e-24 * AVOGADRO)
SI_DENSITY = 8 * 28.0855 / (5.431**3 * 1e-24 * AVOGADRO)
CU_KA = 1.54184  # pymatgen's Cu K-alpha (weighted K-alpha1/K-alpha2) wavelength in Å


def bragg_angle(d: float) -> float:
    """The Cu Kα diffraction angle 2θ (degrees) of planes `d` Å apart."""
    return 2 * math.degrees(math.asin(CU_KA / (2 * d)))


@functools.lru_cache(maxsize=64)
def _parse_cif(text: str) -> Any:
    # pymatgen's CIF parser spends ~0.5 s per call building space-group operations;
    # benchmark builds and probes parse the same few CIFs many times (callers get a copy)
    from pymatgen.core import Structure

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Structure.from_str(text, fmt="cif")


def load_structure(cif: str) -> Any:
    """A pymatgen Structure from CIF text.

    Tools take content, never paths: served over MCP, a path argument would let a remote
    client read the server's files. The CLI reads files for users (`--input @FILE`).
    """
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
        structure = _parse_cif(text).copy()
    except Exception as exc:
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ToolInputError(f"could not parse CIF: {message}") from exc
    if len(structure) == 0:
        raise ToolInputError("could not parse CIF: no atom sites")
    return structure


def analyzer(structure: Any, symprec: float = 0.01, angle_tolerance: float = 5.0) -> Any:
    from pymatgen.symmetry.analyzer import SpacegroupAnalyzer

    if not 0 < symprec <= 1:
        raise ToolInputError(f"symprec must be in (0, 1] Å, got {symprec}")
    return SpacegroupAnalyzer(structure, symprec=symprec, angle_tolerance=angle_tolerance)


def lattice_parameters(structure: Any) -> dict[str, float]:
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


def cell_summary(structure: Any) -> dict[str, Any]:
    return {
        "formula": structure.composition.formula,
        "reduced_formula": structure.composition.reduced_formula,
        "nsites": len(structure),
        **lattice_parameters(structure),
        "density": float(structure.density),
    }


NACL_ARGS = {"cif": NACL_CIF}
SI_ARGS = {"cif": SI_CIF}
NACL_VOLUME = 5.64**3  # Å³ of the conventional rock-salt cell
