"""Materials Project tools: one REST client for the MP API (v2) and many thin catalogue tools
generated from a table of (tool name, endpoint, document field, output type).

Requests go to ``https://api.materialsproject.org/<root>/<endpoint>/`` (root ``materials``
or ``molecules``) with the header ``X-API-KEY`` taken from the ``MP_API_KEY`` environment
variable, filtered by an ID list (``material_ids``, ``battery_ids``, ``molecule_ids``: see
`MPKey`) or ``formula`` and limited to the needed ``_fields``; the body is
``{"data": [documents...], "meta": {...}}``. Without a key the tools answer ok:false
asking to set MP_API_KEY; offline they answer ok:false "network unavailable".

This module holds the client, the tool factory (`MPField`, `register_mp_tools`) and the
materials tools; `materials_project_batteries` and `materials_project_molecules` add the
insertion-electrode and molecule tables with their own `MPKey`.
"""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from scigate.tools._http import ServiceUnavailable, fetch_json
from scigate.tools._tool import Category, ToolInputError, tool

MP_BASE = "https://api.materialsproject.org"
MP_SERVICE = "Materials Project"
MP_TIMEOUT = 20.0
MP_SOURCE = "Materials Project API"
MATERIAL_ID = "material_id"
FORMULA = "Molecule Formula"
_ID_RE = re.compile(r"^[a-z]+-\d+$")


def _api_key() -> str:
    key = os.environ.get("MP_API_KEY", "").strip()
    if not key:
        raise ToolInputError(
            "set MP_API_KEY to a Materials Project API key "
            "(free at https://next-gen.materialsproject.org/api) to use this tool"
        )
    return key


def mp_documents(
    endpoint: str, params: dict[str, Any], transport: Any = None, root: str = "materials"
) -> list[dict[str, Any]]:
    """GET ``/<root>/<endpoint>/`` and return the ``data`` list of the response."""
    key = _api_key()
    body = fetch_json(
        f"{MP_BASE}/{root}/{endpoint}/",
        service=MP_SERVICE,
        params=params,
        headers={"X-API-KEY": key, "accept": "application/json"},
        timeout=MP_TIMEOUT,
        transport=transport,
    )
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        raise ServiceUnavailable("Materials Project returned a body without a 'data' list")
    return [d for d in body["data"] if isinstance(d, dict)]


def clean_material_id(material_id: str) -> str:
    """A Materials Project ID such as mp-149 or mvc-123."""
    value = material_id.strip().lower() if isinstance(material_id, str) else ""
    if not _ID_RE.match(value):
        raise ToolInputError(
            f"invalid material_id {material_id!r}: expected a Materials Project ID like 'mp-149'"
        )
    return value


def _clean_formula(formula: str) -> str:
    from scigate.tools.library.materials_composition import load_composition

    return load_composition(formula).reduced_formula


def _top_field(field: str) -> str:
    return field.split(".", 1)[0]


def _extract(doc: dict[str, Any], field: str) -> Any:
    value: Any = doc
    for part in field.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def _structure_cif(value: Any) -> str:
    from pymatgen.core import Structure

    return Structure.from_dict(value).to(fmt="cif")


def _structure_positions(value: Any) -> list[dict[str, Any]]:
    from pymatgen.core import Structure

    s = Structure.from_dict(value)
    return [
        {
            "species": site.species_string,
            "frac_coords": [float(x) for x in site.frac_coords],
            "cart_coords": [float(x) for x in site.coords],
        }
        for site in s
    ]


_POST = {"cif": _structure_cif, "positions": _structure_positions}


@dataclass(frozen=True)
class MPKey:
    """How one family of Materials Project documents is addressed by ID."""

    param: str  # tool argument and catalogue input type: material_id, battery_id...
    filter: str  # request filter holding the ID: material_ids, battery_ids...
    clean: Callable[[str], str]  # validates and normalises an ID; raises ToolInputError
    noun: str  # "a material" -> functionality text
    category: Category
    objects: tuple[str, ...]
    scenarios: tuple[str, ...]
    root: str = "materials"  # first path segment: materials or molecules


