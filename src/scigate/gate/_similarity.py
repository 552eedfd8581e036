"""Near-duplicate detection: token-Jaccard clusters with prefix filtering.

Exact all-pairs Jaccard is quadratic; prefix filtering (Chaudhuri et al. 2006; Bayardo
et al. 2007) only compares sets that share a rare token in their prefixes, which is
exact for a threshold t. `similar_pairs` lists every similar pair (the reference);
`similar_clusters` finds the same components with numpy and scipy.sparse, without
verifying pairs whose ends are already known to be connected.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict

import numpy as np
from scipy.sparse import coo_matrix, csr_matrix
from scipy.sparse.csgraph import connected_components

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

    Equal to `clusters(len(sets), similar_pairs(sets, threshold))` without verifying
    every prefix-sharing pair: templated questions form clusters with millions of
    similar pairs, but a pair whose ends are already connected cannot change the
    components. In two vectorised passes: (1) in each prefix token's list of items
    (ordered by size) every item is verified against its neighbour, which joins most of
    each cluster; (2) every prefix-sharing pair whose ends are still in different parts
    is verified. A similar pair always shares a prefix token, so it is either verified
    in (2) or already connected by (1): the components of the verified edges are exact.
    """
    if not 0 < threshold <= 1:
        raise ValueError("threshold must be in (0, 1]")
    n = len(sets)
    if n == 0:
        return []
    index = _TokenIndex(sets, threshold)
    edges = [index.similar_only(index.neighbour_pairs())]
    part = _components(n, edges)
    edges += [index.similar_only(pairs) for pairs in index.cross_pairs(part)]
    empties = np.flatnonzero(index.sizes == 0)
    if len(empties) > 1:  # empty sets are identical to each other (Jaccard 1)
        edges.append(np.stack([np.full(len(empties) - 1, empties[0]), empties[1:]]))
    return _groups(_components(n, edges))


#: Pairs generated (and verified) per batch in `similar_clusters`: bounds the memory.
_BATCH = 1 << 22
#: Bitsets (popcount) count overlaps up to this many 64-bit words per set; sparse rows beyond.
_MAX_WORDS = 256


