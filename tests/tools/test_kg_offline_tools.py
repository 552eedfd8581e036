"""SciToolKG tools added as offline versions: reference values from the literature or an
independent computation (closed forms, another RDKit code path, Biopython)."""

from __future__ import annotations

import pytest

pytest.importorskip("rdkit")

from scigate.tools import get_tool, load_library
from scigate.tools.library.chemistry_coords import WATER_SDF

load_library()

TNT = "Cc1c(cc(cc1[N+](=O)[O-])[N+](=O)[O-])[N+](=O)[O-]"
NITROGLYCERIN = "C(C(CO[N+](=O)[O-])O[N+](=O)[O-])O[N+](=O)[O-]"
PETN = "C(C(CO[N+](=O)[O-])(CO[N+](=O)[O-])CO[N+](=O)[O-])O[N+](=O)[O-]"
RDX = "C1N(CN(CN1[N+](=O)[O-])[N+](=O)[O-])[N+](=O)[O-]"
ASPIRIN = "CC(=O)Oc1ccccc1C(=O)O"


def value(name: str, **args: object) -> object:
    result = get_tool(name).call(**args)
    assert result.ok, result.error
    return result.value


# ------------------------------------------------------------------ explosiveness


@pytest.mark.parametrize(
    ("smiles", "balance"),
    # oxygen balances to CO2/H2O as tabulated for these explosives (Meyer, Explosives)
    [(TNT, -74.0), (NITROGLYCERIN, 3.5), (PETN, -10.1), (RDX, -21.6)],
)
def test_oxygen_balance_of_known_explosives(smiles: str, balance: float) -> None:
    report = value("CheckExplosiveness", smiles=smiles)
    assert report["oxygen_balance"] == pytest.approx(balance, abs=0.06)
    assert report["potentially_explosive"] is True


@pytest.mark.parametrize(
    ("smiles", "group", "flagged"),
    [
        ("[N-]=[N+]=NCc1ccccc1", "azide", True),  # no oxygen: the -200 exemption does not apply
        ("C#C", "acetylene", True),
        ("CC(C)OOC(C)C", "peroxide", False),  # O-O group, oxygen balance -230: exempt
        ("CN(C)N=O", "nitroso", True),
        (
            "[O-][Cl+3]([O-])([O-])[O-]",
            "O-halogen (hypohalite, halite, halate, perhalate, iodosyl)",
            True,
        ),
        ("CCCCCCCCCCCCCCCCCC[N+](=O)[O-]", "nitro", False),  # oxygen balance -280
    ],
)
def test_explosive_groups_and_the_un_exemption(smiles: str, group: str, flagged: bool) -> None:
    report = value("CheckExplosiveness", smiles=smiles)
    assert group in {g["group"] for g in report["explosive_groups"]}
    assert report["potentially_explosive"] is flagged


@pytest.mark.parametrize("smiles", ["CCO", "c1ccccc1", ASPIRIN, "CC(=O)O"])
def test_ordinary_molecules_have_no_explosive_groups(smiles: str) -> None:
    report = value("CheckExplosiveness", smiles=smiles)
    assert report["explosive_groups"] == [] and report["potentially_explosive"] is False


def test_safety_summary_reports_alerts_and_explosive_groups() -> None:
    clean = value("SafetySummary", smiles="CCO")
    assert clean["structural_alerts"] == [] and "no explosive groups" in clean["summary"]
    tnt = value("SafetySummary", smiles=TNT)
    assert "potentially explosive (nitro)" in tnt["summary"]
    assert "nitro_group" in tnt["structural_alerts"]
    assert "aldehyde" in value("SafetySummary", smiles="CC=O")["structural_alerts"]
    bad = get_tool("SafetySummary").call(smiles="C1CC(")
    assert not bad.ok and "invalid SMILES" in (bad.error or "")


# ------------------------------------------------------------------ Kier Phi, VSA


