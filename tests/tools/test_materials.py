"""Materials tools (pymatgen) on hand-written CIFs, formula tools, and the Materials Project client."""

from __future__ import annotations

import json
import math
from pathlib import Path

import httpx
import pytest
import respx
from _library_calls import assert_offline_tools_refuse_garbage, fail, run, tools_of

from scigate.tools import REGISTRY
from scigate.tools._coverage import BUNDLED_CATALOGUE
from scigate.tools.library.materials_project import MP_TABLE

MODULES = [
    "materials",
    "materials_cells",
    "materials_common",
    "materials_composition",
    "materials_project",
    "materials_project_batteries",
]
tools_of(MODULES)  # imports the modules, registering their tools

DATA = Path(__file__).parent / "data"
NACL = (DATA / "NaCl_rocksalt.cif").read_text()
SI = (DATA / "Si_diamond.cif").read_text()
RUTILE = (DATA / "TiO2_rutile.cif").read_text()
CATALOGUE = BUNDLED_CATALOGUE
N_A = 6.02214076e23
CU_KA = 1.54184


def material_tools():
    return tools_of(MODULES)


# --- structures -------------------------------------------------------------------------------


def test_density_from_lattice_constants():
    # rho = Z * M / (a^3 N_A)
    assert run("CalculateDensity", cif=NACL) == pytest.approx(
        4 * 58.443 / (5.64**3 * 1e-24 * N_A), rel=1e-4
    )
    assert run("CalculateDensity", cif=NACL) == pytest.approx(2.16, abs=0.01)
    assert run("CalculateDensity", cif=SI) == pytest.approx(2.329, abs=0.001)
    assert run("CalculateDensity", cif=RUTILE) == pytest.approx(4.25, abs=0.01)


def test_symmetry_of_reference_structures():
    assert run("CalculateSymmetry", cif=NACL)["space_group_number"] == 225
    si = run("CalculateSymmetry", cif=SI)
    assert (si["space_group_symbol"], si["space_group_number"]) == ("Fd-3m", 227)
    rutile = run("CalculateSymmetry", cif=RUTILE)
    assert (rutile["space_group_number"], rutile["crystal_system"]) == (136, "tetragonal")
    assert run("GetCrystalSystemFromCIF", cif=RUTILE) == "tetragonal"


def test_structure_info_composition_and_cells():
    info = run("GetStructureInfo", cif=NACL)
    assert info["nsites"] == 8 and info["reduced_formula"] == "NaCl"
    assert info["volume"] == pytest.approx(5.64**3)
    assert (info["alpha"], info["beta"], info["gamma"]) == pytest.approx((90, 90, 90))
    comp = run("GetElementComposition", cif=RUTILE)
    assert comp["counts"] == {"Ti": 2.0, "O": 4.0}
    prim = run("GetPrimitiveCell", cif=SI)
    assert prim["nsites"] == 2 and prim["volume"] == pytest.approx(5.431**3 / 4)
    conv = run("GetConventionalCell", cif=NACL)
    assert conv["nsites"] == 8 and conv["a"] == pytest.approx(5.64)
    lattice = run("MofLattice", cif=RUTILE)
    assert lattice["c"] == pytest.approx(2.959)
    coords = run("MofFractionalCoordinates", cif=RUTILE)
    assert len(coords) == 6 and {c["species"] for c in coords} == {"Ti", "O"}


def test_neighbours_and_coordination():
    assert run("GetNearestNeighborDistance", cif=NACL)["distance"] == pytest.approx(2.82)
    si_bond = run("GetNearestNeighborDistance", cif=SI)["distance"]
    assert si_bond == pytest.approx(5.431 * math.sqrt(3) / 4)  # 2.352 Å
    cn = run("GetCoordinationNumbers", cif=RUTILE)
    assert {c["species"]: c["cn"] for c in cn} == {"Ti": 6, "O": 3}
    nbrs = run("MofNeighborIndices", cif=SI, site_index=0)
    assert len(nbrs) == 4 and all(n["distance"] == pytest.approx(si_bond) for n in nbrs)


