"""The chemistry (RDKit) domain: registry, seeds through gates 1 and 1b, template families,
and the renumbered-atoms and RDKit-dependence checks against defective twins."""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest

from scigate.domains import domain_names, get_domain
from scigate.domains.chemistry.templates import FAMILIES
from scigate.gate import invariance, load_candidate

pytest.importorskip("rdkit")

OPTIONS = {"A": "1.0000", "B": "2.0000", "C": "3.0000", "D": "4.0000"}


def _candidate(tmp_path: Path, name: str, solution: str, printed: str) -> Path:
    """A candidate whose option B is what `solution` prints unperturbed."""
    d = tmp_path / name
    d.mkdir()
    opts = {**OPTIONS, "B": printed}
    (d / "question.md").write_text("Sum the Gasteiger charges of the carbonyl carbons.\n")
    (d / "options.json").write_text(json.dumps(opts))
    (d / "answer.txt").write_text("B\n")
    (d / "solution.py").write_text(solution)
    (d / "meta.json").write_text(json.dumps({"domain": "chemistry", "family": "twin"}))
    return d


def _gate(candidate: Path):
    return invariance(load_candidate(candidate), domain="chemistry", timeout=120)


def test_chemistry_is_registered_with_its_checks():
    assert "chemistry" in domain_names()
    dom = get_domain("chemistry")
    assert dom.name == "chemistry" and "RDKit" in dom.workspace_note
    checks = dom.semantic_checks(mpi_ranks=2)
    assert [(c.name, c.expect) for c in checks] == [
        ("renumbered-atoms", "same"),
        ("rdkit-dependence", "changed"),
    ]
    # both runs install both hooks; the renumber run has the dependence hook as a sham
    assert "_scigate_token, False)" in checks[0].prelude
    assert "_scigate_token, True)" in checks[1].prelude


def test_guide_covers_the_essentials():
    guide = get_domain("chemistry").guide().lower()
    for needle in (
        "largest fragment",
        "monoisotopic",
        "kekulé",
        "tautomer",
        "gasteiger",
        "mmff94",
        "atom indices",
        "randomised smiles",
        "scaled",
        "rank",
        "exactly one non-empty line",
    ):
        assert needle in guide, needle


def test_seeds_are_complete_candidates_with_computed_distractors():
    seeds = get_domain("chemistry").seed_dirs()
    assert [p.name for p in seeds] == [f"seed_0{i}" for i in range(1, 6)]
    ranks, families = [], set()
    for item in seeds:
        options = json.loads((item / "options.json").read_text())
        letter = (item / "answer.txt").read_text().strip()
        meta = json.loads((item / "meta.json").read_text())
        assert meta["domain"] == "chemistry"
        assert len({Decimal(v) for v in options.values()}) == 4
        ordered = sorted(options.values(), key=Decimal)
        assert meta["value_rank"] == ordered.index(options[letter]) + 1
        assert {d["letter"] for d in meta["distractors"]} == set("ABCD") - {letter}
        assert all(d["mistake"] for d in meta["distractors"])
        ranks.append(meta["value_rank"])
        families.add(meta["family"])
    assert set(ranks) == {1, 2, 3, 4}
    assert families == set(FAMILIES.families)


@pytest.mark.parametrize("index", range(5))
def test_seed_passes_gates_1_and_1b(index):
    item = get_domain("chemistry").seed_dirs()[index]
    result = _gate(item)
    assert result.outcome == "pass", result.reason
    assert [c.name for c in result.checks] == ["renumbered-atoms", "rdkit-dependence"]
    assert result.reference == load_candidate(item).answer_value
    assert any(r.startswith("applied") for r in result.checks[0].perturbed)


@pytest.mark.parametrize("family", sorted(FAMILIES.families))
def test_every_mistake_changes_the_rendered_script(family):
    import random

    module = FAMILIES.get(family)
    seen = set()
    for seed in range(12):
        params = module.draw_params(random.Random(seed))
        correct = FAMILIES.render(family, params)
        compile(correct, "solution.py", "exec")
        for kind in module.applicable(params):
            assert FAMILIES.render(family, params, frozenset({kind})) != correct, kind
            seen.add(kind)
    assert seen == set(module.MISTAKES)


def test_unknown_family_is_bad_input_listing_the_known_ones():
    from scigate.errors import BadInput

    with pytest.raises(BadInput, match="parent_mass"):
        get_domain("chemistry").template_generator(families=["alchemy"])


# --- defective twins -------------------------------------------------------------------

