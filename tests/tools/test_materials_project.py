"""Materials Project battery (insertion electrode), molecule and XAS tools, offline with respx."""

from __future__ import annotations

import json

import httpx
import pytest
import respx
from _library_calls import fail, run, tools_of

from scigate.tools import REGISTRY
from scigate.tools._coverage import BUNDLED_CATALOGUE
from scigate.tools.library.materials_project_batteries import BATTERY_TABLE
from scigate.tools.library.materials_project_molecules import MOLECULE_TABLE

tools_of(["materials_project", "materials_project_batteries", "materials_project_molecules"])

MP = "https://api.materialsproject.org"
CATALOGUE = {t["name"]: t for t in json.loads(BUNDLED_CATALOGUE.read_text())["tools"]}
CATEGORY = {"Material Tool": "materials", "Chemical Tool": "chemistry"}
EC_ID = "1c61e79f94a0a1d8a4b5b9e1b6d9b6a0-C3H4O3-0-1"  # ethylene carbonate, neutral singlet
META = {"api_version": "0.43.1", "time_stamp": "2024-05-01T00:00:00", "max_limit": 1000}


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MP_API_KEY", "test-key")


def _fields(route: respx.Route, call: int = -1) -> set[str]:
    return set(route.calls[call].request.url.params["_fields"].split(","))


# --- registration -----------------------------------------------------------------------------


def test_every_new_tool_has_its_catalogue_name_types_and_category():
    names = [s.name for s in BATTERY_TABLE + MOLECULE_TABLE]
    names += ["GetMoleculeIdByFormula", "SearchXasByFormula"]
    assert len(names) == len(set(names)) == 28 + 58 + 2
    for name in names:
        entry, t = CATALOGUE[name], REGISTRY[name]
        assert t.spec.network and t.spec.category == CATEGORY[entry["category"]], name
        assert (t.spec.inputs, t.spec.outputs) == (entry["inputs"], entry["outputs"]), name
        assert t.required_parameters == [
            {"battery_id": "battery_id", "molecule_id": "molecule_id"}.get(
                entry["inputs"][0], "formula"
            )
        ], name


def test_tools_are_listed_under_the_module_declaring_them():
    batteries = {t.name for t in tools_of(["materials_project_batteries"])}
    molecules = tools_of(["materials_project_molecules"])
    assert batteries == {s.name for s in BATTERY_TABLE}
    assert {t.name for t in molecules} == {s.name for s in MOLECULE_TABLE} | {
        "GetMoleculeIdByFormula"
    }
    assert {t.spec.category for t in molecules} == {"chemistry"}


def test_catalogue_battery_and_molecule_tools_are_all_implemented():
    wanted = [
        n
        for n, t in CATALOGUE.items()
        if t["inputs"][:1] in (["battery_id"], ["molecule_id"]) or n == "GetMoleculeIdByFormula"
    ]
    assert len(wanted) >= 85
    assert [n for n in wanted if n not in REGISTRY] == []


# --- battery electrodes --------------------------------------------------------------------------

LIFEPO4 = {
    "data": [
        {
            "battery_id": "mp-19017_Li",
            "battery_formula": "Li0-1FePO4",
            "working_ion": "Li",
            "average_voltage": 3.4239,
            "capacity_grav": 169.89,
            "framework": {"Fe": 1.0, "P": 1.0, "O": 4.0},
            "material_ids": ["mp-19017", "mp-753395"],
        }
    ],
    "meta": {**META, "total_doc": 1},
}


