"""Chemistry tools: reference values per tool family, round trips, bad input, seeded 3D."""

from __future__ import annotations

import importlib
import json
import math

import pytest

from scigate.tools._coverage import BUNDLED_CATALOGUE

pytest.importorskip("rdkit")

from scigate.tools import REGISTRY, Tool

MODULES = [
    "chemistry",
    "chemistry_descriptors",
    "chemistry_3d",
    "chemistry_fingerprints",
    "chemistry_structure",
    "chemistry_web",
]
for _m in MODULES:
    importlib.import_module(f"scigate.tools.library.{_m}")

CHEM: dict[str, Tool] = {
    n: t
    for n, t in REGISTRY.items()
    if t.spec.category == "chemistry"
    and t.fn.__module__.startswith("scigate.tools.library.chemistry")
}

ETHANOL = "CCO"
BENZENE = "c1ccccc1"
ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"
CAFFEINE = "Cn1c(=O)c2c(ncn2C)n(C)c1=O"
IBUPROFEN = "CC(C)Cc1ccc(cc1)C(C)C(=O)O"
CATALOGUE = BUNDLED_CATALOGUE


def call(tool_name: str, **kwargs):
    return CHEM[tool_name](**kwargs)


def value(tool_name: str, **kwargs):
    result = call(tool_name, **kwargs)
    assert result["ok"], result
    return result["value"]


# ------------------------------------------------------------------ the library itself


def test_at_least_ninety_offline_tools_with_full_ontology():
    offline = [t for t in CHEM.values() if not t.spec.network]
    assert len(offline) >= 90
    for t in CHEM.values():
        assert t.spec.functionality and t.spec.inputs and t.spec.outputs
        assert t.spec.source in {
            "RDKit",
            "OPSIN (py2opsin)",
            "selfies",
            "PubChem PUG-REST",
            "InChI format rules",
        }
        assert t.available()


def test_every_declared_example_reproduces():
    checked = 0
    for name, t in CHEM.items():
        if name == "NameToSMILES":  # JVM start-up; checked once below
            continue
        for ex in t.spec.examples:
            result = t.call(ex.input)
            assert result.ok, (name, ex.input, result.error)
            assert ex.matches(result.value), (name, ex.input, result.value, ex.output)
            checked += 1
    assert checked >= 150


def test_catalogue_names_keep_catalogue_types_and_safety():
    records = {r["name"]: r for r in json.loads(CATALOGUE.read_text())["tools"]}
    shared = [n for n in CHEM if n in records]
    assert len(shared) >= 100
    for n in shared:
        assert CHEM[n].spec.safety == records[n]["security_check"], n
    assert CHEM["GetMolFormula"].spec.outputs == ["Molecule Formula"]
    assert CHEM["MolSimilarity"].spec.inputs == ["SMILES pair"]


def test_results_are_json_serialisable():
    for name in [
        "GetAtomFeature",
        "GetTautomers",
        "GetBCUT",
        "GetMorganFingerprint",
        "AssignCIPLabels",
        "GetUSR",
    ]:
        json.dumps(call(name, smiles=ASPIRIN))


# ------------------------------------------------------------------ weights, formula, counts


def test_weights_and_formula_match_pubchem():
    assert value("SMILESToWeight", smiles=ETHANOL) == pytest.approx(46.069, abs=1e-3)
    assert value("SMILESToWeight", smiles=IBUPROFEN) == pytest.approx(206.28, abs=0.01)
    assert value("GetExactMolceularWeight", smiles=ETHANOL) == pytest.approx(46.041865, abs=1e-6)
    assert value("GetExactMolceularWeight", smiles=CAFFEINE) == pytest.approx(194.080376, abs=1e-6)
    assert value("GetMolFormula", smiles=CAFFEINE) == "C8H10N4O2"
    assert value("GetMolFormula", smiles="CC(=O)[O-]") == "C2H3O2-"


def test_drug_like_descriptors_of_aspirin():
    assert value("CalculateTPSA", smiles=ASPIRIN) == pytest.approx(63.6, abs=0.01)
    assert value("GetHBDNum", smiles=ASPIRIN) == 1
    assert value("GetHBANum", smiles=ASPIRIN) == 3
    assert value("GetLipinskiHBANum", smiles=ASPIRIN) == 4
    assert value("GetHeavyAtomsNum", smiles=ASPIRIN) == 13
    assert value("GetFractionCSP3", smiles=IBUPROFEN) == pytest.approx(6 / 13)
    crippen = value("GetCrippenDescriptors", smiles=ASPIRIN)
    assert crippen["logp"] == pytest.approx(1.31, abs=0.01)
    rule = value("CheckLipinskiRuleOfFive", smiles=ASPIRIN)
    assert rule["passes"] and rule["violations"] == []
    big = "CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC(=O)O"
    assert "logp > 5" in value("CheckLipinskiRuleOfFive", smiles=big)["violations"]
    assert 0 < value("CalculateQED", smiles=IBUPROFEN) <= 1