MATERIAL = MPKey(
    MATERIAL_ID,
    "material_ids",
    clean_material_id,
    "a material",
    "materials",
    ("material", "Materials Project"),
    ("materials screening", "materials informatics"),
)


@dataclass(frozen=True)
class MPField:
    """One generated tool: its name, what it asks MP for and how it is typed."""

    name: str
    what: str  # "the band gap (eV)" -> functionality text
    fields: tuple[str, ...]
    output: str
    endpoint: str = "summary"
    by: str = "id"  # "id" or "formula"
    post: str = ""  # "", "cif" or "positions"
    returns: str = "value"  # "value", "dict", or "each" (the field of every document)
    key: MPKey = MATERIAL
    # One document per level of theory and solvent: the tool takes an optional lot_solvent
    # choosing one of them (default: the first the API returns).
    per_lot: bool = False


def _values(doc: dict[str, Any], spec: MPField) -> Any:
    if spec.returns == "dict":
        return {f: _extract(doc, f) for f in spec.fields}
    value = _extract(doc, spec.fields[0])
    if value is not None and spec.post:
        value = _POST[spec.post](value)
    return value


_LOT_FIELDS = ("lot_solvent", "level_of_theory", "solvent")


def _choose_lot(docs: list[dict[str, Any]], lot_solvent: str, ident: str) -> dict[str, Any]:
    wanted = lot_solvent.strip().lower()
    if not wanted:
        return docs[0]
    for doc in docs:
        if any(str(doc.get(f, "")).lower() == wanted for f in _LOT_FIELDS):
            return doc
    known = sorted({str(d.get("lot_solvent")) for d in docs if d.get("lot_solvent")})
    raise ToolInputError(
        f"{ident} has no calculation at lot_solvent {lot_solvent!r}; available: "
        + (", ".join(known) or "none listed")
    )


def query_by_id(
    spec: MPField, identifier: str, transport: Any = None, lot_solvent: str = ""
) -> Any:
    """The requested field(s) of one material, battery electrode or molecule."""
    key = spec.key
    ident = key.clean(identifier)
    fields = {key.param, *(_top_field(f) for f in spec.fields)}
    if spec.per_lot:
        fields.update(_LOT_FIELDS)
    many = spec.per_lot or spec.returns == "each"
    docs = mp_documents(
        spec.endpoint,
        {key.filter: ident, "_fields": ",".join(sorted(fields)), "_limit": 100 if many else 1},
        transport=transport,
        root=key.root,
    )
    if not docs:
        raise ToolInputError(f"Materials Project has no {spec.endpoint} record for {ident}")
    if spec.returns == "each":
        values = [_values(d, spec) for d in docs]
        return [v for i, v in enumerate(values) if v is not None and v not in values[:i]]
    doc = _choose_lot(docs, lot_solvent, ident) if spec.per_lot else docs[0]
    return _values(doc, spec)


def query_by_formula(spec: MPField, formula: str, transport: Any = None) -> dict[str, Any]:
    """The requested field of the most stable material (lowest energy above hull) with `formula`."""
    reduced = _clean_formula(formula)
    fields = sorted({"material_id", "energy_above_hull", *(_top_field(f) for f in spec.fields)})
    docs = mp_documents(
        spec.endpoint,
        {"formula": reduced, "_fields": ",".join(fields), "_limit": 100},
        transport=transport,
    )
    if not docs:
        raise ToolInputError(f"Materials Project has no material with formula {reduced}")
    best = min(
        docs,
        key=lambda d: e if (e := d.get("energy_above_hull")) is not None else float("inf"),
    )
    return {
        "material_id": best.get("material_id"),
        "value": _values(best, spec),
        "matches": len(docs),
    }