def test_battery_request_and_parsed_value(key):
    with respx.mock(assert_all_called=True) as mock:
        route = mock.get(f"{MP}/materials/insertion_electrodes/").mock(
            return_value=httpx.Response(200, json=LIFEPO4)
        )
        assert run("GetAverageVoltageByBatteryId", battery_id=" MP-19017_li ") == 3.4239
        request = route.calls[0].request
        assert request.url.path == "/materials/insertion_electrodes/"
        assert request.headers["X-API-KEY"] == "test-key"
        assert request.url.params["battery_ids"] == "mp-19017_Li"
        assert _fields(route) == {"battery_id", "average_voltage"}
        assert run("GetFrameworkByBatteryId", battery_id="mp-19017_Li") == {
            "Fe": 1.0,
            "P": 1.0,
            "O": 4.0,
        }
        assert run("GetMaterialIdByBatteryId", battery_id="mp-19017_Li") == [
            "mp-19017",
            "mp-753395",
        ]
        assert _fields(route) == {"battery_id", "material_ids"}


def test_battery_unknown_id_and_bad_ids(key):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(f"{MP}/materials/insertion_electrodes/").mock(
            return_value=httpx.Response(200, json={"data": [], "meta": META})
        )
        err = fail("GetCapacityGravByBatteryId", battery_id="mp-1_Li")
        assert "no insertion_electrodes record for mp-1_Li" in err
        for bad in ["mp-19017", "19017_Li", "mp-19017_Qq", "mp-19017-Li"]:
            assert "invalid battery_id" in fail("GetWorkingIonByBatteryId", battery_id=bad)
        assert "battery_id is empty" in fail("GetWorkingIonByBatteryId", battery_id=" ")
        assert route.call_count == 1  # bad IDs never reach the network


# --- molecules -----------------------------------------------------------------------------------

EC_SUMMARY = {
    "data": [
        {
            "molecule_id": EC_ID,
            "charge": 0,
            "spin_multiplicity": 1,
            "natoms": 10,
            "formula_alphabetical": "C3 H4 O3",
            "inchi": "InChI=1S/C3H4O3/c4-3-5-1-2-6-3/h1-2H2",
            "symmetry": {"point_group": "C2", "rotation_number": 2.0, "linear": False},
        }
    ],
    "meta": {**META, "total_doc": 1},
}


def test_molecule_summary_request_and_parsed_value(key):
    with respx.mock(assert_all_called=True) as mock:
        route = mock.get(f"{MP}/molecules/summary/").mock(
            return_value=httpx.Response(200, json=EC_SUMMARY)
        )
        assert run("GetNatomsByMoleculeId", molecule_id=EC_ID) == 10
        request = route.calls[0].request
        assert request.headers["X-API-KEY"] == "test-key"
        assert request.url.params["molecule_ids"] == EC_ID
        assert _fields(route) == {"molecule_id", "natoms"}
        assert run("GetChargeByMoleculeId", molecule_id=EC_ID) == 0
        assert run("GetInchiByMoleculeId", molecule_id=EC_ID).startswith("InChI=1S/C3H4O3/")
        assert run("GetSymmetryByMoleculeId", molecule_id=EC_ID)["point_group"] == "C2"
        assert _fields(route) == {"molecule_id", "symmetry"}


THERMO = {
    "data": [
        {
            "molecule_id": EC_ID,
            "property_id": "6463f9c29e8e0a6a7b1a0c01",
            "level_of_theory": "wB97X-V/def2-TZVPPD/SMD",
            "solvent": "SOLVENT=WATER",
            "lot_solvent": "wB97X-V/def2-TZVPPD/SMD(SOLVENT=WATER)",
            "free_energy": -9322.5651,
            "total_entropy": 0.003119,
        },
        {
            "molecule_id": EC_ID,
            "property_id": "6463f9c29e8e0a6a7b1a0c02",
            "level_of_theory": "wB97X-V/def2-TZVPPD/VACUUM",
            "solvent": "NONE",
            "lot_solvent": "wB97X-V/def2-TZVPPD/VACUUM",
            "free_energy": -9322.1187,
            "total_entropy": 0.003124,
        },
    ],
    "meta": {**META, "total_doc": 2},
}


