"""Hybrid tool retrieval: BM25 (bm25s) plus embedding similarity, fused, then graph expansion.

Each tool is described by its name split into words, its functionality, its input and
output types, its applicable objects and scenarios, and its category. A query is scored
lexically with BM25 and semantically with the cosine similarity of embeddings; the two
rankings are fused by reciprocal rank (default) or by a weighted sum of min-max scaled
scores. Search can be restricted to a subset of tools (the known set, say) and expanded
along I/O edges of the tool graph.

Entities in the query (a SMILES, a sequence, a formula, an identifier; see `_entities`)
are replaced by their type word before scoring, and tools that take an input of that
type get a bonus. The default fusion and weights were tuned on the generated ``dev``
question split (`_retrieval_eval`) and are measured on the ``heldout`` split in
benchmarks/bench_tools.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

import bm25s
import numpy as np

from scigate.errors import BadInput
from scigate.tools._embeddings import Embedder, HashingEmbedder, words
from scigate.tools._entities import fitting_types, mask_entities
from scigate.tools._graph import ToolGraph, ontology_record
from scigate.tools._tool import Tool
from scigate.tools._vocabulary import VOCABULARY, canonical_type, normalise

Fusion = Literal["rrf", "weighted"]
RRF_K = 60
# tuned on the dev split (see benchmarks/bench_tools.py --tune)
DEFAULT_FUSION: Fusion = "weighted"
DEFAULT_LEXICAL_WEIGHT = 0.6
DEFAULT_ENTITY_WEIGHT = 0.2


@dataclass
class Hit:
    """One retrieved tool with its fused score and the evidence behind it."""

    name: str
    score: float
    lexical: float  # BM25 score
    semantic: float  # cosine similarity of embeddings
    via: str = "search"  # "search", or "graph" for tools added by subgraph expansion

    def as_dict(self) -> dict[str, Any]:
        """Plain dict for JSON output."""
        return {
            "name": self.name,
            "score": round(self.score, 6),
            "lexical": round(self.lexical, 6),
            "semantic": round(self.semantic, 6),
            "via": self.via,
        }


def describe(record: dict[str, Any]) -> str:
    """The text a tool is indexed under."""
    name_words = " ".join(w for w in words(record["name"]) if w != record["name"].lower())
    parts = [
        f"{record['name']} {name_words}",
        record.get("functionality", ""),
        "inputs: " + ", ".join(record.get("inputs", [])),
        "outputs: " + ", ".join(record.get("outputs", [])),
    ]
    if record.get("objects"):
        parts.append("objects: " + ", ".join(record["objects"]))
    if record.get("scenarios"):
        parts.append("scenarios: " + ", ".join(record["scenarios"]))
    if record.get("category"):
        parts.append(f"category: {record['category']}")
    return ". ".join(p for p in parts if p)


_GENERIC_TYPES = frozenset(
    normalise(t)
    for t in (
        *[
            "number",
            "integer",
            "text",
            "length",
            "unit",
            "points",
            "answer",
            "question",
            "JSON",
            "Query",
        ],
        *["statistics", "keywords", "formula", "elements"],
        "number list",
        "True or False",
    )
)


def _type_pattern() -> re.Pattern[str]:
    names = {
        alias
        for term in VOCABULARY
        for alias in (term.name, *term.aliases)
        if normalise(alias) not in _GENERIC_TYPES
    }
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9])({alternatives})(?![A-Za-z0-9])", re.IGNORECASE)


_TYPE_MENTION = _type_pattern()


def io_hint(query: str) -> tuple[set[str], set[str]]:
    """Input and output types a query names: 'A to B' / 'B from A' (canonical type names)."""

    def mentions(text: str) -> set[str]:
        return {canonical_type(m.group(1)) for m in _TYPE_MENTION.finditer(text)}

    to = re.search(r"\b(to|into)\b", query, re.IGNORECASE)
    frm = re.search(r"\b(from|of)\b", query, re.IGNORECASE)
    if to and not (frm and frm.start() > to.start()):
        return mentions(query[: to.start()]), mentions(query[to.end() :])
    if frm:
        return mentions(query[frm.end() :]), mentions(query[: frm.start()])
    return set(), set()


def _io_types(record: dict[str, Any]) -> tuple[set[str], set[str]]:
    return (
        {canonical_type(t) for t in record["inputs"]},
        {canonical_type(t) for t in record["outputs"]},
    )


def _tokens(text: str) -> list[str]:
    out = []
    for w in words(text):
        if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.append(w)
    return out


def _embed_cached(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """`embedder.embed(texts)`, read from the disk cache when the built-in (deterministic)
    embedder embedded these very texts before; other embedders are not cached here."""
    if not isinstance(embedder, HashingEmbedder):
        return embedder.embed(texts)
    import hashlib

    from scigate.tools import _diskcache

    key = hashlib.sha256("\0".join([embedder.id, *texts]).encode()).hexdigest()
    name = f"index-vectors-{embedder.id}.npz"
    vectors = _diskcache.read_array(name, key, (len(texts), embedder.dim))
    if vectors is None:
        vectors = embedder.embed(texts)
        _diskcache.write_array(name, key, vectors)
    return vectors


class ToolIndex:
    """A searchable index over tool ontologies."""

    def __init__(
        self,
        records: Iterable[Tool | dict[str, Any]],
        embedder: Embedder | None = None,
        graph: ToolGraph | None = None,
        cache: bool = False,
    ):
        """`cache`: keep the tools' vectors on disk (`_diskcache`) for the next process;
        for an index over the whole library with the built-in embedder."""
        self.records = [ontology_record(r) for r in records]
        if not self.records:
            raise BadInput("cannot build a tool index over no tools")
        self.names = [r["name"] for r in self.records]
        self._position = {n: i for i, n in enumerate(self.names)}
        self.texts = [describe(r) for r in self.records]
        self.embedder = embedder or HashingEmbedder()
        self._vectors = (
            _embed_cached(self.embedder, self.texts) if cache else self.embedder.embed(self.texts)
        )
        self._graph = graph
        self._own_graph = graph is None
        self._query_cache: dict[str, np.ndarray] = {}
        self._io = [_io_types(r) for r in self.records]
        self._fits: dict[str, np.ndarray] = {}  # entity type -> which tools accept it
        self._index_lexical()

    def _index_lexical(self) -> None:
        self._bm25 = bm25s.BM25()
        self._bm25.index([_tokens(t) or ["_empty_"] for t in self.texts], show_progress=False)

    def update(self, records: Iterable[Tool | dict[str, Any]]) -> None:
        """Add tools, or replace indexed tools of the same name (a migrated tool's completed
        ontology, say). Only these records are embedded; BM25 is re-indexed. A graph the
        index built itself follows; a graph passed in is the caller's to update."""
        changed = list({r["name"]: r for r in map(ontology_record, records)}.values())
        if not changed:
            return
        texts = [describe(r) for r in changed]
        vectors = self.embedder.embed(texts)
        added = []
        for record, text, vector in zip(changed, texts, vectors, strict=True):
            i = self._position.get(record["name"])
            if i is None:
                self._position[record["name"]] = len(self.names)
                self.records.append(record)
                self.names.append(record["name"])
                self.texts.append(text)
                self._io.append(_io_types(record))
                added.append(vector)
            else:
                self.records[i], self.texts[i], self._io[i] = record, text, _io_types(record)
                self._vectors[i] = vector
            if self._own_graph and self._graph is not None:
                self._graph.add_tool(record)
        if added:
            self._vectors = np.vstack([self._vectors, np.asarray(added)])
        self._fits.clear()
        self._index_lexical()

    @classmethod
    def from_library(cls, embedder: Embedder | None = None) -> ToolIndex:
        """An index over the whole tool library."""
        from scigate.tools._library import load_library

        return cls(load_library().values(), embedder=embedder, cache=True)

    @property
    def graph(self) -> ToolGraph:
        """The tool graph over the indexed records (built on first use)."""
        if self._graph is None:
            self._graph = ToolGraph.from_tools(self.records)
        return self._graph

    def _query_vector(self, query: str) -> np.ndarray:
        vec = self._query_cache.get(query)
        if vec is None:
            vec = self.embedder.embed([query])[0]
            if len(self._query_cache) > 1024:
                self._query_cache.clear()
            self._query_cache[query] = vec
        return vec

    def scores(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        """(BM25 scores, cosine similarities) of every indexed tool for `query` (entities in
        it already replaced by their type words)."""
        tokens = _tokens(query)  # bm25s fails on a query of stop words only
        lexical = self._bm25.get_scores(tokens) if tokens else np.zeros(len(self.names))
        # einsum, not BLAS: waking BLAS threads on a busy machine stalls a query for ~8 ms
        semantic = np.einsum("ij,j->i", self._vectors, self._query_vector(query))
        return np.asarray(lexical, dtype=np.float64), np.asarray(semantic, dtype=np.float64)

    def search(
        self,
        query: str,
        k: int = 5,
        restrict: Iterable[str] | None = None,
        fusion: Fusion | None = None,
        lexical_weight: float | None = None,
        expand_hops: int = 0,
        max_expand: int = 10,
        entity_weight: float | None = None,
        entities: bool = True,
    ) -> list[Hit]:
        """The top-`k` tools for `query`, optionally only among `restrict` and then expanded
        by up to `max_expand` tools within `expand_hops` I/O steps of the hits. Unset
        weights take the tuned defaults; `entity_weight` scales the bonus for tools whose
        input type fits an entity found in the query; `entities=False` searches the raw text."""
        fusion = DEFAULT_FUSION if fusion is None else fusion
        lexical_weight = DEFAULT_LEXICAL_WEIGHT if lexical_weight is None else lexical_weight
        entity_weight = DEFAULT_ENTITY_WEIGHT if entity_weight is None else entity_weight
        if not query or not query.strip():
            raise BadInput("empty search query")
        if k < 1:
            raise BadInput("k must be at least 1")
        if fusion not in ("rrf", "weighted"):
            raise BadInput(f"unknown fusion {fusion!r}; expected rrf or weighted")
        masked = mask_entities(query) if entities else mask_entities("")
        query = masked.text or query
        lexical, semantic = self.scores(query)
        if restrict is None:
            candidates = np.arange(len(self.names))
        else:
            allowed = set(restrict)
            candidates = np.array(
                [i for i, n in enumerate(self.names) if n in allowed], dtype=np.int64
            )
            if len(candidates) == 0:
                return []
        fused = self._fuse(lexical[candidates], semantic[candidates], fusion, lexical_weight)
        fused = fused + self._io_bonus(query, candidates, fusion)
        if masked.entities and entity_weight:
            fused = fused + entity_weight * self._entity_bonus(masked.types, candidates, fusion)
        order = np.lexsort((np.array([self.names[i] for i in candidates]), -fused))
        hits = [
            Hit(
                name=self.names[candidates[j]],
                score=float(fused[j]),
                lexical=float(lexical[candidates[j]]),
                semantic=float(semantic[candidates[j]]),
            )
            for j in order[:k]
        ]
        if expand_hops > 0 and hits:
            allowed_names = {self.names[i] for i in candidates}
            grown = self.graph.expand(
                [h.name for h in hits],
                hops=expand_hops,
                max_size=len(hits) + max_expand,
                allowed=allowed_names,
            )
            extra = [n for n in grown if n not in {h.name for h in hits}]
            pos = {self.names[c]: j for j, c in enumerate(candidates)}
            added = [
                Hit(
                    name=n,
                    score=float(fused[pos[n]]),
                    lexical=float(lexical[self._position[n]]),
                    semantic=float(semantic[self._position[n]]),
                    via="graph",
                )
                for n in extra
            ]
            hits.extend(sorted(added, key=lambda h: (-h.score, h.name)))
        return hits

    def _io_bonus(self, query: str, candidates: np.ndarray, fusion: Fusion) -> np.ndarray:
        """Reward tools whose inputs/outputs match the types the query names ('A to B')."""
        wanted_in, wanted_out = io_hint(query)
        bonus = np.zeros(len(candidates))
        if not wanted_in and not wanted_out:
            return bonus
        for j, i in enumerate(candidates):
            ins, outs = self._io[i]
            bonus[j] = len(wanted_in & ins) + len(wanted_out & outs)
        if fusion == "weighted":
            return 0.25 * bonus / max(len(wanted_in) + len(wanted_out), 1)
        return 0.5 * bonus / (RRF_K + 1) / max(len(wanted_in) + len(wanted_out), 1)

    def _accepts(self, entity_type: str) -> np.ndarray:
        """1.0 for each indexed tool with an input that accepts `entity_type`, else 0.0."""
        mask = self._fits.get(entity_type)
        if mask is None:
            fits = fitting_types(entity_type)
            mask = np.array([bool(fits & ins) for ins, _ in self._io], dtype=np.float64)
            self._fits[entity_type] = mask
        return mask

    def _entity_bonus(self, types: list[str], candidates: np.ndarray, fusion: Fusion) -> np.ndarray:
        """Fraction of the query's entity types that some input of each tool accepts, on
        the scale of the fused score."""
        bonus = sum(self._accepts(t)[candidates] for t in types) / len(types)
        return bonus if fusion == "weighted" else bonus / (RRF_K + 1)

    @staticmethod
    def _fuse(
        lexical: np.ndarray, semantic: np.ndarray, fusion: Fusion, lexical_weight: float
    ) -> np.ndarray:
        w_lex, w_sem = lexical_weight, 1.0 - lexical_weight
        if fusion == "weighted":

            def scale(x: np.ndarray) -> np.ndarray:
                span = x.max() - x.min()
                return (x - x.min()) / span if span > 0 else np.zeros_like(x)

            return w_lex * scale(lexical) + w_sem * scale(semantic)
        fused = np.zeros(len(lexical))
        lex_order = np.argsort(-lexical, kind="stable")
        lex_rank = np.empty(len(lexical))
        lex_rank[lex_order] = np.arange(1, len(lexical) + 1)
        sem_order = np.argsort(-semantic, kind="stable")
        sem_rank = np.empty(len(semantic))
        sem_rank[sem_order] = np.arange(1, len(semantic) + 1)
        fused += np.where(lexical > 0, w_lex / (RRF_K + lex_rank), 0.0)
        fused += w_sem / (RRF_K + sem_rank)
        return fused


_DEFAULT_INDEX: ToolIndex | None = None


def search_tools(
    query: str,
    k: int = 5,
    restrict: Iterable[str] | None = None,
    expand_hops: int = 0,
) -> list[Hit]:
    """Search the whole library with the built-in embedder (index built once per process)."""
    global _DEFAULT_INDEX
    from scigate.tools._library import load_library

    tools = load_library()
    if _DEFAULT_INDEX is None or len(_DEFAULT_INDEX.names) != len(tools):
        _DEFAULT_INDEX = ToolIndex(tools.values(), cache=True)
    return _DEFAULT_INDEX.search(query, k=k, restrict=restrict, expand_hops=expand_hops)
