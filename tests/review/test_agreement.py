"""Fleiss' kappa against Fleiss (1971)'s worked example, and agreement with the majority."""

from __future__ import annotations

import pytest

from scigate.review import agreement_with_majority, fleiss_kappa, majority

# Fleiss (1971), Table 1: 30 patients, each diagnosed by 6 psychiatrists into 1 depression,
# 2 personality disorder, 3 schizophrenia, 4 neurosis, 5 other. One row per patient.
FLEISS_1971 = [
    (4, 4, 4, 4, 4, 4), (2, 2, 2, 5, 5, 5), (2, 3, 3, 3, 3, 5), (5, 5, 5, 5, 5, 5),
    (2, 2, 2, 4, 4, 4), (1, 1, 3, 3, 3, 3), (3, 3, 3, 3, 5, 5), (1, 1, 3, 3, 3, 4),
    (1, 1, 4, 4, 4, 4), (5, 5, 5, 5, 5, 5), (1, 4, 4, 4, 4, 4), (1, 2, 4, 4, 4, 4),
    (2, 2, 2, 3, 3, 3), (1, 4, 4, 4, 4, 4), (2, 2, 4, 4, 4, 5), (3, 3, 3, 3, 3, 5),
    (1, 1, 1, 4, 5, 5), (1, 1, 1, 1, 1, 2), (2, 2, 4, 4, 4, 4), (1, 3, 3, 5, 5, 5),
    (5, 5, 5, 5, 5, 5), (2, 4, 4, 4, 4, 4), (2, 2, 4, 5, 5, 5), (1, 1, 4, 4, 4, 4),
    (1, 4, 4, 4, 4, 5), (2, 2, 2, 2, 2, 4), (1, 1, 1, 1, 5, 5), (2, 2, 4, 4, 4, 4),
    (1, 3, 3, 3, 3, 3), (5, 5, 5, 5, 5, 5),
]  # fmt: skip


def _counts(rows: list[tuple[int, ...]], categories: int = 5) -> list[list[int]]:
    return [[row.count(c) for c in range(1, categories + 1)] for row in rows]


def test_fleiss_1971_worked_example() -> None:
    # Fleiss reports P-bar = .556, P-bar_e = .220 and kappa = .430.
    table = _counts(FLEISS_1971)
    assert all(sum(r) == 6 for r in table) and len(table) == 30
    assert fleiss_kappa(table) == pytest.approx(0.430, abs=5e-4)


def test_kappa_edge_cases() -> None:
    assert fleiss_kappa([]) is None
    assert fleiss_kappa([[1, 0, 0]]) is None  # one rating: no pair to agree
    assert fleiss_kappa([[3, 0], [3, 0]]) is None  # one category only: undefined
    assert fleiss_kappa([[3, 0], [0, 3]]) == pytest.approx(1.0)
    # every subject split 2-1 with balanced categories: agreement below chance
    assert fleiss_kappa([[2, 1], [1, 2]]) == pytest.approx(-1 / 3)
    # rows of one rating are dropped, the rest is unchanged
    table = _counts(FLEISS_1971)
    assert fleiss_kappa([*table, [1, 0, 0, 0, 0]]) == pytest.approx(fleiss_kappa(table))


def test_majority_and_agreement() -> None:
    assert majority(["yes", "yes", "no"]) == "yes"
    assert majority(["yes", "no"]) is None
    assert majority([]) is None
    subjects = {
        ("i1", "c"): {"ann": "yes", "bob": "yes", "cy": "no"},
        ("i2", "c"): {"ann": "no", "bob": "yes", "cy": "yes"},
        ("i3", "c"): {"ann": "yes", "bob": "no", "cy": "unsure"},  # no majority
        ("i4", "c"): {"ann": "yes", "bob": "yes"},  # two ratings: not counted
    }
    got = agreement_with_majority(subjects)
    assert got["ann"] == {"subjects": 2, "agree": 1, "rate": 0.5}
    assert got["bob"] == {"subjects": 2, "agree": 2, "rate": 1.0}
    assert got["cy"] == {"subjects": 2, "agree": 1, "rate": 0.5}