def test_molecule_thermo_documents_per_level_of_theory(key):
    with respx.mock(assert_all_called=True) as mock:
        route = mock.get(f"{MP}/molecules/thermo/").mock(
            return_value=httpx.Response(200, json=THERMO)
        )
        assert run("GetFreeEnergyByMoleculeId", molecule_id=EC_ID) == -9322.5651
        request = route.calls[0].request
        assert request.headers["X-API-KEY"] == "test-key"
        assert request.url.params["molecule_ids"] == EC_ID
        assert _fields(route) == {
            "molecule_id",
            "free_energy",
            "lot_solvent",
            "level_of_theory",
            "solvent",
        }
        vacuum = run(
            "GetFreeEnergyByMoleculeId",
            molecule_id=EC_ID,
            lot_solvent="wb97x-v/def2-tzvppd/vacuum",
        )
        assert vacuum == -9322.1187
        err = fail("GetTotalEntropyByMoleculeId", molecule_id=EC_ID, lot_solvent="B3LYP/6-31g*")
        assert "no calculation at lot_solvent" in err and "VACUUM" in err
        assert run("GetThermoLevelsOfTheoryByMoleculeId", molecule_id=EC_ID) == [
            "wB97X-V/def2-TZVPPD/SMD",
            "wB97X-V/def2-TZVPPD/VACUUM",
        ]
        assert run("GetThermoPropertyIdsByMoelculeId", molecule_id=EC_ID)[1].endswith("c02")


def test_molecule_vibrations_and_orbitals(key):
    vibrations = {
        "data": [
            {
                "molecule_id": EC_ID,
                "lot_solvent": "wB97X-V/def2-TZVPPD/VACUUM",
                "frequencies": [211.6, 531.8, 1875.2],
                "ir_activities": [True, False, True],
            }
        ],
        "meta": META,
    }
    orbitals = {
        "data": [
            {
                "molecule_id": EC_ID,
                "open_shell": False,
                "nbo_population": [{"core_electrons": 1.9995, "valence_electrons": 3.2}],
            }
        ],
        "meta": META,
    }
    with respx.mock(assert_all_called=True) as mock:
        vib = mock.get(f"{MP}/molecules/vibrations/").mock(
            return_value=httpx.Response(200, json=vibrations)
        )
        orb = mock.get(f"{MP}/molecules/orbitals/").mock(
            return_value=httpx.Response(200, json=orbitals)
        )
        assert run("GetFrequenciesByMoleculeId", molecule_id=EC_ID) == [211.6, 531.8, 1875.2]
        assert "frequencies" in _fields(vib)
        assert run("GetIrActivitiesByMoleculeId", molecule_id=EC_ID) == [True, False, True]
        assert run("GetOpenShellByMoleculeId", molecule_id=EC_ID) is False
        assert orb.calls[0].request.url.params["molecule_ids"] == EC_ID
        assert run("GetNboPopulationByMoleculeId", molecule_id=EC_ID)[0]["core_electrons"] == 1.9995


def test_molecule_ids_by_formula(key):
    body = {
        "data": [
            {
                "molecule_id": EC_ID,
                "formula_alphabetical": "C3 H4 O3",
                "charge": 0,
                "spin_multiplicity": 1,
            },
            {
                "molecule_id": "1c61e79f94a0a1d8a4b5b9e1b6d9b6a0-C3H4O3-m1-2",
                "formula_alphabetical": "C3 H4 O3",
                "charge": -1,
                "spin_multiplicity": 2,
            },
        ],
        "meta": META,
    }
    with respx.mock(assert_all_called=True) as mock:
        route = mock.get(f"{MP}/molecules/summary/").mock(
            return_value=httpx.Response(200, json=body)
        )
        hits = run("GetMoleculeIdByFormula", formula="C3H4O3")
        assert [(h["charge"], h["spin_multiplicity"]) for h in hits] == [(0, 1), (-1, 2)]
        # MP matches the unreduced alphabetical formula exactly
        assert route.calls[0].request.url.params["formula"] == "C3 H4 O3"
    assert "unknown element" in fail("GetMoleculeIdByFormula", formula="Xx2")