def _by_id_function(spec: MPField) -> Callable[..., Any]:
    """A function taking the key's ID argument (named after it: material_id, molecule_id...)."""
    key = spec.key

    def by_id(**arguments: Any) -> Any:
        return query_by_id(spec, arguments[key.param], lot_solvent=arguments.get("lot_solvent", ""))

    kw = inspect.Parameter.KEYWORD_ONLY
    params = [inspect.Parameter(key.param, kw, annotation=str)]
    if spec.per_lot:
        params.append(inspect.Parameter("lot_solvent", kw, default="", annotation=str))
    by_id.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    by_id.__annotations__ = {p.name: str for p in params}
    return by_id


def _functionality(spec: MPField) -> str:
    key = spec.key
    if spec.by == "formula":
        return (
            f"Get {spec.what} of the most stable Materials Project material with a given formula "
            "(lowest energy above hull), with its material_id."
        )
    text = f"Get {spec.what} of {key.noun} by its Materials Project {key.param}."
    if spec.per_lot:
        text += (
            " MP computes it at several levels of theory and solvents: lot_solvent picks one"
            " (default: the first the API lists)."
        )
    return text


def _register(spec: MPField, module: str) -> None:
    if spec.by == "id":
        fn, inputs = _by_id_function(spec), [spec.key.param]
    else:

        def by_formula(formula: str) -> Any:
            return query_by_formula(spec, formula)

        fn, inputs = by_formula, [FORMULA]
    functionality = _functionality(spec)
    fn.__doc__ = functionality
    fn.__name__ = fn.__qualname__ = spec.name
    fn.__module__ = module
    tool(
        name=spec.name,
        functionality=functionality,
        inputs=inputs,
        outputs=[spec.output],
        category=spec.key.category,
        source=MP_SOURCE,
        objects=list(spec.key.objects),
        scenarios=list(spec.key.scenarios),
        network=True,
    )(fn)


def register_mp_tools(table: list[MPField], module: str) -> None:
    """Register one generated tool per row of `table`, as belonging to `module` (the caller's
    ``__name__``, so tools are listed under the module that declares them)."""
    for spec in table:
        _register(spec, module)