def test_xrd_peak_positions_follow_bragg():
    peaks = run("CalculateXRDPattern", cif=NACL, n_peaks=20)
    by_angle = sorted(peaks, key=lambda p: p["two_theta"])
    # fcc: allowed reflections 111, 200, 220, 311 first
    expected = [math.sqrt(3), 2.0, math.sqrt(8), math.sqrt(11)]
    for peak, root in zip(by_angle, expected, strict=False):
        d = 5.64 / root
        assert peak["d_spacing"] == pytest.approx(d, rel=1e-6)
        assert peak["two_theta"] == pytest.approx(
            2 * math.degrees(math.asin(CU_KA / (2 * d))), rel=1e-6
        )
    assert by_angle[1]["hkl"] == [2, 0, 0] and by_angle[1]["intensity"] == pytest.approx(100.0)
    si = run("CalculateXRDPattern", cif=SI, n_peaks=2)
    # diamond: 200 is forbidden; 111 then 220 are the strongest
    assert [p["hkl"] for p in si] == [[1, 1, 1], [2, 2, 0]]


def test_xrd_returns_the_strongest_peaks_first():
    every = run("CalculateXRDPattern", cif=NACL, n_peaks=20)
    top = run("CalculateXRDPattern", cif=NACL, n_peaks=4)
    intensities = [p["intensity"] for p in every]
    assert intensities == sorted(intensities, reverse=True)
    assert top == every[:4]
    # NaCl (Cu Kα): 200 > 220 > 420 > 222, while 111 (first by angle) is weak
    assert [p["hkl"] for p in top] == [[2, 0, 0], [2, 2, 0], [4, 2, 0], [2, 2, 2]]
    assert [1, 1, 1] not in [p["hkl"] for p in top]


def test_compare_supercell_poscar_oxidation():
    assert run("CompareStructures", cif_a=SI, cif_b=SI) is True
    assert run("CompareStructures", cif_a=NACL, cif_b=RUTILE) is False
    sc = run("MakeSupercell", cif=NACL, scaling="2", include_cif=True)
    assert sc["nsites"] == 64 and sc["volume"] == pytest.approx(8 * 5.64**3)
    # the supercell is still rock salt
    assert run("CompareStructures", cif_a=sc["cif"], cif_b=NACL) is True
    poscar = run("ConvertCIFToPOSCAR", cif=SI)
    assert poscar.splitlines()[5].split() == ["Si"] and poscar.splitlines()[6].split() == ["8"]
    assert run("GetOxidationStatesFromCIF", cif=RUTILE) == {"Ti": 4, "O": -2}


# --- formulas, elements, space groups ------------------------------------------------------------------


def test_formula_tools():
    assert run("GetMolarMassFromFormula", formula="H2O") == pytest.approx(18.015, abs=1e-3)
    assert run("GetMolarMassFromFormula", formula="NaCl") == pytest.approx(58.443, abs=1e-3)
    assert run("GetReducedFormula", formula="Li2Fe2P2O8") == "LiFePO4"
    assert run("GetFormulaAnonymousByFormula", formula="NaCl") == "AB"
    assert run("GetChemicalSystemFromFormula", formula="Fe2O3") == "Fe-O"
    assert run("GetElementFractions", formula="TiO2") == pytest.approx({"Ti": 1 / 3, "O": 2 / 3})
    wt = run("GetWeightFractions", formula="H2O")
    assert wt["O"] == pytest.approx(15.9994 / 18.01528, rel=1e-4)
    assert run("GuessOxidationStates", formula="TiO2")[0] == {"Ti": 4.0, "O": -2.0}
    assert run("CountAtomsInFormula", formula="Al2(SO4)3") == 17
    assert run("CountElementsInFormula", formula="Al2(SO4)3") == 3
    assert run("GetAverageElectronegativity", formula="SiO2") == pytest.approx(
        (1.90 + 2 * 3.44) / 3
    )
    assert run("GetElementProperties", element="si")["Z"] == 14
    assert run("GetSpaceGroupInfo", space_group="Fm-3m")["number"] == 225


