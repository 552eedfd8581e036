"""The agent's view of the tool library, as a thin layer over `scigate.tools`.

The known/unknown split is a `ToolSplit`: known tools show their full ontology and sit in
the known tool graph G_K (a `ToolGraph`, edges tool → I/O type → tool); unknown tools show
only their name, a sparse functionality line and their I/O types until they migrate into
G_K with an ontology the agent completed. Retrieval is a `ToolIndex` (BM25 + embedding
similarity) over what the agent can see, restricted to the known or the unknown set and
expanded along I/O edges of G_K.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from scigate.errors import BadInput
from scigate.tools import (
    Embedder,
    Tool,
    ToolGraph,
    ToolIndex,
    ToolSplit,
    load_library,
    make_embedder,
)

Among = Literal["known", "unknown"]
_COMPLETED_FIELDS = ("functionality", "inputs", "outputs", "category", "objects", "scenarios")


def library_tools(*, offline: bool = True, available: bool = True) -> dict[str, Tool]:
    """The tool library (optionally without web tools or tools whose packages are missing)."""
    return {
        n: t
        for n, t in sorted(load_library().items())
        if (not offline or not t.spec.network) and (not available or t.available())
    }


def complete_missing(
    seen: dict[str, Any], completed: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, str]]:
    """(ontology, provenance): what was observed of an unknown tool, with the completion
    filling only the attributes that are missing. Observed I/O types are never replaced
    (a model's guess must not rewrite a tool's real interface); the sparse functionality
    line (truncated, ending in "...") counts as incomplete and is replaced by a completed
    one. Provenance maps each field to observed, completed or missing."""
    merged: dict[str, Any] = {}
    provenance: dict[str, str] = {}
    for key in _COMPLETED_FIELDS:
        have, offered = seen.get(key), completed.get(key)
        incomplete = key == "functionality" and str(have or "").endswith("...")
        if have and not incomplete:
            merged[key], provenance[key] = have, "observed"
        elif offered:
            merged[key], provenance[key] = offered, "completed"
        elif have:
            merged[key], provenance[key] = have, "observed"
        else:
            provenance[key] = "missing"
            if have is not None:
                merged[key] = have
    return merged, provenance


class ToolSpace:
    """Executable tools plus the agent's split, known graph and retrieval index over them."""

    def __init__(
        self,
        tools: dict[str, Tool],
        split: ToolSplit | Iterable[str],
        *,
        embedder: Embedder | None = None,
    ) -> None:
        """`split` is a `ToolSplit` over exactly `tools`, or the names of the known tools."""
        self.tools = dict(tools)
        if not isinstance(split, ToolSplit):
            split = ToolSplit.from_known(self.tools, split)
        stray = sorted((set(split.known) | set(split.unknown)) ^ set(self.tools))
        if stray:
            raise BadInput(f"the tool split and the tools differ in {', '.join(stray[:5])}")
        self.split = split
        self.embedder = embedder or make_embedder("builtin")
        self.graph: ToolGraph = split.known_graph()
        self._index: ToolIndex | None = None

    # -- views -----------------------------------------------------------------------------

    @property
    def known(self) -> set[str]:
        """Names of the tools in the known graph."""
        return set(self.split.known)

    @property
    def unknown(self) -> set[str]:
        """Names of the tools the agent sees only through their sparse attributes."""
        return set(self.split.unknown)

    def is_known(self, name: str) -> bool:
        """True when `name` is in the known graph."""
        return self.split.is_known(name)

    def ontology(self, name: str) -> dict[str, Any]:
        """What the agent holds for a tool: the full (or completed) ontology of a known tool,
        the sparse attributes of an unknown one."""
        return self.split.view(name)

    def describe(self, name: str) -> str:
        """One line for a prompt: full ontology when known, sparse attributes when unknown."""
        if name not in self.tools:
            return f"{name}: (no such tool)"
        o = self.ontology(name)
        line = f"{name}: {o['functionality']} | Input: {', '.join(o['inputs'])} | Output: {', '.join(o['outputs'])}"
        if self.is_known(name):
            line += f" | Category: {o['category']}"
            if o.get("objects"):
                line += f" | Objects: {', '.join(o['objects'])}"
        return line

    def io_types(self, name: str) -> tuple[list[str], list[str]]:
        """(input types, output types) as the agent sees them."""
        o = self.ontology(name)
        return list(o["inputs"]), list(o["outputs"])

    # -- migration -------------------------------------------------------------------------

    def migrate(self, name: str, ontology: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """Move an unknown tool into the known graph, completing only what was missing (see
        `complete_missing`); returns the record that entered the graph plus its
        `provenance`, or None for a name that is not an unknown tool."""
        if name not in self.split.unknown:
            return None
        merged, provenance = complete_missing(self.split.view(name), ontology or {})
        record = self.split.migrate(name, merged)
        self.graph.add_tool(record)
        if self._index is not None:
            self._index.update([record])
        return {**record, "provenance": provenance}

    # -- retrieval ---------------------------------------------------------------------------

    @property
    def index(self) -> ToolIndex:
        """The retrieval index over what the agent sees of every tool (built on first use)."""
        if self._index is None:
            self._index = ToolIndex(
                [self.split.view(n) for n in sorted(self.tools)], self.embedder, graph=self.graph
            )
        return self._index

    def retrieve(
        self, query: str, *, k: int = 5, among: Among = "known", hops: int = 0, limit: int = 0
    ) -> list[tuple[str, float]]:
        """Top-k tools of the known (or unknown) set for `query`, with scores in [0, 1]; with
        `hops`, then known tools within that many I/O hops of them, `limit` tools in all."""
        pool = self.split.known if among == "known" else self.split.unknown
        if not pool or not query.strip():
            return []
        hits = self.index.search(
            query,
            k=k,
            restrict=pool,
            fusion="weighted",
            expand_hops=hops,
            max_expand=max(limit - k, 0),
        )
        return [(h.name, min(max(h.score, 0.0), 1.0)) for h in hits]
