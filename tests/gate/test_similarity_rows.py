"""`TokenRows`: tokenized once, the clusters of any subset equal those of its texts alone."""

from __future__ import annotations

import random

from scigate.gate._similarity import TokenRows, text_clusters

WORDS = [
    "mesh",
    "solve",
    "poisson",
    "energy",
    "report",
    "basix",
    "degree",
    "element",
    "nedelec",
    "trace",
]


def _texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    base = [" ".join(rng.sample(WORDS, 6)) for _ in range(6)]
    out = []
    for _ in range(n):
        words = rng.choice(base).split()
        words[rng.randrange(len(words))] = str(rng.randint(1, 9))
        out.append(" ".join(words) if rng.random() > 0.05 else "")
    return out


def test_subset_clusters_equal_the_clusters_of_the_subset_texts() -> None:
    texts = _texts(400, 1)
    rows = TokenRows.of(texts)
    assert rows.clusters(0.7) == text_clusters(texts, 0.7)
    rng = random.Random(2)
    for _ in range(5):
        pick = sorted(rng.sample(range(len(texts)), rng.randint(0, 200)))
        got = rows.subset(pick).clusters(0.7)
        assert got == text_clusters([texts[k] for k in pick], 0.7)
    # any order, with the rows in the order given
    pick = rng.sample(range(len(texts)), 50)
    assert rows.subset(pick).clusters(0.5) == text_clusters([texts[k] for k in pick], 0.5)
    assert len(rows.subset([])) == 0 and rows.subset([]).clusters(0.7) == []
