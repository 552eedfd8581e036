"""Template machinery that needs no FEniCSx run: schedule, rendering, selection (fast)."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from scigate.domains.fenicsx.templates import FAMILIES, TemplateGenerator, render, schedule
from scigate.domains.fenicsx.templates._expr import diff, to_code
from scigate.domains.fenicsx.templates._generator import _Pool, format_value, near_rounding_tie
from scigate.errors import BadInput


@pytest.mark.parametrize("seed", [0, 1, 7, 12345])
def test_schedule_balances_rank_and_letter_over_40(seed):
    plan = [schedule(seed, i) for i in range(40)]
    assert Counter(r for r, _ in plan) == {1: 10, 2: 10, 3: 10, 4: 10}
    assert Counter(letter for _, letter in plan) == {"A": 10, "B": 10, "C": 10, "D": 10}
    for start in range(0, 40, 4):  # every aligned block of four is a permutation
        block = plan[start : start + 4]
        assert {r for r, _ in block} == {1, 2, 3, 4}
        assert {letter for _, letter in block} == set("ABCD")
    for start in (0, 16):  # every rank meets every letter, and every family slot both
        window = plan[start : start + 16]
        assert len(set(window)) == 16
        assert len({(i % 4, r) for i, (r, _) in enumerate(window)}) == 16
        assert len({(i % 4, letter) for i, (_, letter) in enumerate(window)}) == 16


def test_schedule_is_deterministic_and_seed_dependent():
    assert [schedule(3, i) for i in range(16)] == [schedule(3, i) for i in range(16)]
    assert any(schedule(0, i) != schedule(1, i) for i in range(16))
    with pytest.raises(ValueError):
        schedule(0, -1)


def test_pool_pick_places_correct_value_at_rank():
    pool = _Pool("0.500000")
    for label, text in [
        ("a", "0.400000"),
        ("b", "0.450000"),
        ("c", "0.600000"),
        ("d", "0.500000"),
        ("f", "0.650000"),
        ("g", "0.700000"),
    ]:
        pool.add(label, text)
    assert "d" not in pool.values  # equal to the answer at the printed precision
    assert pool.pick(4, random.Random(0)) is None  # only two values below the answer
    for rank in (1, 2, 3):
        picked = pool.pick(rank, random.Random(0))
        values = sorted([0.5, *(float(t) for _, t in picked)])
        assert values.index(0.5) + 1 == rank
    pool.add("e", "0.450000")  # duplicate of b: ignored
    assert "e" not in pool.values


def test_format_and_rounding_tie():
    assert format_value(-0.0000001, 6) == "0.000000"
    assert format_value(0.0607234, 6) == "0.060723"
    assert near_rounding_tie(0.0607235, 6)
    assert not near_rounding_tie(0.0607231, 6)


def test_expression_derivatives_match_finite_differences():
    terms = [["p", 0.3, 2, 1], ["sx", 0.2, 2], ["sxsy", -0.1, 1, 2], ["e", 0.5, 0.7, -1.1]]
    terms += [["cy", 0.4, 1], ["sy", 0.25, 3]]
    x, y, h = 0.37, 0.61, 1e-6
    f = lambda a, b: eval(to_code(terms, "a", "b", "np"), {"np": np, "a": a, "b": b})  # noqa: E731
    for var, (dx, dy) in (("x", (h, 0)), ("y", (0, h))):
        exact = eval(to_code(diff(terms, var), "a", "b", "np"), {"np": np, "a": x, "b": y})
        approx = (f(x + dx, y + dy) - f(x - dx, y - dy)) / (2 * h)
        assert exact == pytest.approx(approx, rel=1e-7, abs=1e-9)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_mistake_changes_the_rendered_script(family):
    module = FAMILIES[family]
    kinds_seen = set()
    for k in range(12):
        params = module.draw_params(random.Random(k))
        assert params == module.draw_params(random.Random(k))  # reproducible
        correct = render(family, params)
        compile(correct, "solution.py", "exec")
        applicable = module.applicable(params)
        assert len(applicable) >= 4
        for kind in applicable:
            wrong = render(family, params, frozenset([kind]))
            compile(wrong, "solution.py", "exec")
            assert wrong != correct, kind
        kinds_seen.update(applicable)
        assert module.question(params).rstrip().endswith("decimal places.")
    assert len(kinds_seen) >= 4
    assert len(module.MISTAKES) >= 4


def test_unknown_family_and_mistake_are_bad_input():
    with pytest.raises(BadInput, match="deformed_poisson"):
        TemplateGenerator(families=["nope"])
    params = FAMILIES["basix_tabulate"].draw_params(random.Random(0))
    with pytest.raises(BadInput):
        render("basix_tabulate", params, frozenset(["nope"]))


def test_families_rotate_with_index():
    gen = TemplateGenerator(seed=0)
    assert gen.families == [
        "deformed_poisson",
        "nonlinear_punctured",
        "basix_tabulate",
        "mapped_quadrature",
    ]
    assert [gen.family_for(i) for i in range(5)] == [*gen.families, gen.families[0]]
    gen.close()