# --- bad input ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "args", "needle"),
    [
        ("CalculateDensity", {"cif": "this is not a CIF"}, "could not parse CIF"),
        ("CalculateDensity", {"cif": ""}, "could not parse CIF"),
        ("GetStructureInfo", {"cif": "data_x\n_cell_length_a 3\n"}, "could not parse CIF"),
        ("CalculateSymmetry", {"cif": "/etc/some/file.cif"}, "looks like a file name"),
        ("CalculateSymmetry", {"cif": SI, "symprec": 0}, "symprec"),
        ("MofNeighborIndices", {"cif": SI, "site_index": 8}, "out of range"),
        ("MakeSupercell", {"cif": SI, "scaling": "2,a"}, "scaling"),
        ("CalculateXRDPattern", {"cif": SI, "wavelength": "Unobtainium"}, "unknown wavelength"),
        ("GetMolarMassFromFormula", {"formula": "Xx2O"}, "unknown element 'Xx'"),
        ("GetMolarMassFromFormula", {"formula": "NaCl)("}, "invalid formula"),
        ("GetReducedFormula", {"formula": ""}, "empty"),
        ("GetElementProperties", {"element": "Qq"}, "unknown element"),
        ("GetSpaceGroupInfo", {"space_group": "231"}, "1..230"),
        ("GetSpaceGroupInfo", {"space_group": "Zz-9"}, "unknown space group"),
    ],
)
def test_bad_input_is_reported(name, args, needle):
    assert needle in fail(name, **args)


def test_every_offline_tool_survives_garbage():
    assert_offline_tools_refuse_garbage(material_tools())


# --- Materials Project client -----------------------------------------------------------------------

MP_149 = {
    "data": [
        {
            "material_id": "mp-149",
            "formula_pretty": "Si",
            "band_gap": 0.85,
            "energy_above_hull": 0.0,
            "is_stable": True,
            "density": 2.28,
            "volume": 40.89,
            "symmetry": {
                "crystal_system": "Cubic",
                "symbol": "Fd-3m",
                "number": 227,
                "point_group": "m-3m",
                "symprec": 0.1,
            },
        }
    ],
    "meta": {
        "api_version": "0.43.1",
        "time_stamp": "2024-05-01T00:00:00",
        "total_doc": 1,
        "max_limit": 1000,
    },
}


def test_missing_api_key_is_explained(monkeypatch):
    monkeypatch.delenv("MP_API_KEY", raising=False)
    err = fail("GetBandGapByMaterialId", material_id="mp-149")
    assert "set MP_API_KEY" in err


def test_mp_offline_is_network_unavailable(monkeypatch):
    monkeypatch.setenv("MP_API_KEY", "test-key")
    with respx.mock(assert_all_called=False) as mock:
        mock.route().mock(side_effect=httpx.ConnectError("no network"))
        for name, arg in [
            ("GetBandGapByMaterialId", {"material_id": "mp-149"}),
            ("GetDensityByFormula", {"formula": "Si"}),
            ("SearchMaterialsByChemsys", {"chemsys": "Li-Fe-O"}),
            ("GetAverageOxidationStatesByMaterialId", {"material_id": "mp-149"}),
        ]:
            calls = mock.calls.call_count
            assert "network unavailable" in fail(name, **arg)
            assert mock.calls.call_count == calls + 1  # one refused request: no retrying


def test_mp_response_is_parsed(monkeypatch):
    monkeypatch.setenv("MP_API_KEY", "test-key")
    with respx.mock(assert_all_called=True) as mock:
        route = mock.get("https://api.materialsproject.org/materials/summary/").mock(
            return_value=httpx.Response(200, json=MP_149)
        )
        assert run("GetBandGapByMaterialId", material_id="mp-149") == 0.85
        assert run("IsStableByMaterialId", material_id="MP-149") is True
        assert run("GetSpaceGroupSymbolByMaterialId", material_id="mp-149") == "Fd-3m"
        doc = run("GetDocByMaterialId", material_id="mp-149")
        assert (
            doc["band_gap"] == 0.85 and doc["volume"] == 40.89 and doc["symmetry.symbol"] == "Fd-3m"
        )
        request = route.calls[0].request
        assert request.headers["X-API-KEY"] == "test-key"
        assert request.url.params["material_ids"] == "mp-149"
        assert set(request.url.params["_fields"].split(",")) == {"material_id", "band_gap"}


