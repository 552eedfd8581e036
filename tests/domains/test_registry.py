"""Domain registry and the static content of the fenicsx pack (fast)."""

from __future__ import annotations

import json
import sys
from decimal import Decimal

import pytest

from scigate.domains import Domain, domain_names, get_domain
from scigate.errors import BadInput


def test_unknown_domain_is_bad_input_listing_known():
    with pytest.raises(BadInput, match="fenicsx"):
        get_domain("nope")
    assert "fenicsx" in domain_names()


def test_fenicsx_domain_attributes():
    domain = get_domain("fenicsx")
    assert isinstance(domain, Domain)
    assert domain.name == "fenicsx"
    assert domain.python == sys.executable
    assert domain.solution_timeout == 300
    assert "dolfinx_solver" in domain.workspace_note


def test_guide_covers_the_essentials():
    guide = get_domain("fenicsx").guide()
    for needle in (
        "quadrature",
        "diagonal",
        "moved",
        "six decimal places",
        "distractor",
        "rank",
        "options.json",
        "answer.txt",
        "exactly one non-empty line",
    ):
        assert needle.lower() in guide.lower(), needle


def test_seed_and_example_dirs_are_complete_candidates():
    domain = get_domain("fenicsx")
    seeds = domain.seed_dirs()
    assert [p.name for p in seeds] == [f"seed_0{i}" for i in range(1, 6)]
    examples = domain.example_dirs()
    assert [p.name for p in examples] == ["item_0023"]
    ranks, qois = [], set()
    for item in [*seeds, *examples]:
        for name in ("question.md", "options.json", "answer.txt", "solution.py", "meta.json"):
            assert (item / name).is_file(), (item, name)
        options = json.loads((item / "options.json").read_text())
        letter = (item / "answer.txt").read_text().strip()
        meta = json.loads((item / "meta.json").read_text())
        assert len({Decimal(v) for v in options.values()}) == 4
        ordered = sorted(options.values(), key=Decimal)
        assert meta["value_rank"] == ordered.index(options[letter]) + 1
        assert {d["letter"] for d in meta["distractors"]} == set("ABCD") - {letter}
        if item in seeds:
            ranks.append(meta["value_rank"])
            qois.add(meta["params"]["qoi"])
            assert meta["family"] == "nonlinear_punctured"
            assert all(d["mistake"] for d in meta["distractors"])
    assert set(ranks) == {1, 2, 3, 4}
    assert len(qois) == 5


def test_item_0023_files():
    (item,) = get_domain("fenicsx").example_dirs()
    options = json.loads((item / "options.json").read_text())
    assert options == {"A": "0.058996", "B": "0.060723", "C": "0.060074", "D": "0.061291"}
    assert (item / "answer.txt").read_text().strip() == "B"
    assert "17\\times14" in (item / "question.md").read_text()


@pytest.mark.slow
def test_check_environment_reports_packages_and_solve():
    report = get_domain("fenicsx").check_environment()
    assert report["ok"], report
    for name in ("dolfinx", "basix", "ufl", "ffcx", "petsc4py", "mpi4py"):
        assert report["packages"][name]["ok"]
        assert report["packages"][name]["version"]
    assert report["packages"]["dolfinx"]["version"].startswith("0.11")
    assert report["solve"]["ok"]


def test_each_dependence_check_names_its_own_software() -> None:
    """A dependence verdict says which software the answer did not come from."""
    named = {}
    for name in ("fenicsx", "chemistry", "materials"):
        for check in get_domain(name).semantic_checks():
            if check.expect == "changed":
                named[name] = check.software
    assert named == {"fenicsx": "FEniCSx", "chemistry": "RDKit", "materials": "pymatgen"}