_S = MPField
MP_TABLE: list[MPField] = [
    # summary endpoint, by material_id
    _S("GetFormulaByMaterialId", "the formula", ("formula_pretty",), FORMULA),
    _S("GetFormulaPrettyByMaterialId", "the pretty formula", ("formula_pretty",), "pretty formula"),
    _S("GetFormulaAnonymousByMaterialId", "the anonymous formula", ("formula_anonymous",), "anonymous formula"),
    _S("GetChemicalSystemByMaterialId", "the chemical system", ("chemsys",), "chemical system"),
    _S("GetElementsByMaterialId", "the elements", ("elements",), "elements"),
    _S("GetNumberOfElementsByMaterialId", "the number of elements", ("nelements",), "number of elements"),
    _S("GetNsitesByMaterialId", "the number of sites in the cell", ("nsites",), "number of sites"),
    _S("GetCompositionByMaterialId", "the composition", ("composition",), "material composition summary"),
    _S("GetBandGapByMaterialId", "the band gap (eV)", ("band_gap",), "band gap"),
    _S("GetCbmByMaterialId", "the conduction band minimum (eV)", ("cbm",), "Conduction Band Minimum"),
    _S("GetVbmByMaterialId", "the valence band maximum (eV)", ("vbm",), "Valence Band Maximum"),
    _S("GetEfermiByMaterialId", "the Fermi energy (eV)", ("efermi",), "fermi energy"),
    _S("GetVolumeByMaterialId", "the cell volume (Å³)", ("volume",), "volume"),
    _S("GetDensityByMaterialId", "the density (g/cm³)", ("density",), "density"),
    _S("GetDensityAtomicByMaterialId", "the atomic density (Å³ per atom)", ("density_atomic",), "atomic density"),
    _S("GetEnergyAboveHullByMaterialId", "the energy above the convex hull (eV/atom)", ("energy_above_hull",), "energy above hull"),
    _S("GetEnergyPerAtomByMaterialId", "the corrected energy per atom (eV/atom)", ("energy_per_atom",), "energy per atom"),
    _S("GetUncorrectedEnergyPerAtomByMaterialId", "the DFT energy per atom before corrections (eV/atom)", ("uncorrected_energy_per_atom",), "uncorrected energy per atom of a material"),
    _S("GetFormationEnergyPerAtomByMaterialId", "the formation energy per atom (eV/atom)", ("formation_energy_per_atom",), "formation energy per atom"),
    _S("GetEquilibriumReactionEnergyPerAtom", "the equilibrium reaction energy per atom (eV/atom)", ("equilibrium_reaction_energy_per_atom",), "equilibrium reaction energy per atom"),
    _S("GetETotalByMaterialId", "the total dielectric constant", ("e_total",), "total energy"),
    _S("GetEIonicByMaterialId", "the ionic dielectric constant", ("e_ionic",), "ionic energy"),
    _S("GetEElectronicByMaterialId", "the electronic dielectric constant", ("e_electronic",), "electronnic energy"),
    _S("IsMetalByMaterialId", "whether it is a metal", ("is_metal",), "True or False"),
    _S("IsMagneticByMaterialId", "whether it is magnetic", ("is_magnetic",), "True or False"),
    _S("IsStableByMaterialId", "whether it is on the convex hull (stable)", ("is_stable",), "True or False"),
    _S("IsDeprecated", "whether the entry is deprecated", ("deprecated",), "True or False"),
    _S("GetDeprecatedReasonsByBatteryId", "the deprecation reasons", ("deprecation_reasons",), "deprecation reasons"),
    _S("GetNumMagneticSitesByMaterialId", "the number of magnetic sites", ("num_magnetic_sites",), "number of magnetic sites"),
    _S("GetTotalMagnetizationByMaterialId", "the total magnetization (μB per cell)", ("total_magnetization",), "total magnetization"),
    _S("GetTotalMagnetizationNormalizedFormulaUnitsByMaterialId", "the total magnetization per formula unit (μB)", ("total_magnetization_normalized_formula_units",), "total magnetization normalized to formula units"),
    _S("GetTotalMagnetizationNormalizedVolByMaterialId", "the total magnetization per volume (μB/Å³)", ("total_magnetization_normalized_vol",), "total magnetization normalized to volume"),
    _S("GetCrystalSystemByMaterialId", "the crystal system", ("symmetry.crystal_system",), "crystal system"),
    _S("GetSpaceGroupSymbolByMaterialId", "the space group symbol", ("symmetry.symbol",), "space group symbol"),
    _S("GetSymmetryByMaterialId", "the symmetry data (crystal system, space group symbol and number, point group)", ("symmetry",), "symmetry"),
    _S("GetSurfaceAnisotropyByMaterialId", "the surface energy anisotropy", ("surface_anisotropy",), "surface anisotropy"),
    _S("GetWeightedSurfaceEnergyByMaterialId", "the Wulff-weighted surface energy (J/m²)", ("weighted_surface_energy",), "weighted surface energy"),
    _S("GetPossibleSpeciesByMaterialId", "the possible oxidation-state species", ("possible_species",), "possible species"),
    _S("GetOriginsByMaterialId", "the origins (calculation task IDs) of its properties", ("origins",), "origins"),
    _S("GetStructureByMaterialId", "the relaxed structure (pymatgen dict)", ("structure",), "material structure"),
    _S("GetCrystalStructureByMaterialId", "the relaxed crystal structure as CIF text", ("structure",), "crystal structure", post="cif"),
    _S("GetAtomicPositionsMaterialId", "the atomic positions (species, fractional and Cartesian coordinates)", ("structure",), "atomic positions", post="positions"),
    _S("GetDocByMaterialId", "a summary document (formula, band gap, volume, density, stability, symmetry)", ("formula_pretty", "band_gap", "volume", "density", "energy_above_hull", "is_stable", "symmetry.symbol"), "band gap", returns="dict"),
    _S("GetPhysicalPropertiesByMaterialId", "the physical properties (density, volume, band gap, metallicity, magnetism, formation energy)", ("density", "density_atomic", "volume", "band_gap", "is_metal", "is_magnetic", "formation_energy_per_atom"), "physical properties", returns="dict"),
    _S("GetMagnetismInfoByMaterialId", "the magnetism information (ordering, total magnetization, magnetic sites and species)", ("ordering", "is_magnetic", "total_magnetization", "num_magnetic_sites", "types_of_magnetic_species"), "magnetism information", returns="dict"),
    _S("GetDielectricByMaterialId", "the dielectric information (total, ionic and electronic dielectric constants, refractive index)", ("e_total", "e_ionic", "e_electronic", "n"), "dielectric informatiom", returns="dict"),
    # other endpoints, by material_id
    _S("GetInitialStructuresByMaterialId", "the initial (input) structures", ("initial_structures",), "initial structure", endpoint="core"),
    _S("GetPossibleValencesByMaterialId", "the possible valences of its sites", ("possible_valences",), "possible valences", endpoint="oxidation_states"),
    _S("GetAverageOxidationStatesByMaterialId", "the average oxidation state of each element", ("average_oxidation_states",), "average oxidation states", endpoint="oxidation_states"),
    _S("GetOxidationStateMethodByMaterialId", "the method used to assign oxidation states", ("method",), "oxidation state method", endpoint="oxidation_states"),
    _S("GetPropertyNameByMaterialId", "the property name of the oxidation-state document", ("property_name",), "property name", endpoint="oxidation_states"),
    _S("GetCreatedTimeByMaterialId", "the creation time of the provenance record", ("created_at",), "created time", endpoint="provenance"),
    _S("GetReferencesByMaterialId", "the literature references (BibTeX)", ("references",), "references", endpoint="provenance"),
    _S("GetAuthorsByMaterialId", "the authors of the structure record", ("authors",), "authors", endpoint="provenance"),
    _S("GetRemarksByMaterialId", "the remarks of the structure record", ("remarks",), "remarks", endpoint="provenance"),
    _S("GetBondTypesByMaterialId", "the bond types and their lengths", ("bond_types",), "Bond types", endpoint="bonds"),
    _S("GetBondLengthStatsByMaterialId", "the bond length statistics (min, max, mean, variance in Å)", ("bond_length_stats",), "Bond length", endpoint="bonds"),
    _S("GetCoordinationEnvsByMaterialId", "the coordination environments", ("coordination_envs",), "coordination environments", endpoint="bonds"),
    _S("GetCoordinationEnvsAnonymousByMaterialId", "the anonymised coordination environments", ("coordination_envs_anonymous",), "anonymous coordination environments", endpoint="bonds"),
    _S("GetStructureGraphByMaterialId", "the bonding structure graph", ("structure_graph",), "structure graph", endpoint="bonds"),
    _S("GetBondInfoByMaterialId", "the chemical bonding information (method, bond types, bond length statistics, coordination environments)", ("method", "bond_types", "bond_length_stats", "coordination_envs"), "Bond info", endpoint="bonds", returns="dict"),
    _S("GetDescriptionByMaterialId", "the Robocrystallographer text description", ("description",), "material description", endpoint="robocrys"),
    # summary endpoint, by formula
    _S("GetBandGapByFormula", "the band gap (eV)", ("band_gap",), "band gap", by="formula"),
    _S("GetCbmByFormula", "the conduction band minimum (eV)", ("cbm",), "Conduction Band Minimum", by="formula"),
    _S("GetVbmByFormula", "the valence band maximum (eV)", ("vbm",), "Valence Band Maximum", by="formula"),
    _S("GetEfermiByFormula", "the Fermi energy (eV)", ("efermi",), "fermi energy", by="formula"),
    _S("GetVolumeByFormula", "the cell volume (Å³)", ("volume",), "volume", by="formula"),
    _S("GetDensityByFormula", "the density (g/cm³)", ("density",), "density", by="formula"),
    _S("GetDensityAtomicByFormula", "the atomic density (Å³ per atom)", ("density_atomic",), "atomic density", by="formula"),
    _S("GetEnergyPerAtomByFormula", "the corrected energy per atom (eV/atom)", ("energy_per_atom",), "energy per atom", by="formula"),
    _S("GetFormationEnergyPerAtomByFormula", "the formation energy per atom (eV/atom)", ("formation_energy_per_atom",), "formation energy per atom", by="formula"),
    _S("GetETotalByFormula", "the total dielectric constant", ("e_total",), "total energy", by="formula"),
    _S("GetEIonicByFormula", "the ionic dielectric constant", ("e_ionic",), "ionic energy", by="formula"),
    _S("GetEElectronicByFormula", "the electronic dielectric constant", ("e_electronic",), "electronnic energy", by="formula"),
    _S("IsMetalByFormula", "whether it is a metal", ("is_metal",), "True or False", by="formula"),
    _S("IsMagneticByFormula", "whether it is magnetic", ("is_magnetic",), "True or False", by="formula"),
    _S("IsStableByFormula", "whether it is on the convex hull (stable)", ("is_stable",), "True or False", by="formula"),
    _S("GetInitialStructuresByFormula", "the initial (input) structures", ("initial_structures",), "initial structure", endpoint="core", by="formula"),
]  # fmt: skip