@pytest.mark.parametrize("n", [4, 6, 8, 12])
def test_phi_of_linear_alkanes_is_n_minus_1(n: int) -> None:
    # alpha = 0 for sp3 carbon: kappa1 = n, kappa2 = n - 1, Phi = kappa1 * kappa2 / n
    assert value("CalculatePhi", smiles="C" * n) == pytest.approx(n - 1, rel=1e-9)


def test_phi_counts_heavy_atoms_only() -> None:
    assert value("CalculatePhi", smiles="[H]C([H])([H])CCCCC") == pytest.approx(5.0)


@pytest.mark.parametrize(
    ("prop", "family", "n"),
    [
        ("crippen_logp", "SlogP_VSA", 12),
        ("crippen_mr", "SMR_VSA", 10),
        ("gasteiger_charge", "PEOE_VSA", 14),
    ],
)
def test_custom_vsa_reproduces_rdkits_named_vsa_descriptors(prop: str, family: str, n: int) -> None:
    from rdkit import Chem
    from rdkit.Chem import Descriptors

    for smiles in (ASPIRIN, "Cn1c(=O)c2c(ncn2C)n(C)c1=O", "ClCCBr"):
        mol = Chem.MolFromSmiles(smiles)
        expected = [getattr(Descriptors, f"{family}{i}")(mol) for i in range(1, n + 1)]
        got = value("CustomPropertyVSA", smiles=smiles, property=prop)["vsa"]
        assert got == pytest.approx(expected, abs=1e-9)


def test_custom_vsa_bins_partition_the_labute_area() -> None:
    from rdkit import Chem
    from rdkit.Chem import rdMolDescriptors

    mol = Chem.MolFromSmiles(ASPIRIN)
    heavy_area = sum(rdMolDescriptors._CalcLabuteASAContribs(mol)[0])
    got = value("CustomPropertyVSA", smiles=ASPIRIN, property="gasteiger_charge", bins=[0.0])
    assert len(got["vsa"]) == 2 and sum(got["vsa"]) == pytest.approx(heavy_area, rel=1e-9)
    for bins in ([], [1.0, 0.0]):
        assert not get_tool("CustomPropertyVSA").call(smiles=ASPIRIN, bins=bins).ok


# ------------------------------------------------------------------ peptides, aliases


def test_peptide_smiles_matches_biopython_mass() -> None:
    from Bio.SeqUtils.ProtParam import ProteinAnalysis
    from rdkit import Chem
    from rdkit.Chem import Descriptors

    for seq in ("GA", "ACDEFGHIKLMNPQRSTVWY", "MKTAYIAKQR"):
        smiles = value("ConvertingPeptide2SMILES", sequence=seq)
        mass = Descriptors.MolWt(Chem.MolFromSmiles(smiles))
        assert mass == pytest.approx(ProteinAnalysis(seq).molecular_weight(), abs=0.05), seq
    assert value("ConvertingPeptide2SMILES", sequence="ga") == "C[C@H](NC(=O)CN)C(=O)O"
    assert not get_tool("ConvertingPeptide2SMILES").call(sequence="GAB").ok


def test_small_molecule_similarity_is_the_fingerprint_similarity_tool() -> None:
    tool = get_tool("SmallMoleculeSimilarityCalculation")
    assert tool.name == "CalculateFingerprintSimilarity"
    assert tool.call(smiles_a="CCO", smiles_b="CCO").value == pytest.approx(1.0)


# ------------------------------------------------------------------ coordinates and SD files


def _sdf(*smiles: str) -> str:
    from rdkit import Chem
    from rdkit.Chem import AllChem

    blocks = []
    for smi in smiles:
        mol = Chem.AddHs(Chem.MolFromSmiles(smi))
        AllChem.EmbedMolecule(mol, randomSeed=7)
        blocks.append(Chem.MolToMolBlock(mol) + "$$$$\n")
    return "".join(blocks)


