"""Near-duplicate detection: token-Jaccard clusters with prefix filtering.

Exact all-pairs Jaccard is quadratic; prefix filtering (Chaudhuri et al. 2006; Bayardo
et al. 2007) only compares sets that share a rare token in their prefixes, which is
exact for a threshold t and fast on thousands of questions.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict

_TOKEN = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")


def tokens(text: str) -> frozenset[str]:
    """Lower-cased word and number tokens of a question."""
    return frozenset(_TOKEN.findall(text.lower()))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a ∩ b| / |a ∪ b| (1.0 for two empty sets)."""
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def similar_pairs(sets: list[frozenset[str]], threshold: float) -> list[tuple[int, int, float]]:
    """Every pair (i, j, J) with Jaccard >= threshold, exactly."""
    if not 0 < threshold <= 1:
        raise ValueError("threshold must be in (0, 1]")
    df = Counter(t for s in sets for t in s)
    ordered = [sorted(s, key=lambda t: (df[t], t)) for s in sets]
    index: dict[str, list[int]] = defaultdict(list)
    pairs: list[tuple[int, int, float]] = []
    order = sorted(range(len(sets)), key=lambda i: len(sets[i]))
    for i in order:
        toks = ordered[i]
        n = len(toks)
        prefix = n - math.ceil(threshold * n) + 1 if n else 0
        seen: set[int] = set()
        for t in toks[:prefix]:
            for j in index[t]:
                if j in seen:
                    continue
                seen.add(j)
                if len(sets[j]) < threshold * n:  # size filter: j is smaller (sorted order)
                    continue
                sim = jaccard(sets[i], sets[j])
                if sim >= threshold:
                    pairs.append((min(i, j), max(i, j), sim))
            index[t].append(i)
        if n == 0:
            for j in index[""]:
                pairs.append((min(i, j), max(i, j), 1.0))
            index[""].append(i)
    return pairs


def clusters(n: int, pairs: list[tuple[int, int, float]]) -> list[list[int]]:
    """Connected components (single linkage) over the similar pairs, largest first."""
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j, _ in pairs:
        ri, rj = find(i), find(j)
        if ri != rj:
            parent[ri] = rj
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(n):
        groups[find(i)].append(i)
    return sorted(groups.values(), key=lambda g: (-len(g), g[0]))