def test_mp_formula_query_picks_most_stable(monkeypatch):
    monkeypatch.setenv("MP_API_KEY", "test-key")
    body = {
        "data": [
            {"material_id": "mp-1", "band_gap": 3.0, "energy_above_hull": 0.2},
            {"material_id": "mp-2", "band_gap": 1.1, "energy_above_hull": 0.0},
        ],
        "meta": {"total_doc": 2},
    }
    with respx.mock() as mock:
        route = mock.get("https://api.materialsproject.org/materials/summary/").mock(
            return_value=httpx.Response(200, json=body)
        )
        value = run("GetBandGapByFormula", formula="Si2")
        assert value == {"material_id": "mp-2", "value": 1.1, "matches": 2}
        assert route.calls[0].request.url.params["formula"] == "Si"
        ids = run("GetMaterialIdByFormula", formula="Si")
        assert [i["material_id"] for i in ids] == ["mp-2", "mp-1"]


def test_mp_structure_becomes_cif(monkeypatch):
    from pymatgen.core import Structure

    monkeypatch.setenv("MP_API_KEY", "test-key")
    structure = Structure.from_str(SI, fmt="cif")
    body = {
        "data": [
            {"material_id": "mp-149", "structure": json.loads(json.dumps(structure.as_dict()))}
        ],
        "meta": {},
    }
    with respx.mock() as mock:
        mock.get("https://api.materialsproject.org/materials/summary/").mock(
            return_value=httpx.Response(200, json=body)
        )
        cif = run("GetCrystalStructureByMaterialId", material_id="mp-149")
        assert run("CompareStructures", cif_a=cif, cif_b=SI) is True
        positions = run("GetAtomicPositionsMaterialId", material_id="mp-149")
        assert len(positions) == 8


def test_mp_errors(monkeypatch):
    monkeypatch.setenv("MP_API_KEY", "bad-key")
    with respx.mock() as mock:
        mock.get("https://api.materialsproject.org/materials/summary/").mock(
            side_effect=[
                httpx.Response(403, json={"detail": "invalid api key"}),
                httpx.Response(200, json={"data": [], "meta": {}}),
                httpx.Response(200, text="<html>maintenance</html>"),
            ]
        )
        assert "HTTP 403" in fail("GetBandGapByMaterialId", material_id="mp-149")
        assert "no summary record for mp-9999" in fail(
            "GetBandGapByMaterialId", material_id="mp-9999"
        )
        assert "not JSON" in fail("GetBandGapByMaterialId", material_id="mp-149")
    assert "invalid material_id" in fail("GetBandGapByMaterialId", material_id="149")
    assert "unknown element" in fail("GetBandGapByFormula", formula="Xx")


def test_mp_tools_use_catalogue_names():
    catalogue = {t["name"]: t for t in json.loads(CATALOGUE.read_text())["tools"]}
    names = [spec.name for spec in MP_TABLE]
    assert len(names) == len(set(names)) >= 70
    for name in names:
        tool = REGISTRY[name]
        assert tool.spec.network and tool.spec.category == "materials"
        if catalogue:
            assert catalogue[name]["category"] == "Material Tool"
    for t in material_tools():
        if t.name in catalogue:
            assert catalogue[t.name]["category"] == "Material Tool", t.name


def test_a_cached_cif_parse_is_not_shared_between_callers() -> None:
    """Parsed CIFs are cached; each caller gets its own copy, so one tool mutating its
    structure cannot change what the next call sees."""
    from scigate.bench._entities import load_entities
    from scigate.tools.library.materials_common import load_structure

    cif = load_entities()["crystal"][0].value
    first = load_structure(cif)
    n = len(first)
    first.remove_sites([0])
    assert len(load_structure(cif)) == n