def test_topological_indices_by_hand():
    # chi0n of ethanol: delta = Zv - h = 1, 2, 5; kappa1 of ethanol (A=3, alpha=-0.04)
    assert value("GetChi0n", smiles=ETHANOL) == pytest.approx(
        1 + 1 / math.sqrt(2) + 1 / math.sqrt(5)
    )
    a = 3 - 0.04
    assert value("GetKappa1", smiles=ETHANOL) == pytest.approx(
        a * (a - 1) ** 2 / (2 + (-0.04)) ** 2
    )
    assert value("GetHallKierAlpha", smiles=BENZENE) == pytest.approx(-0.78)
    assert value("GetRingsNum", smiles=CAFFEINE) == 2
    assert value("GetAromaticHeterocyclesNum", smiles=CAFFEINE) == 2
    assert value("GetSpiroAtomsNum", smiles="C1CCC2(C1)CCNCC2") == 1
    assert value("GetBridgeheadAtomsNum", smiles="C1CC2CCC1C2") == 2
    assert value("GetAmideBondsNum", smiles="CC(=O)Nc1ccc(O)cc1") == 1
    estate = value("CalculateEstateIndices", smiles=ETHANOL)
    assert estate[2] == pytest.approx(6 + 4.5 / 4 + 4 / 9)
    assert len(value("GetAutocorrelation2D", smiles=ASPIRIN)) == 192
    assert value(
        "CalculateMolecularDescriptor", smiles=ASPIRIN, descriptor="TPSA"
    ) == pytest.approx(63.6, abs=0.01)
    bad = call("CalculateMolecularDescriptor", smiles=ASPIRIN, descriptor="tpsa")
    assert not bad["ok"] and "did you mean TPSA" in bad["error"]


# ------------------------------------------------------------------ conversions


def test_inchi_round_trip_gives_the_pubchem_key():
    inchi = value("SMILESToInChI", smiles=ASPIRIN)
    assert inchi.startswith("InChI=1S/C9H8O4/")
    assert value("InChIToInChIKey", inchi=inchi) == "BSYNRYMUTXBXSQ-UHFFFAOYSA-N"
    assert value("SMILESToInChIKey", smiles=ASPIRIN) == "BSYNRYMUTXBXSQ-UHFFFAOYSA-N"
    assert value("InChIToSMILES", inchi=inchi) == value("CanonicalizeSMILES", smiles=ASPIRIN)
    assert value("IsValidInChIKey", inchikey="RYYVLZVUVIJVGH-UHFFFAOYSA-N") is True
    assert value("IsValidInChIKey", inchikey="RYYVLZVUVIJVGH-UHFFFAOYSA-1") is False


@pytest.mark.parametrize(
    "smiles", [ETHANOL, BENZENE, ASPIRIN, CAFFEINE, IBUPROFEN, "C[C@@H](N)C(=O)O"]
)
def test_selfies_round_trip(smiles):
    sf = value("SMILEStoSELFIES", smiles=smiles)
    assert value("SELFIEStoSMILES", selfies=sf) == value("CanonicalizeSMILES", smiles=smiles)
    tokens = value("SplitSELFIES", selfies=sf)
    assert "".join(tokens) == sf
    assert value("LengthSELFIES", selfies=sf) == len(tokens)


def test_opsin_parses_systematic_names_and_explains_failures():
    import httpx
    import respx

    assert value("NameToSMILES", name="2-acetyloxybenzoic acid") == value(
        "CanonicalizeSMILES", smiles=ASPIRIN
    )
    with respx.mock(assert_all_called=True) as mock:
        mock.route(host="pubchem.ncbi.nlm.nih.gov").mock(side_effect=httpx.ConnectError("no route"))
        bad = call("NameToSMILES", name="notacompoundname")
    assert not bad["ok"]
    assert "not in the offline name table" in bad["error"]
    assert "OPSIN" in bad["error"] and "network unavailable" in bad["error"]


