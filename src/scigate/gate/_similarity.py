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
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

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


TokenMask = tuple[int, int]  # a token set as (bit mask over one vocabulary, its size)


def token_masks(groups: Mapping[int, list[frozenset[str]]]) -> dict[int, list[TokenMask]]:
    """Each group's token sets as bit masks over one vocabulary (for `any_similar`)."""
    vocabulary: dict[str, int] = {}
    masks: dict[int, list[TokenMask]] = {}
    for key, sets in groups.items():
        masks[key] = []
        for tokens_ in sets:
            mask = 0
            for token in tokens_:
                mask |= 1 << vocabulary.setdefault(token, len(vocabulary))
            masks[key].append((mask, len(tokens_)))
    return masks


def any_similar(mine: list[TokenMask], theirs: list[TokenMask], threshold: float) -> bool:
    """True when some set of `mine` and some set of `theirs` (`token_masks` of one
    vocabulary) are equal or have Jaccard >= `threshold`, computed as `jaccard` does.
    One AND and a popcount a pair: two chemistry template rounds (40 draws each, 1,600
    pairs) take about 19x less than with frozensets."""
    for a, size_a in mine:
        for b, size_b in theirs:
            common = (a & b).bit_count()
            union = size_a + size_b - common
            if a == b or (common / union if union else 1.0) >= threshold:
                return True
    return False


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

    Equal to `clusters(len(sets), similar_pairs(sets, threshold))`; see `_components_of`.
    """
    if not 0 < threshold <= 1:
        raise ValueError("threshold must be in (0, 1]")
    vocab: dict[str, int] = {}
    sizes = np.fromiter((len(s) for s in sets), np.int64, len(sets))
    ids = np.fromiter(
        (vocab.setdefault(t, len(vocab)) for s in sets for t in s), np.int64, int(sizes.sum())
    )
    return _components_of(sizes, ids, len(vocab), threshold)


def text_clusters(texts: Iterable[str], threshold: float) -> list[list[int]]:
    """`similar_clusters` of the `tokens` of each text, without a frozenset per text
    (see `TokenRows`)."""
    if not 0 < threshold <= 1:
        raise ValueError("threshold must be in (0, 1]")
    return TokenRows.of(texts).clusters(threshold)


class TokenRows:
    """The token ids of a list of texts: each text's distinct tokens as vocabulary ids,
    concatenated (8 bytes a token instead of a Python set per text). Tokenized once, the
    rows give the clusters of all texts and of any subset (`subset`) without re-reading."""

    def __init__(self, sizes: np.ndarray, ids: np.ndarray, vocab: int) -> None:
        self.sizes, self.ids, self.vocab = sizes, ids, vocab

    @classmethod
    def of(cls, texts: Iterable[str]) -> TokenRows:
        """Tokenize the texts, read one at a time (an iterator of database rows will do)."""
        vocab: dict[str, int] = {}
        sizes = array("q")
        ids = array("q")
        for text in texts:
            row = {vocab.setdefault(t, len(vocab)) for t in _TOKEN.findall(text.lower())}
            sizes.append(len(row))
            ids.extend(row)
        return cls(
            np.frombuffer(sizes, dtype=np.int64).copy() if sizes else np.zeros(0, np.int64),
            np.frombuffer(ids, dtype=np.int64).copy() if ids else np.zeros(0, np.int64),
            len(vocab),
        )

    def __len__(self) -> int:
        return len(self.sizes)

    def subset(self, rows: Iterable[int]) -> TokenRows:
        """The rows at the given positions, in that order (same vocabulary)."""
        pick = np.fromiter(rows, dtype=np.int64)
        start = np.zeros(len(self.sizes) + 1, dtype=np.int64)
        np.cumsum(self.sizes, out=start[1:])
        lens = self.sizes[pick]
        total = int(lens.sum())
        offset = np.repeat(start[pick] - (np.cumsum(lens) - lens), lens)
        return TokenRows(lens, self.ids[offset + np.arange(total)], self.vocab)

    def clusters(self, threshold: float) -> list[list[int]]:
        """`similar_clusters` of the rows (positions in this object), largest first."""
        if not 0 < threshold <= 1:
            raise ValueError("threshold must be in (0, 1]")
        return _components_of(self.sizes, self.ids, self.vocab, threshold)


def _components_of(
    sizes: np.ndarray, ids: np.ndarray, vocab: int, threshold: float
) -> list[list[int]]:
    """The clusters of the sets given as `sizes` and their concatenated token ids.

    A similar pair always shares a prefix token (prefix filtering), so verifying every
    prefix-sharing pair gives the exact components; but templated questions share their
    rare tokens (numbers) across families, and that is a quadratic number of dissimilar
    pairs. Only pairs whose ends lie in different parts can change the components, so:
    (1) in each prefix token's list of items (ordered by size) every item is verified
    against its neighbour, and (2) against the next item of another part, repeated while
    parts merge; both are linear and join most of each cluster. (3) For each item x and
    part P sharing a prefix token with it, |x ∩ (union of P's sets)| bounds the overlap of
    x with every member of P; a similar pair needs an overlap >= threshold * |x| (and the
    same from the other end), so (x, P) below that cannot hold a similar pair. Every
    prefix-sharing pair whose ends are in different parts and pass this bound both ways
    is verified. A similar pair is thus either verified or already connected: the
    components of the verified edges are exact.
    """
    n = len(sizes)
    if n == 0:
        return []
    index = _TokenIndex(sizes, ids, vocab, threshold)
    edges = [index.similar_only(index.neighbour_pairs())]
    part = _components(n, edges)
    for _ in range(_MERGE_ROUNDS):
        found = index.similar_only(index.next_part_pairs(part))
        if not found.shape[1]:
            break
        edges.append(found)
        part = _components(n, edges)
    allowed = index.open_item_parts(part)
    edges += [index.similar_only(pairs) for pairs in index.cross_pairs(part, allowed)]
    empties = np.flatnonzero(sizes == 0)
    if len(empties) > 1:  # empty sets are identical to each other (Jaccard 1)
        edges.append(np.stack([np.full(len(empties) - 1, empties[0]), empties[1:]]))
    return _groups(_components(n, edges))


#: Pairs generated (and verified) per batch in `similar_clusters`: bounds the memory.
_BATCH = 1 << 20
#: Bitsets (popcount) count overlaps up to this many 64-bit words per set; sparse rows beyond.
_MAX_WORDS = 256
#: At most this many rounds of pass (2) (each is linear; two or three usually suffice).
_MERGE_ROUNDS = 8


class _TokenIndex:
    """Token-id rows of the sets (rarest token first), their prefixes and an overlap counter."""

    def __init__(
        self,
        sizes: np.ndarray,
        ids: np.ndarray,
        vocab: int,
        threshold: float,
        *,
        bitsets: bool = True,
    ):
        self.n, self.threshold, self.sizes = len(sizes), threshold, sizes
        total = len(ids)
        rows = np.repeat(np.arange(self.n, dtype=np.int64), sizes)
        df = np.bincount(ids, minlength=vocab)
        # ids ranked by (document frequency, first appearance): a row's prefix is its rarest
        rank = np.empty(vocab, dtype=np.int64)
        rank[np.argsort(df, kind="stable")] = np.arange(vocab)
        vocab = max(vocab, 1)
        ids = np.sort(rows * vocab + rank[ids]) - rows * vocab  # sorted within each row
        start = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(sizes, out=start[1:])
        # The smallest overlap a similar pair can have; the epsilon keeps float error in
        # threshold * m (e.g. 0.55 * 100 = 55.00000000000001) from shortening the prefix.
        need = np.ceil(threshold * sizes - _EPS).astype(np.int64)
        prefix_len = np.where(sizes > 0, sizes - need + 1, 0)
        in_prefix = np.arange(total) - start[rows] < prefix_len[rows]
        self.prefix_items, self.prefix_tokens = rows[in_prefix], ids[in_prefix]
        self._sorted: tuple[np.ndarray, np.ndarray] | None = None
        # Tokens in one set only can never be shared: the overlap counter leaves them out.
        once = int(np.count_nonzero(df < 2))
        shared = ids >= once
        self._bits: np.ndarray | None = None
        words = max((vocab - once + 63) // 64, 1)
        if bitsets and words <= _MAX_WORDS:
            # one bit per shared token; the bits of a word are distinct, so adding is or-ing
            bit = ids[shared] - once
            key = rows[shared] * words + (bit >> 6)  # ascending: ids are sorted in each row
            val = np.left_shift(np.uint64(1), (bit & 63).astype(np.uint64))
            flat = np.zeros(self.n * words, dtype=np.uint64)
            if len(key):
                first = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
                flat[key[first]] = np.add.reduceat(val, first)
            self._bits = flat.reshape(self.n, words)
        else:
            self._rows = csr_matrix(
                (np.ones(int(shared.sum()), np.int32), (rows[shared], ids[shared])),
                shape=(self.n, vocab),
            )

    def overlaps(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """|sets[i] ∩ sets[j]| for each pair, exactly."""
        return self._overlaps(i, j, self._bits if self._bits is not None else self._rows)

    def _overlaps(self, i: np.ndarray, j: np.ndarray, other: Any) -> np.ndarray:
        """|sets[i] ∩ other[j]| for each pair (`other`: bitset rows or sparse rows)."""
        out = np.empty(len(i), dtype=np.int64)
        step = 1 << 16
        for k in range(0, len(i), step):
            a, b = i[k : k + step], j[k : k + step]
            if self._bits is not None:
                out[k : k + step] = _popcount_rows(self._bits[a] & other[b])
            else:
                both = self._rows[a].multiply(other[b])
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

    def _by_size(self) -> tuple[np.ndarray, np.ndarray]:
        """The prefix entries (items, tokens) ordered by token, then size, then item
        (sorted once: every merge round reads them)."""
        if self._sorted is None:
            items, toks = self.prefix_items, self.prefix_tokens
            order = np.lexsort((items, self.sizes[items], toks))
            self._sorted = items[order], toks[order]
        return self._sorted

    def neighbour_pairs(self) -> np.ndarray:
        """Each item paired with the next one in each of its prefix tokens' lists (by size)."""
        items, toks = self._by_size()
        same = toks[1:] == toks[:-1]
        return _unique_pairs(items[:-1][same], items[1:][same], self.n)

    def next_part_pairs(self, part: np.ndarray) -> np.ndarray:
        """Each item paired, in each of its prefix tokens' lists (by size), with the first
        item after it that lies in another part."""
        items, toks = self._by_size()
        if not len(items):
            return np.zeros((2, 0), dtype=np.int64)
        p = part[items]
        new_run = np.concatenate(([True], (toks[1:] != toks[:-1]) | (p[1:] != p[:-1])))
        run_start = np.flatnonzero(new_run)
        run = np.cumsum(new_run) - 1
        has_next = run + 1 < len(run_start)
        src = np.flatnonzero(has_next)
        dst = run_start[run[src] + 1]
        same_token = toks[dst] == toks[src]
        return _unique_pairs(items[src[same_token]], items[dst[same_token]], self.n)

    def open_item_parts(self, part: np.ndarray) -> np.ndarray:
        """Sorted keys `x * parts + P` of the (item, other part) couples sharing a prefix
        token whose bound |x ∩ union of P| reaches threshold * |x|: only these can hold a
        similar pair."""
        k = int(part.max()) + 1 if len(part) else 1
        items, toks = self.prefix_items, self.prefix_tokens
        p = part[items]
        order = np.lexsort((p, toks))
        items, toks, p = items[order], toks[order], p[order]
        if not len(items):
            return np.zeros(0, dtype=np.int64)
        # groups: the runs of one (token, part); a token's groups are consecutive
        g_first = np.flatnonzero(
            np.concatenate(([True], (toks[1:] != toks[:-1]) | (p[1:] != p[:-1])))
        )
        g_tok, g_part = toks[g_first], p[g_first]
        lo = np.searchsorted(g_tok, toks, "left")
        own = np.searchsorted(g_first, np.arange(len(items)), "right") - 1
        count = np.searchsorted(g_tok, toks, "right") - lo - 1  # the token's other groups
        keys = []
        for a, b in _batches(count):
            c = count[a:b]
            total = int(c.sum())
            if not total:
                continue
            src = np.repeat(np.arange(a, b), c)
            g = lo[src] + np.arange(total) - np.repeat(np.cumsum(c) - c, c)
            g += g >= own[src]  # skip the entry's own group
            keys.append(_sorted_unique(items[src] * k + g_part[g]))
        if not keys:
            return np.zeros(0, dtype=np.int64)
        key = _sorted_unique(np.concatenate(keys))
        x, q = key // k, key % k
        bound = self._overlaps(x, q, self._part_unions(part, k))
        return key[bound >= np.ceil(self.threshold * self.sizes[x] - _EPS)]

    def _part_unions(self, part: np.ndarray, k: int) -> Any:
        """Each part's union of shared tokens: bitset rows, or sparse rows."""
        if self._bits is not None:
            order = np.argsort(part, kind="stable")
            first = np.searchsorted(part[order], np.arange(k))
            return np.bitwise_or.reduceat(self._bits[order], first, axis=0)
        member = csr_matrix(
            (np.ones(self.n, np.int32), (part, np.arange(self.n))), shape=(k, self.n)
        )
        union = (member @ self._rows).tocsr()
        union.data[:] = 1
        return union

    def cross_pairs(self, part: np.ndarray, allowed: np.ndarray) -> Iterator[np.ndarray]:
        """Batches of the distinct prefix-sharing pairs whose items lie in different parts,
        with both (item, the other's part) couples in `allowed` (from `open_item_parts`)."""
        k = int(part.max()) + 1 if len(part) else 1
        open_items = np.zeros(self.n, dtype=bool)
        open_items[allowed // k] = True
        items, toks = self.prefix_items, self.prefix_tokens
        keep = open_items[items]
        items, toks = items[keep], toks[keep]
        order = np.lexsort((part[items], toks))
        items, toks = items[order], toks[order]
        group = toks * self.n + part[items]  # sorted: token, then part
        token_end = np.searchsorted(toks, toks, side="right")
        group_end = np.searchsorted(group, group, side="right")
        # entry e pairs with every later entry of its token outside its own part
        count = token_end - group_end
        for done, stop in _batches(count):
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
                keep &= _member(allowed, a * k + part[b]) & _member(allowed, b * k + part[a])
                yield _unique_pairs(a[keep], b[keep], self.n)


def _batches(count: np.ndarray) -> Iterator[tuple[int, int]]:
    """Ranges [a, b) of entries whose counts add up to at most _BATCH (at least one entry)."""
    ends = np.cumsum(count)
    done = 0
    while done < len(count):
        stop = max(int(np.searchsorted(ends, ends[done] - count[done] + _BATCH, "right")), done + 1)
        yield done, stop
        done = stop


def _member(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Whether each of `keys` is in the sorted array `sorted_keys`."""
    if not len(sorted_keys):
        return np.zeros(len(keys), dtype=bool)
    pos = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return sorted_keys[pos] == keys


_BYTE_BITS = np.array([bin(b).count("1") for b in range(256)], dtype=np.uint8)


def _popcount_rows(words: np.ndarray) -> np.ndarray:
    """Set bits per row of a 2-D uint64 array (numpy >= 2 has a popcount ufunc)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words).sum(axis=1, dtype=np.int64)
    return _BYTE_BITS[words.view(np.uint8)].sum(axis=1, dtype=np.int64)


def _sorted_unique(keys: np.ndarray) -> np.ndarray:
    """`np.unique` of an integer array by sorting (numpy 2's hash-based unique is up to
    20x slower on mostly distinct values)."""
    keys = np.sort(keys)
    return keys[np.concatenate(([True], keys[1:] != keys[:-1]))] if len(keys) else keys


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
