"""The agent's view of the tool library: a known tool graph and an unknown tool set.

Known tools show their full ontology (functionality, I/O types, category, objects,
scenarios) and sit in a graph whose edges go tool → output type → tool that takes it.
Unknown tools show only their name, a sparse functionality line and their I/O types
until they migrate into the known graph with an ontology the agent completed.
Retrieval is hybrid: BM25 over the descriptions plus embedding cosine similarity.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from typing import Any

import bm25s
import networkx as nx
import numpy as np

from scigate.agents._embed import Embedder, default_embedder
from scigate.tools import Tool

SPARSE_WORDS = 8


def library_tools(*, offline: bool = True, available: bool = True) -> dict[str, Tool]:
    """The tool library (optionally without web tools or tools whose packages are missing)."""
    from scigate.tools import REGISTRY

    try:
        from scigate.tools._library import load_library

        tools = dict(load_library())
    except ImportError:  # the library loader has not landed: use what is registered
        tools = dict(REGISTRY)
    return {
        n: t
        for n, t in sorted(tools.items())
        if (not offline or not t.spec.network) and (not available or t.available())
    }


def seeded_split(names: Iterable[str], ratio: float, seed: int) -> set[str]:
    """The known subset: `ratio` of the sorted names, shuffled with `seed`."""
    ordered = sorted(names)
    random.Random(seed).shuffle(ordered)
    return set(ordered[: round(ratio * len(ordered))])


def sparse_functionality(text: str, words: int = SPARSE_WORDS) -> str:
    """The under-specified functionality line an unknown tool exposes."""
    first = re.split(r"(?<=[.;])\s", text.strip(), maxsplit=1)[0]
    parts = first.rstrip(".;").split()
    return " ".join(parts[:words]) + (" ..." if len(parts) > words else "")


def _norm_type(t: str) -> str:
    return " ".join(t.lower().replace("_", " ").split())


class ToolSpace:
    """Known graph + unknown set over real, executable tools."""

    def __init__(
        self,
        tools: dict[str, Tool],
        known: Iterable[str],
        *,
        ontologies: dict[str, dict[str, Any]] | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.tools = dict(tools)
        self.known: set[str] = {n for n in known if n in self.tools}
        self.ontologies: dict[str, dict[str, Any]] = dict(ontologies or {})
        self.embed = embedder or default_embedder()
        self._vec_cache: dict[tuple[str, str], np.ndarray] = {}
        self._bm25: dict[tuple[str, frozenset[str]], tuple[bm25s.BM25, list[str]]] = {}
        self.graph = self._build_graph()

    # -- views -----------------------------------------------------------------------------

    @property
    def unknown(self) -> set[str]:
        return set(self.tools) - self.known

    def is_known(self, name: str) -> bool:
        return name in self.known

    def ontology(self, name: str) -> dict[str, Any]:
        """The ontology the agent holds for a known tool (completed one after migration)."""
        spec = self.tools[name].spec
        base = {
            "functionality": spec.functionality,
            "inputs": list(spec.inputs),
            "outputs": list(spec.outputs),
            "category": spec.category,
            "objects": list(spec.objects),
            "scenarios": list(spec.scenarios),
        }
        if name in self.ontologies:
            base.update({k: v for k, v in self.ontologies[name].items() if v})
        return base

    def describe(self, name: str) -> str:
        """One line for a prompt: full ontology when known, sparse attributes when unknown."""
        if name not in self.tools:
            return f"{name}: (no such tool)"
        if name in self.known:
            o = self.ontology(name)
            line = (
                f"{name}: {o['functionality']} | Input: {', '.join(o['inputs'])}"
                f" | Output: {', '.join(o['outputs'])} | Category: {o['category']}"
            )
            if o.get("objects"):
                line += f" | Objects: {', '.join(o['objects'])}"
            return line
        spec = self.tools[name].spec
        return (
            f"{name}: {sparse_functionality(spec.functionality)}"
            f" | Input: {', '.join(spec.inputs)} | Output: {', '.join(spec.outputs)}"
        )

    def io_types(self, name: str) -> tuple[list[str], list[str]]:
        o = self.ontology(name) if name in self.known else None
        spec = self.tools[name].spec
        return (o["inputs"], o["outputs"]) if o else (list(spec.inputs), list(spec.outputs))

    # -- graph -------------------------------------------------------------------------------

    def _build_graph(self) -> nx.DiGraph:
        g = nx.DiGraph()
        for name in self.known:
            self._add_node(g, name)
        return g

    def _add_node(self, g: nx.DiGraph, name: str) -> None:
        ins, outs = self.io_types(name)
        g.add_node(("tool", name))
        for t in ins:
            g.add_edge(("type", _norm_type(t)), ("tool", name))
        for t in outs:
            g.add_edge(("tool", name), ("type", _norm_type(t)))

    def neighbours(self, name: str) -> list[str]:
        """Known tools one I/O hop away (producers of its inputs, consumers of its outputs)."""
        node = ("tool", name)
        if node not in self.graph:
            return []
        found: list[str] = []
        for type_node in self.graph.predecessors(node):
            found += [n[1] for n in self.graph.predecessors(type_node)]
        for type_node in self.graph.successors(node):
            found += [n[1] for n in self.graph.successors(type_node)]
        return [n for n in dict.fromkeys(found) if n != name]

    def expand(self, seeds: list[str], *, hops: int = 1, limit: int = 10) -> list[str]:
        """Seeds plus known tools within `hops` I/O hops, breadth first, at most `limit`."""
        out = list(dict.fromkeys(seeds))
        frontier = list(out)
        for _ in range(hops):
            nxt: list[str] = []
            for name in frontier:
                for nb in self.neighbours(name):
                    if nb not in out and len(out) < limit:
                        out.append(nb)
                        nxt.append(nb)
            frontier = nxt
        return out[:limit]

    def migrate(self, name: str, ontology: dict[str, Any] | None = None) -> None:
        """Move an unknown tool into the known graph with its completed ontology."""
        if name not in self.tools:
            return
        if ontology:
            self.ontologies[name] = ontology
        self.known.add(name)
        self._add_node(self.graph, name)
        self._bm25.clear()

    # -- retrieval ---------------------------------------------------------------------------

    def _vectors(self, names: list[str]) -> np.ndarray:
        texts = [self.describe(n) for n in names]
        missing = [
            (n, t) for n, t in zip(names, texts, strict=True) if (n, t) not in self._vec_cache
        ]
        if missing:
            vecs = self.embed([t for _, t in missing])
            for (n, t), v in zip(missing, vecs, strict=True):
                self._vec_cache[(n, t)] = v
        return np.stack([self._vec_cache[(n, t)] for n, t in zip(names, texts, strict=True)])

    def _bm25_scores(self, query: str, names: list[str], which: str) -> np.ndarray:
        key = (which, frozenset(names))
        if key not in self._bm25:
            corpus = [self.describe(n) for n in names]
            retriever = bm25s.BM25()
            retriever.index(
                bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False
            )
            self._bm25[key] = (retriever, names)
        retriever, order = self._bm25[key]
        q = bm25s.tokenize([query], stopwords="en", show_progress=False, return_ids=False)[0]
        if not q:
            return np.zeros(len(names))
        try:
            raw = np.asarray(retriever.get_scores(q), dtype=np.float64)
        except Exception:
            return np.zeros(len(names))
        by_name = dict(zip(order, raw, strict=True))
        return np.array([by_name[n] for n in names])

    def retrieve(
        self, query: str, *, k: int = 5, among: str = "known", names: Iterable[str] | None = None
    ) -> list[tuple[str, float]]:
        """Top-k tools of the known (or unknown) set for `query`: (name, score in [0, 1])."""
        pool = (
            sorted(names)
            if names is not None
            else sorted(self.known if among == "known" else self.unknown)
        )
        if not pool or not query.strip():
            return []
        bm = self._bm25_scores(query, pool, among)
        if bm.max() > 0:
            bm = bm / bm.max()
        qv = self.embed([query])[0]
        cos = np.clip(self._vectors(pool) @ qv, 0.0, 1.0)
        score = 0.5 * bm + 0.5 * cos
        order = np.argsort(-score, kind="stable")[:k]
        return [(pool[i], float(score[i])) for i in order]