def test_common_names_resolve_offline_from_the_bundled_table():
    import respx
    from rdkit import Chem
    from rdkit.Chem.rdMolDescriptors import CalcMolFormula

    from scigate.tools.library.chemistry import _NAMES_FILE

    data = json.loads(_NAMES_FILE.read_text())
    assert "CC0" in data["license"] and len(data["compounds"]) >= 100
    for row in data["compounds"]:  # every SMILES has the recorded formula
        assert CalcMolFormula(Chem.MolFromSmiles(row["smiles"])) == row["formula"], row["names"]
    keys = {  # InChIKeys (stereo included) of well-known compounds
        "aspirin": "BSYNRYMUTXBXSQ-UHFFFAOYSA-N",
        "Caffeine": "RYYVLZVUVIJVGH-UHFFFAOYSA-N",
        "serotonin": "QZAYGJVTTNCVMB-UHFFFAOYSA-N",
        "DEXAMETHASONE": "UREBDLICKHMUKA-CXSFZGCWSA-N",
        "hydrocortisone": "JYGXADMDTFJGBT-VWUMJDOOSA-N",
        "  acetylsalicylic   acid ": "BSYNRYMUTXBXSQ-UHFFFAOYSA-N",
    }
    with respx.mock(assert_all_called=False) as mock:  # no network call is made
        for name, key in keys.items():
            smiles = value("NameToSMILES", name=name)
            assert Chem.MolToInchiKey(Chem.MolFromSmiles(smiles)) == key, name
        assert not mock.calls


def test_name_to_smiles_falls_back_to_pubchem_when_online():
    import respx

    with respx.mock(assert_all_called=True) as mock:
        mock.route(host="pubchem.ncbi.nlm.nih.gov").respond(
            json={"PropertyTable": {"Properties": [{"CID": 1, "SMILES": "CC(=O)OC(C)(C)C"}]}}
        )
        assert value("NameToSMILES", name="notacompoundname") == "CC(=O)OC(C)(C)C"


def test_sln_and_stereo_tools():
    assert value("SlnToSmiles", sln="CH3CH2OH") == "CCO"
    assert value("AssignCIPLabels", smiles="N[C@@H](C)C(=O)O") == {"atoms": {"1": "S"}, "bonds": {}}
    assert value("AssignCIPLabels", smiles="F/C=C\\F")["bonds"] == {"1": "Z"}
    assert value("GetUnspecifiedAtomStereoCentersNum", smiles=IBUPROFEN) == 1
    assert value("GetStereoCodeFromSmiles", smiles="C[C@H](N)C(=O)O") == "S_ABS"


# ------------------------------------------------------------------ fingerprints and similarity


def test_atom_pair_bitvect_is_the_graph_specified_sparse_bit_vect():
    fp = value("GetAtomPairFingerprintAsBitVect", smiles=ETHANOL)
    # unfolded SparseBitVect: 2^23 bits, one bit per distinct atom pair (3 heavy atoms: 3 pairs)
    assert fp["type"] == "SparseBitVect" and fp["n_bits"] == 2**23
    assert fp["num_on_bits"] == 3 and max(fp["on_bits"]) > 2048
    phenol = value("GetAtomPairFingerprintAsBitVect", smiles="Oc1ccccc1")
    assert phenol["num_on_bits"] == len(set(phenol["on_bits"])) < 7 * 6 // 2  # symmetric pairs
    folded = value("BuildAtomPairFpFromSmiles", smiles=ETHANOL)
    assert "type" not in folded and folded["n_bits"] == 2048