register_mp_tools(MP_TABLE, __name__)


# --- searches -------------------------------------------------------------------------------


def _search(params: dict[str, Any], limit: int) -> list[dict[str, Any]]:
    if not 1 <= limit <= 1000:
        raise ToolInputError("limit must be between 1 and 1000")
    docs = mp_documents(
        "summary",
        {**params, "_fields": "material_id,formula_pretty,energy_above_hull", "_limit": limit},
    )
    return [
        {
            "material_id": d.get("material_id"),
            "formula": d.get("formula_pretty"),
            "energy_above_hull": d.get("energy_above_hull"),
        }
        for d in docs
    ]


def _elements(text: str) -> list[str]:
    from pymatgen.core import Element

    items = [e for e in re.split(r"[\s,;\-]+", text.strip()) if e]
    if not items:
        raise ToolInputError("give at least one element symbol")
    for e in items:
        if not Element.is_valid_symbol(e):
            raise ToolInputError(f"unknown element {e!r}")
    return items


@tool(
    name="GetMaterialIdByFormula",
    functionality="Get the Materials Project material_ids (with energy above hull) of all materials with a given formula, most stable first.",
    inputs=[FORMULA],
    outputs=[MATERIAL_ID],
    category="materials",
    source=MP_SOURCE,
    objects=["material", "Materials Project"],
    scenarios=["materials screening"],
    network=True,
)
def material_ids_by_formula(formula: str, limit: int = 50) -> list[dict[str, Any]]:
    """Materials with the reduced formula, sorted by energy above hull."""
    hits = _search({"formula": _clean_formula(formula)}, limit)
    return sorted(
        hits, key=lambda h: h["energy_above_hull"] if h["energy_above_hull"] is not None else 1e9
    )


