"""Near-duplicate detection: token-Jaccard clusters with prefix filtering.

Exact all-pairs Jaccard is quadratic; prefix filtering (Chaudhuri et al. 2006; Bayardo
et al. 2007) only compares sets that share a rare token in their prefixes, which is
exact for a threshold t and fast on thousands of questions.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict

import numpy as np

_EPS = 1e-9
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
        # The smallest overlap a similar pair can have; the epsilon keeps float error in
        # threshold * n (e.g. 0.55 * 100 = 55.00000000000001) from shortening the prefix.
        prefix = n - math.ceil(threshold * n - _EPS) + 1 if n else 0
        seen: set[int] = set()
        for t in toks[:prefix]:
            for j in index[t]:
                if j in seen:
                    continue
                seen.add(j)
                if len(sets[j]) < threshold * n - _EPS:  # size filter: j is not larger
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


def similar_clusters(sets: list[frozenset[str]], threshold: float) -> list[list[int]]:
    """Connected components of the Jaccard >= threshold graph, largest first, exactly.

    Equal to `clusters(len(sets), similar_pairs(sets, threshold))` without listing every
    pair: templated questions form clusters with millions of similar pairs, but a pair
    whose ends are already connected cannot change the components, so it is skipped
    before its Jaccard is computed (numpy filters the probe lists by component label).
    """
    if not 0 < threshold <= 1:
        raise ValueError("threshold must be in (0, 1]")
    n = len(sets)
    if n == 0:
        return []
    df = Counter(t for s in sets for t in s)
    order = sorted(range(n), key=lambda i: len(sets[i]))
    sizes = np.array([len(s) for s in sets], dtype=np.int64)
    prefixes: list[list[str]] = [[] for _ in range(n)]
    lists: dict[str, list[int]] = defaultdict(list)  # token -> items with it in their prefix
    for i in order:  # appended in processing order
        toks = sorted(sets[i], key=lambda t: (df[t], t))
        m = len(toks)
        prefixes[i] = toks[: m - math.ceil(threshold * m - _EPS) + 1] if m else []
        for t in prefixes[i]:
            lists[t].append(i)
    position = np.empty(n, dtype=np.int64)
    position[np.array(order)] = np.arange(n)
    index = {t: np.array(v, dtype=np.int64) for t, v in lists.items()}
    index_pos = {t: position[v] for t, v in index.items()}
    label = np.arange(n, dtype=np.int64)  # component label of each item
    members: dict[int, list[int]] = {i: [i] for i in range(n)}
    empties: list[int] = []

    def merge(a: int, b: int) -> None:
        la, lb = int(label[a]), int(label[b])
        if la == lb:
            return
        if len(members[la]) < len(members[lb]):
            la, lb = lb, la
        moved = members.pop(lb)
        label[moved] = la
        members[la].extend(moved)

    for p, i in enumerate(order):
        if not sets[i]:
            empties.append(i)  # empty sets are identical to each other (Jaccard 1)
            continue
        parts = []
        for t in prefixes[i]:
            k = int(np.searchsorted(index_pos[t], p))  # only items processed before i
            if k:
                parts.append(index[t][:k])
        if not parts:
            continue
        cand = np.unique(np.concatenate(parts))
        cand = cand[(label[cand] != label[i]) & (sizes[cand] >= threshold * len(sets[i]) - _EPS)]
        if not len(cand):
            continue
        # One component at a time: the first similar member joins it, the rest are skipped.
        labs = label[cand]
        by_label = np.argsort(labs, kind="stable")
        cand, labs = cand[by_label], labs[by_label]
        for group in np.split(cand, np.flatnonzero(np.diff(labs)) + 1):
            if label[group[0]] == label[i]:
                continue
            for j in group.tolist():
                if jaccard(sets[i], sets[j]) >= threshold:
                    merge(i, j)
                    break
    for e in empties[1:]:
        merge(empties[0], e)
    return sorted((sorted(g) for g in members.values()), key=lambda g: (-len(g), g[0]))