def test_bad_molecule_ids_never_reach_the_network(key):
    with respx.mock(assert_all_called=False) as mock:
        route = mock.route().mock(return_value=httpx.Response(200, json=EC_SUMMARY))
        for bad in ["C3H4O3", "mpcule-", "hello world", "1c61e79f-C3H4O3-0"]:
            assert "invalid molecule_id" in fail("GetChargeByMoleculeId", molecule_id=bad)
        assert "molecule_id is empty" in fail("GetFreeEnergyByMoleculeId", molecule_id="")
        assert route.call_count == 0
    for good in [
        "mpcule-1234",
        "libe-1c61e79f94a0a1d8-C3H4O3-m1-2",
        "1c61e79f94a0a1d8a4b5b9e1b6d9b6a0",
    ]:
        with respx.mock() as mock:
            mock.get(f"{MP}/molecules/summary/").mock(
                return_value=httpx.Response(200, json=EC_SUMMARY)
            )
            assert run("GetChargeByMoleculeId", molecule_id=good) == 0


# --- XAS -----------------------------------------------------------------------------------------


def test_xas_search_by_formula(key):
    body = {
        "data": [
            {
                "spectrum_id": "mp-19017-XANES-Fe-K",
                "material_id": "mp-19017",
                "formula_pretty": "LiFePO4",
                "absorbing_element": "Fe",
                "edge": "K",
                "spectrum_type": "XANES",
                "spectrum": {"x": [7110.0, 7111.2], "y": [0.01, 0.05]},
            }
        ],
        "meta": META,
    }
    with respx.mock(assert_all_called=True) as mock:
        route = mock.get(f"{MP}/materials/xas/").mock(return_value=httpx.Response(200, json=body))
        (hit,) = run("SearchXasByFormula", formula="Li2Fe2P2O8", include_spectrum=True)
        assert hit["absorbing_element"] == "Fe" and hit["edge"] == "K"
        assert hit["energy"] == [7110.0, 7111.2] and hit["absorption"] == [0.01, 0.05]
        assert route.calls[0].request.url.params["formula"] == "LiFePO4"
        assert "spectrum" in _fields(route)
        (plain,) = run("SearchXasByFormula", formula="LiFePO4")
        assert "energy" not in plain and "spectrum" not in _fields(route)


# --- no key, no network ----------------------------------------------------------------------------


def test_missing_api_key_is_explained(monkeypatch):
    monkeypatch.delenv("MP_API_KEY", raising=False)
    assert "set MP_API_KEY" in fail("GetAverageVoltageByBatteryId", battery_id="mp-19017_Li")
    assert "set MP_API_KEY" in fail("GetChargeByMoleculeId", molecule_id=EC_ID)
    assert "set MP_API_KEY" in fail("GetFreeEnergyByMoleculeId", molecule_id=EC_ID)
    assert "set MP_API_KEY" in fail("GetMoleculeIdByFormula", formula="C2H4")
    # a bad ID is reported before the missing key
    assert "invalid battery_id" in fail("GetAverageVoltageByBatteryId", battery_id="mp-19017")


def test_offline_is_network_unavailable_quickly(key):
    calls = [
        ("GetAverageVoltageByBatteryId", {"battery_id": "mp-19017_Li"}),
        ("GetChargeByMoleculeId", {"molecule_id": EC_ID}),
        ("GetFreeEnergyByMoleculeId", {"molecule_id": EC_ID}),
        ("GetFrequenciesByMoleculeId", {"molecule_id": EC_ID}),
        ("GetOpenShellByMoleculeId", {"molecule_id": EC_ID}),
        ("GetMoleculeIdByFormula", {"formula": "C2H4"}),
        ("SearchXasByFormula", {"formula": "LiFePO4"}),
    ]
    with respx.mock(assert_all_called=False) as mock:
        mock.route().mock(side_effect=httpx.ConnectError("no network"))
        for name, args in calls:
            before = mock.calls.call_count
            assert "network unavailable" in fail(name, **args)
            assert mock.calls.call_count == before + 1  # one refused request: no retrying