@tool(
    name="SearchMaterialsContainingElements",
    functionality="Search Materials Project for materials containing at least the given elements (e.g. 'Li,Fe,O').",
    inputs=["elements"],
    outputs=[MATERIAL_ID],
    category="materials",
    source=MP_SOURCE,
    objects=["material", "Materials Project"],
    scenarios=["materials screening"],
    network=True,
)
def search_by_elements(elements: str, limit: int = 50) -> list[dict[str, Any]]:
    """Summary search with ``elements=``."""
    return _search({"elements": ",".join(_elements(elements))}, limit)


@tool(
    name="SearchMaterialsByChemsys",
    functionality="Search Materials Project for materials made of exactly the elements of a chemical system (e.g. 'Li-Fe-O').",
    inputs=["chemsys"],
    outputs=[MATERIAL_ID],
    category="materials",
    source=MP_SOURCE,
    objects=["material", "Materials Project"],
    scenarios=["materials screening", "phase diagrams"],
    network=True,
)
def search_by_chemsys(chemsys: str, limit: int = 50) -> list[dict[str, Any]]:
    """Summary search with ``chemsys=`` (elements sorted and joined by '-')."""
    return _search({"chemsys": "-".join(sorted(_elements(chemsys)))}, limit)


@tool(
    name="SearchByBandGap",
    functionality="Search Materials Project for materials whose band gap (eV) lies in a range 'min,max'.",
    inputs=["band gap range"],
    outputs=[MATERIAL_ID],
    category="materials",
    source=MP_SOURCE,
    objects=["material", "Materials Project"],
    scenarios=["materials screening", "semiconductors"],
    network=True,
)
def search_by_band_gap(band_gap_range: str, limit: int = 50) -> list[dict[str, Any]]:
    """Summary search with ``band_gap_min`` / ``band_gap_max``; one number means an exact ±0.01 eV window."""
    try:
        values = [
            float(v) for v in re.split(r"[\s,;]+|(?<=\d)-(?=\d)", band_gap_range.strip()) if v
        ]
    except ValueError as exc:
        raise ToolInputError(
            f"band gap range must be numbers like '1.0,2.0', got {band_gap_range!r}"
        ) from exc
    if len(values) == 1:
        values = [values[0] - 0.01, values[0] + 0.01]
    if len(values) != 2 or values[0] > values[1] or values[1] < 0:
        raise ToolInputError(
            f"band gap range must be 'min,max' with min <= max, got {band_gap_range!r}"
        )
    return _search({"band_gap_min": max(values[0], 0.0), "band_gap_max": values[1]}, limit)


