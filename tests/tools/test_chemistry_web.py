"""PubChem PUG-REST chemistry tools, offline: respx replays real PUG-REST answers."""

from __future__ import annotations

import httpx
import pytest
import respx

pytest.importorskip("rdkit")

from scigate.tools._vocabulary import cas_check_digit_ok
from scigate.tools.library import chemistry_web as web

PUG = "https://pubchem.ncbi.nlm.nih.gov/rest/pug"
ASPIRIN_KEY = "BSYNRYMUTXBXSQ-UHFFFAOYSA-N"
ASPIRIN_INCHI = "InChI=1S/C9H8O4/c1-6(10)13-8-5-3-2-4-7(8)9(11)12/h2-5H,1H3,(H,11,12)"

# bodies as PUG-REST returns them (CID 2244, aspirin)
SMILES_BODY = {
    "PropertyTable": {"Properties": [{"CID": 2244, "SMILES": "CC(=O)OC1=CC=CC=C1C(=O)O"}]}
}
INCHI_BODY = {"PropertyTable": {"Properties": [{"CID": 2244, "InChI": ASPIRIN_INCHI}]}}
CID_BODY = {"IdentifierList": {"CID": [2244]}}
SYNONYMS_BODY = {
    "InformationList": {
        "Information": [
            {
                "CID": 2244,
                "Synonym": [
                    "aspirin",
                    "ACETYLSALICYLIC ACID",
                    "50-78-2",
                    "2-Acetoxybenzoic acid",
                    "11126-35-5",
                ],
            }
        ]
    }
}
PROPS_BODY = {
    "PropertyTable": {
        "Properties": [
            {
                "CID": 2244,
                "MolecularFormula": "C9H8O4",
                "MolecularWeight": "180.16",
                "ExactMass": "180.04225873",
                "XLogP": 1.2,
                "TPSA": 63.6,
                "HBondDonorCount": 1,
                "HBondAcceptorCount": 4,
                "IUPACName": "2-acetyloxybenzoic acid",
                "InChIKey": ASPIRIN_KEY,
            }
        ]
    }
}
NOT_FOUND = {
    "Fault": {
        "Code": "PUGREST.NotFound",
        "Message": "No CID found",
        "Details": ["No CID found that matches the given name"],
    }
}
SDF_TEXT = """2244
  -OEChem-01012500002D

 13 13  0     0  0  0  0  0  0999 V2000
    3.7320   -0.0600    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0
M  END
> <PUBCHEM_COMPOUND_CID>
2244

$$$$
"""

OFFLINE_CASES = [
    (web.inchikey_to_smiles, {"inchikey": ASPIRIN_KEY}),
    (web.inchikey_to_inchi, {"inchikey": ASPIRIN_KEY}),
    (web.inchikey_to_mol, {"inchikey": ASPIRIN_KEY}),
    (web.pubchem_name_to_smiles, {"name": "aspirin"}),
    (web.name_to_cid, {"name": "aspirin"}),
    (web.pubchem_properties, {"name": "aspirin"}),
    (web.smiles_to_cas, {"smiles": "CC(=O)Oc1ccccc1C(=O)O"}),
]


@pytest.mark.parametrize(("tool", "args"), OFFLINE_CASES, ids=[t.name for t, _ in OFFLINE_CASES])
def test_offline_web_tools_say_network_unavailable(tool, args):
    assert tool.spec.network is True
    with respx.mock(assert_all_called=False) as mock:
        mock.route(host="pubchem.ncbi.nlm.nih.gov").mock(side_effect=httpx.ConnectError("no route"))
        result = tool.call(args).as_dict()
    assert result["ok"] is False
    assert "network unavailable" in result["error"] and "PubChem" in result["error"]


def test_inchikey_lookups_parse_pug_rest_answers():
    with respx.mock() as mock:
        smi = mock.get(f"{PUG}/compound/inchikey/{ASPIRIN_KEY}/property/SMILES/JSON").respond(
            json=SMILES_BODY
        )
        inc = mock.get(f"{PUG}/compound/inchikey/{ASPIRIN_KEY}/property/InChI/JSON").respond(
            json=INCHI_BODY
        )
        sdf = mock.get(f"{PUG}/compound/inchikey/{ASPIRIN_KEY}/SDF").respond(text=SDF_TEXT)
        assert web.inchikey_to_smiles(ASPIRIN_KEY) == {
            "ok": True,
            "value": "CC(=O)Oc1ccccc1C(=O)O",
            "display": "CC(=O)Oc1ccccc1C(=O)O",
        }
        assert web.inchikey_to_inchi(ASPIRIN_KEY)["value"] == ASPIRIN_INCHI
        mol = web.inchikey_to_mol(ASPIRIN_KEY)["value"]
        assert (
            mol.startswith("2244")
            and mol.rstrip().endswith("M  END")
            and "PUBCHEM_COMPOUND_CID" not in mol
        )
    assert smi.called and inc.called and sdf.calls.last.request.url.params["record_type"] == "2d"


def test_name_lookups_post_the_name():
    with respx.mock() as mock:
        cids = mock.post(f"{PUG}/compound/name/cids/JSON").respond(json=CID_BODY)
        props = mock.post(f"{PUG}/compound/name/property/{','.join(web.PROPERTIES)}/JSON").respond(
            json=PROPS_BODY
        )
        smiles = mock.post(f"{PUG}/compound/name/property/SMILES/JSON").respond(json=SMILES_BODY)
        assert web.name_to_cid("aspirin")["value"] == [2244]
        p = web.pubchem_properties("aspirin")["value"]
        assert p["MolecularWeight"] == 180.16 and p["TPSA"] == 63.6 and p["InChIKey"] == ASPIRIN_KEY
        assert (
            web.pubchem_name_to_smiles("acetylsalicylic acid")["value"] == "CC(=O)Oc1ccccc1C(=O)O"
        )
    assert cids.calls.last.request.content == b"name=aspirin"
    assert props.called
    assert smiles.calls.last.request.content == b"name=acetylsalicylic+acid"


def test_smiles_to_cas_picks_the_first_valid_registry_number():
    with respx.mock() as mock:
        route = mock.post(f"{PUG}/compound/smiles/synonyms/JSON").respond(json=SYNONYMS_BODY)
        assert web.smiles_to_cas("CC(=O)Oc1ccccc1C(=O)O")["value"] == "50-78-2"
    assert route.calls.last.request.content.startswith(b"smiles=")
    assert cas_check_digit_ok("50-78-2") and cas_check_digit_ok("7732-18-5")
    assert not cas_check_digit_ok("50-78-3") and not cas_check_digit_ok("50-78-2x")


def test_not_found_and_bad_input():
    with respx.mock() as mock:
        mock.post(f"{PUG}/compound/name/cids/JSON").respond(404, json=NOT_FOUND)
        result = web.name_to_cid("no such chemical xyz")
    assert result["ok"] is False and "no record" in result["error"]
    with respx.mock() as mock:  # invalid input never reaches the network
        bad_key = web.inchikey_to_smiles("not-a-key")
        bad_smiles = web.smiles_to_cas("C1CC(")
        empty = web.name_to_cid("")
        assert not mock.calls
    assert "invalid InChIKey" in bad_key["error"]
    assert "invalid SMILES" in bad_smiles["error"]
    assert "empty molecule name" in empty["error"]