def test_fingerprints_and_similarity():
    morgan = value("GetMorganFingerprint", smiles=ASPIRIN, radius=2, n_bits=1024)
    assert morgan["n_bits"] == 1024 and morgan["num_on_bits"] == len(morgan["on_bits"]) > 10
    assert value("GetMACCSKeysFingerprint", smiles=ASPIRIN)["n_bits"] == 167
    assert value("BuildAvalonFpFromSmiles", smiles=ASPIRIN)["n_bits"] == 512
    ap = value("GetAtomPairFingerprint", smiles=ETHANOL)
    assert ap["num_features"] == 3 and ap["total_count"] == 3  # C-C, C-O (1 bond), C..O (2 bonds)
    assert value("MolSimilarity", smiles_a=ASPIRIN, smiles_b=ASPIRIN) == 1.0
    s = value("MolSimilarity", smiles_a=ASPIRIN, smiles_b=IBUPROFEN)
    d = value("DiceSimilarity", smiles_a=ASPIRIN, smiles_b=IBUPROFEN)
    assert 0 < s < d < 1 and d == pytest.approx(2 * s / (1 + s))
    for kind in ["maccs", "atompair", "torsion", "rdkit", "avalon", "pattern", "featmorgan"]:
        v = value(
            "CalculateFingerprintSimilarity", smiles_a=ASPIRIN, smiles_b=CAFFEINE, fingerprint=kind
        )
        assert 0 <= v < 1
    bad = call(
        "CalculateFingerprintSimilarity", smiles_a=ASPIRIN, smiles_b=CAFFEINE, fingerprint="ecfp99"
    )
    assert not bad["ok"] and "argument 'fingerprint'" in bad["error"]
    schema = CHEM["CalculateFingerprintSimilarity"].spec.parameters["properties"]["fingerprint"]
    assert "maccs" in schema["enum"]
    matrix = value("CalculateDistanceMatrix", smiles_list=[ETHANOL, ASPIRIN, IBUPROFEN])
    assert all(matrix[i][i] == 0 for i in range(3)) and matrix[1][2] == pytest.approx(1 - s)
    assert len(value("EncodeMolecule", smiles=ASPIRIN)) == 128
    assert value("EncodeSECFP", smiles=ASPIRIN)["num_on_bits"] > 0
    assert "CCO" in value("CreateShingling", smiles=ETHANOL)
    strings = value("ProcessFingerprintMol", smiles=ASPIRIN)
    assert (
        len(strings["binary"]) == 2048
        and strings["binary"].count("1")
        == value("GetMorganFingerprint", smiles=ASPIRIN)["num_on_bits"]
    )


# ------------------------------------------------------------------ 3D (seeded)


def test_three_d_descriptors_are_reproducible_and_physical():
    first = [
        value(n, smiles=IBUPROFEN)
        for n in ["CalculatePMI1", "GetNPR1", "CalculateRadiusOfGyration", "GetUSR"]
    ]
    second = [
        value(n, smiles=IBUPROFEN)
        for n in ["CalculatePMI1", "GetNPR1", "CalculateRadiusOfGyration", "GetUSR"]
    ]
    assert first == second
    pmi = [value(f"CalculatePMI{i}", smiles=IBUPROFEN) for i in (1, 2, 3)]
    assert pmi[0] <= pmi[1] <= pmi[2]
    npr = value("CalculatePmi", smiles=IBUPROFEN)
    assert npr["npr1"] == pytest.approx(pmi[0] / pmi[2]) and npr["npr2"] == pytest.approx(
        pmi[1] / pmi[2]
    )
    assert npr["npr1"] + npr["npr2"] >= 1 - 1e-9  # inside the PMI triangle
    assert len(value("GetUSRCAT", smiles=ASPIRIN)) == 60
    coulomb = value("GetCoulombMat", smiles="C")
    assert coulomb[0][0] == pytest.approx(0.5 * 6**2.4)
    eem = value("GetEEMCharges", smiles=ETHANOL)
    assert sum(eem) == pytest.approx(0, abs=1e-9) and min(eem) == eem[2]  # O most negative
    assert "neutral" in call("GetEEMCharges", smiles="CC(=O)[O-]")["error"]
    pairs = value("CalculateShapeSimilarity", smiles_list=[ETHANOL, "OCC", BENZENE])
    assert pairs[0]["score"] == pytest.approx(1.0) and all(0 < p["score"] <= 1 for p in pairs)


# ------------------------------------------------------------------ structure tools


def test_structure_editing():
    assert value("Kekulize", smiles=BENZENE) == "C1=CC=CC=C1"
    assert value("SetAromaticity", smiles="C1=CC=CC=C1") == BENZENE
    assert value("RemoveHydrogens", smiles=value("AddHydrogens", smiles=ASPIRIN)) == value(
        "CanonicalizeSMILES", smiles=ASPIRIN
    )
    assert value("MurckoDecompose", smiles=IBUPROFEN) == BENZENE
    assert value("MurckoDecompose", smiles=ETHANOL) == ""
    assert value("GetMolFrags", smiles="CC(=O)[O-].[Na+]") == ["CC(=O)[O-]", "[Na+]"]
    assert value("GetRingSystems", smiles="C1CCC2(C1)CCNCC2") == [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]]
    assert value("GetTautomers", smiles="Oc1ccccn1")["canonical"] == "O=c1cccc[nH]1"
    assert value("GetFormalCharge", smiles="[NH4+].[Cl-]") == 0
    assert value("GetDistanceMatrix", smiles=BENZENE)[0][3] == 3
    assert value("Deprotect", smiles="CC(C)(C)OC(=O)NCCC(=O)O") == "NCCC(=O)O"
    assert value("FuncGroups", smiles=IBUPROFEN) == ["aromatic ring", "carboxylic acid"]
    assert "amide" in value("FuncGroups", smiles="CC(=O)Nc1ccc(O)cc1")