def test_molecular_center_is_the_mean_position() -> None:
    center = value("CalculateMolecularCenter", sdf=WATER_SDF)
    assert center == [pytest.approx([(0.9572 - 0.24) / 3, 0.9266 / 3, 0.0])]
    assert len(value("CalculateMolecularCenter", sdf=_sdf("CCO", "c1ccccc1"))) == 2
    for bad in ("", "not an sd file", WATER_SDF.replace("  3  2", "  9  2")):
        assert not get_tool("CalculateMolecularCenter").call(sdf=bad).ok


def test_rotatable_dihedrals_follow_the_non_strict_rotatable_bond_count() -> None:
    from rdkit import Chem
    from rdkit.Chem import rdMolDescriptors

    assert value("ExtractRotatableDihedralsFromSdf", sdf=_sdf("CCCC")) == [[[0, 1, 2, 3]]]
    assert value("ExtractRotatableDihedralsFromSdf", sdf=_sdf("CC", "C1CCCCC1", "CC#CC")) == [
        [],
        [],
        [],
    ]
    for smi in (ASPIRIN, "CC(C)Cc1ccc(cc1)C(C)C(=O)O", "CCOC(=O)CCN"):
        (found,) = value("ExtractRotatableDihedralsFromSdf", sdf=_sdf(smi))
        mol = Chem.MolFromSmiles(smi)
        assert len(found) == rdMolDescriptors.CalcNumRotatableBonds(mol, strict=False), smi
        for a, b, c, d in found:  # four bonded atoms in a chain
            m = Chem.AddHs(mol)
            assert all(m.GetBondBetweenAtoms(x, y) for x, y in ((a, b), (b, c), (c, d)))


def test_coordinates_are_physical_and_repeat() -> None:
    import math

    coords = value("CoordsFromSMILES", smiles="CC")
    assert [c["element"] for c in coords] == ["C", "C"] + ["H"] * 6
    (c1, c2, h) = coords[0], coords[1], coords[2]
    cc = math.dist([c1["x"], c1["y"], c1["z"]], [c2["x"], c2["y"], c2["z"]])
    ch = math.dist([c1["x"], c1["y"], c1["z"]], [h["x"], h["y"], h["z"]])
    assert cc == pytest.approx(1.53, abs=0.03) and ch == pytest.approx(1.09, abs=0.02)
    assert value("CoordsFromSMILES", smiles="CC") == coords


@pytest.mark.parametrize(
    "smiles", ["CCO", "c1ccccc1", "CC(=O)O", ASPIRIN, "C[C@H](N)C(=O)O", "CC(=O)[O-]"]
)
def test_bonds_perceived_from_coordinates_rebuild_the_molecule(smiles: str) -> None:
    from rdkit import Chem

    mol = Chem.MolFromSmiles(smiles)
    for name in ("DetermineBonds", "DetermineBondOrders"):
        got = value(name, smiles=smiles)
        assert got["smiles"] == Chem.MolToSmiles(mol), name
        assert got["inchikey"] == Chem.MolToInchiKey(mol)
        assert got["num_atoms"] == Chem.AddHs(mol).GetNumAtoms()
        assert got["num_bonds"] == Chem.AddHs(mol).GetNumBonds()


def test_condensed_abbreviations_name_the_groups() -> None:
    assert value("CondenseAbbreviationSubstanceGroups", smiles="CC(C)(C)OC(=O)NCc1ccccc1") == (
        "*OC(=O)NCc1ccccc1 |$tBu;;;;;;;;;;;$|"
    )
    # CF3 is 4 of the 10 heavy atoms: not under the default coverage 0.4, so it stays
    trifluorotoluene = "FC(F)(F)c1ccccc1"
    assert (
        value("CondenseAbbreviationSubstanceGroups", smiles=trifluorotoluene) == "FC(F)(F)c1ccccc1"
    )
    assert (
        value("CondenseAbbreviationSubstanceGroups", smiles=trifluorotoluene, max_coverage=1.0)
        == "*c1ccccc1 |$CF3;;;;;;$|"
    )
    assert value("CondenseAbbreviationSubstanceGroups", smiles="c1ccccc1") == "c1ccccc1"
    assert not get_tool("CondenseAbbreviationSubstanceGroups").call(smiles="CCO", max_coverage=0).ok