_XAS_FIELDS = (
    "spectrum_id",
    "material_id",
    "formula_pretty",
    "absorbing_element",
    "edge",
    "spectrum_type",
)


@tool(
    name="SearchXasByFormula",
    functionality=(
        "Search Materials Project X-ray absorption spectra (XAS: XANES, EXAFS) of materials "
        "with a given formula: absorbing element, edge, spectrum type and material_id, "
        "optionally with the spectrum (energy in eV, absorption)."
    ),
    inputs=[FORMULA],
    outputs=["XAS data"],
    category="materials",
    source=MP_SOURCE,
    objects=["material", "X-ray absorption spectrum", "Materials Project"],
    scenarios=["spectroscopy", "materials characterisation"],
    network=True,
)
def search_xas_by_formula(
    formula: str, include_spectrum: bool = False, limit: int = 100
) -> list[dict[str, Any]]:
    """``/materials/xas/`` search with ``formula=`` (reduced formula)."""
    if not 1 <= limit <= 1000:
        raise ToolInputError("limit must be between 1 and 1000")
    fields = [*_XAS_FIELDS, *(["spectrum"] if include_spectrum else [])]
    docs = mp_documents(
        "xas",
        {"formula": _clean_formula(formula), "_fields": ",".join(fields), "_limit": limit},
    )
    hits = []
    for d in docs:
        hit = {f: d.get(f) for f in _XAS_FIELDS}
        if include_spectrum:
            spectrum = s if isinstance(s := d.get("spectrum"), dict) else {}
            hit["energy"] = spectrum.get("x")
            hit["absorption"] = spectrum.get("y")
        hits.append(hit)
    return hits