def test_substructure_search_with_smiles_and_smarts():
    assert value("IsSubstructof", smiles=ASPIRIN, pattern="[CX3](=O)[OX2H1]") is True
    assert value("IsSubstructof", smiles=CAFFEINE, pattern="C(=O)[OH]") is False
    assert value("GetSubstructMatches", smiles=CAFFEINE, pattern="[CH3]") == [[0], [9], [11]]
    assert value("CountSMARTSMatches", smiles=CAFFEINE, smarts="[#7]") == 4


# ------------------------------------------------------------------ bad input never raises


@pytest.mark.parametrize(
    ("name", "args", "fragment"),
    [
        ("SMILESToWeight", {"smiles": "C1CC("}, "invalid SMILES 'C1CC(': unbalanced parentheses"),
        ("SMILESToWeight", {"smiles": ""}, "empty SMILES"),
        ("SMILESToWeight", {"smiles": "   "}, "empty SMILES"),
        ("GetMolFormula", {"smiles": "C(C)(C)(C)(C)C"}, "Explicit valence"),
        ("CalculateTPSA", {"smiles": "c1cccc1"}, "Can't kekulize"),
        ("GetMorganFingerprint", {"smiles": "Xx"}, "invalid SMILES"),
        ("GetMorganFingerprint", {"smiles": ETHANOL, "n_bits": 0}, "n_bits must be between"),
        ("GetNPR1", {"smiles": "C1CC("}, "invalid SMILES"),
        ("InChIToSMILES", {"inchi": "InChI=1S/garbage"}, "invalid InChI"),
        ("InChIToInChIKey", {"inchi": "InChI=1S/garbage"}, "invalid InChI"),
        ("InChIToSMILES", {"inchi": "C2H6O"}, "must start with 'InChI='"),
        ("InChIToSMILES", {"inchi": ""}, "empty InChI"),
        ("SELFIEStoSMILES", {"selfies": "[C][C"}, "invalid SELFIES"),
        ("SELFIEStoSMILES", {"selfies": "[Xx]"}, "invalid SELFIES"),
        ("LengthSELFIES", {"selfies": ""}, "empty SELFIES"),
        ("CountSMARTSMatches", {"smiles": ETHANOL, "smarts": "[C"}, "invalid SMARTS"),
        ("CountSMARTSMatches", {"smiles": ETHANOL, "smarts": ""}, "empty SMARTS"),
        ("IsSubstructof", {"smiles": ETHANOL, "pattern": "[[["}, "invalid SMILES/SMARTS pattern"),
        ("MolSimilarity", {"smiles_a": ETHANOL, "smiles_b": "C1CC("}, "invalid SMILES"),
        ("CalculateDistanceMatrix", {"smiles_list": [ETHANOL, "C1CC("]}, "entry 1: invalid SMILES"),
        ("ClusterMolecules", {"smiles_list": []}, "empty SMILES list"),
        ("ExplainAtomCode", {"smiles": ETHANOL, "atom_index": 7}, "out of range"),
        ("SlnToSmiles", {"sln": ""}, "empty SLN"),
        ("NameToSMILES", {"name": " "}, "empty molecule name"),
        ("SMILESToWeight", {"smile": ETHANOL}, "unknown argument"),
    ],
)
def test_bad_input_is_reported_not_raised(name, args, fragment):
    result = CHEM[name].call(args).as_dict()
    assert result["ok"] is False
    assert fragment in result["error"], result["error"]
    assert result["error"].startswith(f"{name}: ")


def test_opsin_jvm_is_started_once_and_reused():
    from scigate.tools import ToolInputError
    from scigate.tools.library._opsin import opsin_server

    server = opsin_server()
    assert value("NameToSMILES", name="2-methylpropan-1-ol") == "CC(C)CO"
    pid, starts = server.pid, server.starts
    assert pid is not None
    assert value("NameToSMILES", name="propan-2-one") == "CC(C)=O"
    with pytest.raises(ToolInputError, match=r"OPSIN: .*uninterpretable"):
        server.parse("notacompoundname")
    assert server.pid == pid and server.starts == starts  # same JVM for every name
    server.stop()  # a dead JVM is replaced on the next call
    assert value("NameToSMILES", name="ethan-1-ol") == "CCO"
    assert server.starts == starts + 1
