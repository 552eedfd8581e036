"""`TokenRows`: tokenized once, the clusters of any subset equal those of its texts alone."""

from __future__ import annotations

import random

import pytest

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


@pytest.mark.parametrize("seed", range(4))
def test_any_similar_on_masks_equals_the_pairwise_jaccard(seed: int) -> None:
    """The ordered near-duplicate check's test between two rounds' draws, on bit masks:
    the same answer as pairwise `jaccard` on the sets, at and around the threshold
    (7 of 10 shared tokens is 0.7 exactly), for equal sets and for empty ones."""
    import random

    from scigate.gate._similarity import any_similar, jaccard, token_masks

    rng = random.Random(seed)
    words = [f"w{i}" for i in range(30)]
    groups = {
        k: [frozenset(rng.sample(words, rng.randint(0, 12))) for _ in range(rng.randint(1, 6))]
        for k in range(40)
    }
    groups[40] = [frozenset(words[:10])]
    groups[41] = [frozenset(words[3:13])]  # 7 shared of 13: 0.538...
    groups[42] = [frozenset(words[:7]) | {"x", "y", "z"}]  # 7 shared of 13 again
    groups[43] = [frozenset(words[:7])]  # 7 of 10: exactly 0.7
    groups[44] = [frozenset()]
    masks = token_masks(groups)
    seen = set()
    for threshold in (0.3, 0.5, 0.7, 0.9, 1.0):
        for r in groups:
            for k in groups:
                want = any(
                    a == b or jaccard(a, b) >= threshold for a in groups[r] for b in groups[k]
                )
                assert any_similar(masks[r], masks[k], threshold) == want, (r, k, threshold)
                seen.add(want)
    assert seen == {True, False}
    assert any_similar(masks[40], masks[43], 0.7)  # the boundary counts as similar
    assert any_similar(masks[44], masks[44], 0.7)  # two empty questions are equal