# ------------------------------------------------------------------ structure files


def _embedded(smiles: str, name: str = "") -> object:
    from rdkit import Chem
    from rdkit.Chem import AllChem

    mol = Chem.AddHs(Chem.MolFromSmiles(smiles))
    AllChem.EmbedMolecule(mol, randomSeed=3)
    mol.SetProp("_Name", name)
    return mol


@pytest.mark.parametrize("smiles", ["C[C@H](N)C(=O)O", "N[C@@H](Cc1ccccc1)C(=O)O", "CCO", ASPIRIN])
def test_3d_files_convert_back_to_the_molecule(smiles: str) -> None:
    from rdkit import Chem

    mol = _embedded(smiles)
    expected = [Chem.CanonSmiles(smiles)]  # stereo comes back from the coordinates
    assert value("Convert3DMolecules2SMILES", structure=Chem.MolToMolBlock(mol)) == expected
    if "=" not in smiles and "c" not in smiles:  # PDB: bond orders only via CONECT
        assert value("Convert3DMolecules2SMILES", structure=Chem.MolToPDBBlock(mol)) == expected


def test_mol2_and_malformed_structure_files() -> None:
    from scigate.tools.library.chemistry_files import WATER_MOL2

    assert value("Convert3DMolecules2SMILES", structure=WATER_MOL2) == ["O"]
    assert value("Convert3DMolecules2SMILES", structure=WATER_MOL2 + WATER_MOL2) == ["O", "O"]
    for bad in ("", "@<TRIPOS>MOLECULE\nbroken", "hello"):
        assert not get_tool("Convert3DMolecules2SMILES").call(structure=bad).ok


def test_sdf_to_csv_keeps_names_smiles_and_properties() -> None:
    import csv
    import io

    from rdkit import Chem

    buffer = io.StringIO()
    writer = Chem.SDWriter(buffer)
    ala, eth = _embedded("C[C@H](N)C(=O)O", "alanine"), _embedded("CCO", "ethanol")
    ala.SetProp("IC50", "12.5")  # type: ignore[attr-defined]
    eth.SetProp("source", "x, y")  # type: ignore[attr-defined]
    for mol in (ala, eth):
        writer.write(mol)
    writer.close()
    rows = list(csv.DictReader(io.StringIO(value("ConvertSdfToCsv", sdf=buffer.getvalue()))))
    assert rows == [
        {"name": "alanine", "smiles": "C[C@H](N)C(=O)O", "IC50": "12.5", "source": ""},
        {"name": "ethanol", "smiles": "CCO", "IC50": "", "source": "x, y"},
    ]


def test_usrcat_scores_follow_the_published_formula() -> None:
    import numpy as np

    sdf = _sdf("CCO", "CCCO", "CCO")
    got = value("CalculateUsrcatScores", sdf=sdf)
    assert [len(d) for d in got["usrcat"]] == [60, 60, 60]
    a, b = (np.array(got["usrcat"][k]) for k in (0, 1))
    blocks = np.abs(a - b).reshape(5, 12).mean(axis=1)  # 5 atom subsets of 12 moments
    by_pair = {(p["i"], p["j"]): p for p in got["pairs"]}
    assert by_pair[(0, 1)]["usrcat_score"] == pytest.approx(1 / (1 + blocks.sum()))
    assert by_pair[(0, 2)]["usrcat_score"] == pytest.approx(1.0)  # same conformer seed
    assert by_pair[(0, 2)]["tanimoto"] == 1.0 and by_pair[(0, 1)]["tanimoto"] < 1.0
    weighted = value("CalculateUsrcatScores", sdf=sdf, weights=[0.25] * 5)["pairs"][0]
    assert weighted["usrcat_score"] == pytest.approx(1 / (1 + 0.25 * blocks.sum()))
    tool = get_tool("CalculateUsrcatScores")
    assert not tool.call(sdf=_sdf("CCO")).ok
    assert not tool.call(sdf=sdf, weights=[1.0, 2.0]).ok
