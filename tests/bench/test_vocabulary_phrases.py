"""Built questions name quantities only with reviewed vocabulary phrases that say what is
computed, in which convention (issue 22, items 1 and 2)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scigate.bench import _write as write_module
from scigate.bench import read_tasks
from scigate.bench._catalog import (
    ENCODED_PEPTIDE,
    FRAME1_PEPTIDE,
    GIVEN,
    has_orf,
    question_phrase,
    tool_roles,
)
from scigate.bench._entities import load_entities
from scigate.cli._bench import app
from scigate.tools import get_tool
from scigate.tools._vocabulary import TOOL_PHRASES, tool_phrase

runner = CliRunner()


def _entity(name: str):  # type: ignore[no-untyped-def]
    return next(e for kind in load_entities().values() for e in kind if e.name == name)


def _value(tool: str, **args: object) -> float:
    result = get_tool(tool).call(args)
    assert result.ok, result
    return float(result.value)


# ------------------------------------------------------------------ each term maps right


def test_chi3_is_named_a_path_index_as_computed() -> None:
    roles = tool_roles()
    assert roles["GetChi3v"].phrase == "chi-3 path connectivity index (valence, χ3v)"
    assert roles["GetChi3n"].phrase.startswith("chi-3 path connectivity index")
    for name in ("GetChi2n", "GetChi2v", "GetChi3n", "GetChi3v", "GetChi4n", "GetChi4v"):
        assert "path" in roles[name].phrase and "cluster" not in roles[name].phrase.lower()
    # what RDKit computes is the path index: isobutane has a 3-cluster but no 3-path
    assert _value("GetChi3v", smiles="CC(C)C") == 0.0
    assert _value("GetChi3v", smiles="CCCC") == pytest.approx(0.5)


def test_phi_is_the_kier_flexibility_index() -> None:
    phrase = tool_roles()["CalculatePhi"].phrase
    assert phrase.startswith("Kier flexibility index (Φ")
    assert "angle" not in phrase.lower()
    # Phi = kappa1 * kappa2 / heavy atoms, alpha-modified kappas (benzene's differ)
    k1, k2 = _value("GetKappa1", smiles="c1ccccc1"), _value("GetKappa2", smiles="c1ccccc1")
    assert _value("CalculatePhi", smiles="c1ccccc1") == pytest.approx(k1 * k2 / 6)
    assert k1 == pytest.approx(3.4116, abs=1e-3)  # unmodified kappa-1 would be 25/6
    assert "alpha-modified" in tool_roles()["GetKappa1"].phrase


def test_isoelectric_point_states_the_bjellqvist_scale() -> None:
    phrase = tool_roles()["ProteinIsoelectricPointCalculator"].phrase
    assert "Bjellqvist" in phrase and "ExPASy" in phrase
    assert GIVEN["ProteinIsoelectricPointCalculator"] == {"pka_source": "Bjellqvist"}
    # the scale decides the value (YGGFL: 5.52 Bjellqvist, 6.09 EMBOSS)
    from Bio.SeqUtils.ProtParam import ProteinAnalysis

    bjellqvist = _value("ProteinIsoelectricPointCalculator", protein="YGGFL")
    assert bjellqvist == pytest.approx(ProteinAnalysis("YGGFL").isoelectric_point())
    emboss = _value("ProteinIsoelectricPointCalculator", protein="YGGFL", pka_source="EMBOSS")
    assert abs(bjellqvist - emboss) > 0.3


def _average_mass(formula: str) -> float:
    from rdkit import Chem

    table = Chem.GetPeriodicTable()
    return sum(
        table.GetAtomicWeight(el) * int(n or 1)
        for el, n in re.findall(r"([A-Z][a-z]?)(\d*)", formula)
    )


def test_dna_mass_states_the_verified_5prime_phosphate() -> None:
    # dNMPs (each with its 5' phosphate) less one water per phosphodiester bond
    dnmp = {"A": "C10H14N5O6P", "C": "C9H14N3O7P", "G": "C10H14N5O7P", "T": "C10H15N2O8P"}
    seq = "ATGC"
    phosphate_5 = sum(_average_mass(dnmp[b]) for b in seq) - 3 * _average_mass("H2O")
    hydroxyl_5 = phosphate_5 - _average_mass("HPO3")
    value = _value("CalculateSingleLinearDNAMolecularWeight", dna=seq)
    assert value == pytest.approx(phosphate_5, abs=0.05)
    assert abs(value - hydroxyl_5) > 70
    for name in (
        "CalculateSingleLinearDNAMolecularWeight",
        "CalculateDoubleLinearDNAMolecularWeight",
    ):
        assert "5' phosphate" in tool_roles()[name].phrase
        description = get_tool(name).spec.functionality
        assert "5' phosphate" in description and "5'-OH" not in description
    assert "5' monophosphate" in tool_roles()["CalculateRNAMolecularWeight"].phrase


def test_average_and_monoisotopic_masses_are_told_apart() -> None:
    roles = tool_roles()
    assert roles["SMILESToWeight"].phrase.startswith("average molecular weight (g/mol")
    assert roles["GetExactMolceularWeight"].phrase.startswith("monoisotopic mass (Da")
    assert "hydrogens included" in roles["GetAtomsNum"].phrase
    assert "RDKit aromaticity model" in roles["GetAromaticRingsNum"].phrase


def test_encoded_peptide_only_for_real_orfs_frame1_otherwise() -> None:
    orf, operator = _entity("short ORF 1"), _entity("lac operator")
    assert has_orf(orf.value) and not has_orf(operator.value)
    path = ["TranslateDNAtoAminoAcidSequence", "ProteinIsoelectricPointCalculator"]
    pi = tool_roles()["ProteinIsoelectricPointCalculator"].phrase
    assert question_phrase(path[1], path, [orf]) == f"{pi} of {ENCODED_PEPTIDE}"
    mixed = question_phrase(path[1], path, [orf, operator])
    assert mixed == f"{pi} of {FRAME1_PEPTIDE}" and "encoded" not in mixed
    assert GIVEN["TranslateDNAtoAminoAcidSequence"] == {"frame": 1, "table": 1, "to_stop": True}


# ------------------------------------------------------------------ a tool needs a phrase


def test_every_qualifying_tool_has_its_reviewed_phrase() -> None:
    roles = tool_roles()
    assert roles
    for name, role in roles.items():
        assert role.phrase == TOOL_PHRASES[name], name
    labels = {"chi-three cluster index", "phi angle", "the fsp3 value"}
    assert not {r.phrase.lower() for r in roles.values()} & labels


def test_a_tool_without_a_phrase_does_not_qualify(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "CalculatePhi" in tool_roles()
    monkeypatch.delitem(TOOL_PHRASES, "CalculatePhi")
    tool_roles.cache_clear()
    try:
        assert tool_phrase("CalculatePhi") is None
        roles = tool_roles()
        assert "CalculatePhi" not in roles and "GetKappa1" in roles
    finally:
        tool_roles.cache_clear()


# ------------------------------------------------------------------ a small build


@pytest.fixture(scope="module")
def small_build(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    used: list[tuple[str, str]] = []
    original = write_module.question_phrase

    def spy(tool, path, entities):  # type: ignore[no-untyped-def]
        phrase = original(tool, path, entities)
        used.append((tool, phrase))
        return phrase

    mp = pytest.MonkeyPatch()
    mp.setattr(write_module, "question_phrase", spy)
    root = tmp_path_factory.mktemp("phrases")
    out = root / "bench.jsonl"
    try:
        result = runner.invoke(
            app,
            ["build", "--generator", "templates", "--n", "16", "--db", str(root / "r.db"),
             "--out", str(out), "--seed", "3", "--json"],
        )  # fmt: skip
    finally:
        mp.undo()
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["accepted"] == 16
    return read_tasks(Path(out)), used


def test_every_phrase_of_a_build_is_a_vocabulary_phrase(small_build) -> None:  # type: ignore[no-untyped-def]
    tasks, used = small_build
    assert used
    questions = " ".join(t["question"] for t in tasks)
    for tool, phrase in used:
        assert tool in TOOL_PHRASES, tool
        assert phrase.startswith(TOOL_PHRASES[tool]), (tool, phrase)
    for tool, _phrase in {u for u in used if u[1] in questions}:
        assert TOOL_PHRASES[tool] in questions
    assert any(p in questions for _, p in used)
    for t in tasks:
        for name in t["tool_path"]:
            assert tool_phrase(name), name  # no tool of a built path lacks a phrase
            # the raw SciToolKG label is never the wording when it differs from the phrase
            label = get_tool(name).spec.outputs[0].lower()
            if not any(label in p.lower() for p in TOOL_PHRASES.values()):
                assert label not in t["question"].lower(), (name, label)
        if "TranslateDNAtoAminoAcidSequence" in t["tool_path"] and "encoded" in t["question"]:
            assert all(has_orf(str(p)) for p in t["Parameter"])