_PREFIX = """
from rdkit import Chem
from rdkit.Chem import AllChem
mol = Chem.AddHs(Chem.MolFromSmiles("CC(=O)Oc1ccccc1C(=O)O"))
AllChem.ComputeGasteigerCharges(mol)
q = [a.GetDoubleProp("_GasteigerCharge") for a in mol.GetAtoms()]
"""
# the two carbonyl carbons found by SMARTS (correct) or read as atoms 1 and 10 of the
# SMILES as written (defective: depends on the input order)
BY_SMARTS = _PREFIX + (
    'hits = {m[0] for m in mol.GetSubstructMatches(Chem.MolFromSmarts("[#6]=[#8]"))}\n'
    'print(f"{sum(q[i] for i in hits):.4f}")\n'
)
BY_INDEX = _PREFIX + 'print(f"{q[1] + q[10]:.4f}")\n'
# the aspirin mass from a hand-written table: RDKit only counts atoms (closed form)
MASS_TABLE = """
from rdkit import Chem
mol = Chem.AddHs(Chem.MolFromSmiles("CC(=O)Oc1ccccc1C(=O)O"))
masses = {"C": 12.0, "H": 1.0078250319, "O": 15.9949146221}
print(f"{sum(masses[a.GetSymbol()] for a in mol.GetAtoms()):.4f}")
"""
MASS_RDKIT = """
from rdkit import Chem
from rdkit.Chem import Descriptors
print(f"{Descriptors.ExactMolWt(Chem.MolFromSmiles('CC(=O)Oc1ccccc1C(=O)O')):.4f}")
"""
# RDKit called for show, the answer printed as a literal
DECORATIVE = MASS_RDKIT.replace(
    "print(f\"{Descriptors.ExactMolWt(Chem.MolFromSmiles('CC(=O)Oc1ccccc1C(=O)O')):.4f}\")",
    "Descriptors.ExactMolWt(Chem.MolFromSmiles('CC(=O)Oc1ccccc1C(=O)O'))\n"
    "print(f'{1800423 / 10000:.4f}')",
)
# a molecule from a parser the renumber check does not wrap: it cannot see through it
FROM_XYZ = """
from rdkit import Chem
from rdkit.Chem import Descriptors
mol = Chem.MolFromXYZBlock("3\\n\\nO 0 0 0\\nH 0.96 0 0\\nH -0.24 0.93 0\\n")
print(f"{sum(a.GetMass() for a in mol.GetAtoms()) + 1.5:.4f}")
"""


def test_renumbered_atoms_rejects_an_atom_index_and_passes_smarts(tmp_path):
    good = _gate(_candidate(tmp_path, "good", BY_SMARTS, "0.6466"))
    assert good.outcome == "pass", good.reason
    bad = _gate(_candidate(tmp_path, "bad", BY_INDEX, "0.6466"))
    assert bad.outcome == "fail", bad.reason
    assert bad.checks[0].name == "renumbered-atoms"
    assert bad.checks[0].outcome == "fail" and "without it" in bad.checks[0].reason


def test_dependence_rejects_a_mass_table_and_passes_rdkit(tmp_path):
    good = _gate(_candidate(tmp_path, "good", MASS_RDKIT, "180.0423"))
    assert good.outcome == "pass", good.reason
    assert "changed to" in good.checks[1].reason
    for name, source in (("table", MASS_TABLE), ("decorative", DECORATIVE)):
        bad = _gate(_candidate(tmp_path, name, source, "180.0423"))
        assert bad.outcome == "fail", (name, bad.reason)
        assert bad.checks[-1].name == "rdkit-dependence", name
        assert "does not depend" in bad.checks[-1].reason, name


def test_an_unwrapped_parser_is_an_error_never_a_pass(tmp_path):
    result = _gate(_candidate(tmp_path, "xyz", FROM_XYZ, "19.5150"))
    assert result.outcome == "error", result.reason
    assert "unperturbed" in result.checks[0].reason


def test_forty_rounds_balance_ranks_and_letters(tmp_path):
    """The generator's own balance: 40 rounds, each rank and letter exactly 10 times."""
    dom = get_domain("chemistry")
    with dom.template_generator(seed=0) as gen:
        gen.check_solution = False  # the gate's verification covers the saved scripts
        metas = [
            json.loads((gen.generate(i, tmp_path / f"c{i}") / "meta.json").read_text())
            for i in range(40)
        ]
    assert Counter(m["value_rank"] for m in metas) == {1: 10, 2: 10, 3: 10, 4: 10}
    assert Counter(m["letter"] for m in metas) == {"A": 10, "B": 10, "C": 10, "D": 10}
    assert Counter(m["family"] for m in metas) == {f: 10 for f in FAMILIES.families}
    for m in metas:
        assert m["domain"] == "chemistry"
        assert len({d["value"] for d in m["distractors"]} | {m["answer"]["value"]}) == 4