class _TokenIndex:
    """Token-id rows of the sets (rarest token first), their prefixes and an overlap counter."""

    def __init__(self, sets: list[frozenset[str]], threshold: float, *, bitsets: bool = True):
        self.n, self.threshold = len(sets), threshold
        df = Counter(t for s in sets for t in s)
        # ids in (document frequency, token) order: each row's prefix is its smallest ids
        rank = {t: k for k, t in enumerate(sorted(df, key=lambda t: (df[t], t)))}
        self.sizes = np.fromiter((len(s) for s in sets), np.int64, self.n)
        total = int(self.sizes.sum())
        rows = np.repeat(np.arange(self.n, dtype=np.int64), self.sizes)
        ids = np.fromiter((rank[t] for s in sets for t in s), np.int64, total)
        vocab = max(len(rank), 1)
        ids = np.sort(rows * vocab + ids) - rows * vocab  # sorted within each row
        start = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(self.sizes, out=start[1:])
        # The smallest overlap a similar pair can have; the epsilon keeps float error in
        # threshold * m (e.g. 0.55 * 100 = 55.00000000000001) from shortening the prefix.
        need = np.ceil(threshold * self.sizes - _EPS).astype(np.int64)
        prefix_len = np.where(self.sizes > 0, self.sizes - need + 1, 0)
        in_prefix = np.arange(total) - start[rows] < prefix_len[rows]
        self.prefix_items, self.prefix_tokens = rows[in_prefix], ids[in_prefix]
        # Tokens in one set only can never be shared: the overlap counter leaves them out.
        once = int(np.searchsorted(np.array(sorted(df.values())), 2)) if df else 0
        shared = ids >= once
        self._bits: np.ndarray | None = None
        words = max((vocab - once + 63) // 64, 1)
        if bitsets and words <= _MAX_WORDS:
            dense = np.zeros((self.n, words * 64), dtype=bool)
            dense[rows[shared], ids[shared] - once] = True
            self._bits = np.packbits(dense, axis=1, bitorder="little").view(np.uint64)
        else:
            self._rows = csr_matrix(
                (np.ones(int(shared.sum()), np.int32), (rows[shared], ids[shared])),
                shape=(self.n, vocab),
            )

    def overlaps(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """|sets[i] ∩ sets[j]| for each pair, exactly."""
        out = np.empty(len(i), dtype=np.int64)
        step = 1 << 16
        for k in range(0, len(i), step):
            a, b = i[k : k + step], j[k : k + step]
            if self._bits is not None:
                out[k : k + step] = _popcount_rows(self._bits[a] & self._bits[b])
            else:
                both = self._rows[a].multiply(self._rows[b])
                out[k : k + step] = np.asarray(both.sum(axis=1)).ravel()
        return out

    def similar_only(self, pairs: np.ndarray) -> np.ndarray:
        """The pairs (2 x k array) whose Jaccard is >= the threshold."""
        i, j = pairs
        small, large = (
            np.minimum(self.sizes[i], self.sizes[j]),
            np.maximum(self.sizes[i], self.sizes[j]),
        )
        # size filter: Jaccard <= small / large
        keep = small >= self.threshold * large - _EPS
        i, j = i[keep], j[keep]
        inter = self.overlaps(i, j)
        # the same float division as `jaccard`, so the decisions are identical
        sim = inter / (self.sizes[i] + self.sizes[j] - inter) >= self.threshold
        return np.stack([i[sim], j[sim]])

    def neighbour_pairs(self) -> np.ndarray:
        """Each item paired with the next one in each of its prefix tokens' lists (by size)."""
        items, toks = self.prefix_items, self.prefix_tokens
        order = np.lexsort((items, self.sizes[items], toks))
        items, toks = items[order], toks[order]
        same = toks[1:] == toks[:-1]
        return _unique_pairs(items[:-1][same], items[1:][same], self.n)

    def cross_pairs(self, part: np.ndarray):
        """Batches of the distinct prefix-sharing pairs whose items lie in different parts."""
        items, toks = self.prefix_items, self.prefix_tokens
        order = np.lexsort((part[items], toks))
        items, toks = items[order], toks[order]
        group = toks * self.n + part[items]  # sorted: token, then part
        token_end = np.searchsorted(toks, toks, side="right")
        group_end = np.searchsorted(group, group, side="right")
        # entry e pairs with every later entry of its token outside its own part
        count = token_end - group_end
        ends = np.cumsum(count)
        done = 0
        while done < len(items):
            # as many entries as keep the batch under _BATCH pairs (at least one)
            stop = max(
                int(np.searchsorted(ends, ends[done] - count[done] + _BATCH, "right")), done + 1
            )
            c = count[done:stop]
            total = int(c.sum())
            if total:
                src = np.repeat(np.arange(done, stop), c)
                first = np.repeat(group_end[done:stop] - np.cumsum(c) + c, c)
                dst = first + np.arange(total)
                a, b = items[src], items[dst]
                small = np.minimum(self.sizes[a], self.sizes[b])
                large = np.maximum(self.sizes[a], self.sizes[b])
                keep = small >= self.threshold * large - _EPS  # size filter, before sorting
                yield _unique_pairs(a[keep], b[keep], self.n)
            done = stop


_BYTE_BITS = np.array([bin(b).count("1") for b in range(256)], dtype=np.uint8)


def _popcount_rows(words: np.ndarray) -> np.ndarray:
    """Set bits per row of a 2-D uint64 array (numpy >= 2 has a popcount ufunc)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words).sum(axis=1, dtype=np.int64)
    return _BYTE_BITS[words.view(np.uint8)].sum(axis=1, dtype=np.int64)


def _unique_pairs(i: np.ndarray, j: np.ndarray, n: int) -> np.ndarray:
    """The distinct unordered pairs (i < j) as a 2 x k array (sort-based: no hashing)."""
    key = np.sort(np.minimum(i, j) * n + np.maximum(i, j))
    if len(key):
        key = key[np.concatenate(([True], key[1:] != key[:-1]))]
    return np.stack([key // n, key % n])


def _components(n: int, edges: list[np.ndarray]) -> np.ndarray:
    """Component label of each of n nodes under the given edge batches (2 x k arrays)."""
    pairs = np.concatenate(edges, axis=1) if edges else np.zeros((2, 0), dtype=np.int64)
    graph = coo_matrix((np.ones(pairs.shape[1], dtype=np.int8), (pairs[0], pairs[1])), shape=(n, n))
    return connected_components(graph, directed=False)[1]


def _groups(label: np.ndarray) -> list[list[int]]:
    """Members of each label, ascending, the largest group first (ties: smallest member)."""
    order = np.lexsort((np.arange(len(label)), label))
    bounds = np.flatnonzero(np.diff(label[order])) + 1
    groups = [g.tolist() for g in np.split(order, bounds)]
    return sorted(groups, key=lambda g: (-len(g), g[0]))
