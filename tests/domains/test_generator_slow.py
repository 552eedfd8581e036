"""Template generator end to end: verified candidates, realized schedule, determinism."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from scigate.domains import get_domain
from scigate.domains.fenicsx.templates import TemplateGenerator, schedule

FAMILY_NAMES = ["deformed_poisson", "nonlinear_punctured", "basix_tabulate", "mapped_quadrature"]


def _realized(candidate: Path) -> tuple[int, str]:
    options = json.loads((candidate / "options.json").read_text())
    letter = (candidate / "answer.txt").read_text().strip()
    ordered = sorted(options.values(), key=Decimal)
    return ordered.index(options[letter]) + 1, letter


@pytest.fixture(scope="module")
def one_per_family(tmp_path_factory):
    """Indices 0..3 of seed 11: one candidate of each family (solution checked on write)."""
    out = tmp_path_factory.mktemp("gen")
    with get_domain("fenicsx").template_generator(seed=11) as gen:
        assert gen.families == FAMILY_NAMES
        return [gen.generate(i, out / f"c{i}") for i in range(4)]


@pytest.mark.slow
@pytest.mark.parametrize("index", range(4), ids=FAMILY_NAMES)
def test_each_family_yields_verified_candidate(one_per_family, index, check):
    candidate = one_per_family[index]
    check(candidate)
    meta = json.loads((candidate / "meta.json").read_text())
    assert meta["family"] == FAMILY_NAMES[index]
    assert (meta["seed"], meta["index"]) == (11, index)
    assert (meta["value_rank"], meta["letter"]) == schedule(11, index) == _realized(candidate)
    options = json.loads((candidate / "options.json").read_text())
    for d in meta["distractors"]:
        assert options[d["letter"]] == d["value"]
        assert meta["evaluated"][d["mistake"]] == d["value"]  # computed, not invented
    correct = options[meta["letter"]]
    assert correct not in (candidate / "question.md").read_text()  # the answer is not leaked


@pytest.mark.slow
def test_realized_rank_and_letter_follow_schedule(tmp_path):
    """Eight quick (Basix) candidates: every rank and letter twice, as scheduled."""
    with TemplateGenerator(seed=5, families=["basix_tabulate", "mapped_quadrature"]) as gen:
        realized = [_realized(gen.generate(i, tmp_path / f"c{i}")) for i in range(8)]
    assert realized == [schedule(5, i) for i in range(8)]
    assert sorted(r for r, _ in realized) == [1, 1, 2, 2, 3, 3, 4, 4]
    assert sorted(letter for _, letter in realized) == list("AABBCCDD")


@pytest.mark.slow
def test_generation_is_deterministic(tmp_path, one_per_family):
    with TemplateGenerator(seed=11) as gen:
        for index in (0, 2):
            again = gen.generate(index, tmp_path / f"again{index}")
            first = one_per_family[index]
            names = sorted(p.name for p in first.iterdir())
            assert names == sorted(p.name for p in again.iterdir())
            for name in names:
                assert (first / name).read_bytes() == (again / name).read_bytes(), name
