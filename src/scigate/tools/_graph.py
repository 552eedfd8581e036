"""The tool graph: tools and I/O types as nodes, linked by what each tool consumes and makes.

Edges run type -> tool (the tool takes the type as an input) and tool -> type (the tool
produces it), so a path tool -> type -> tool is a step that can feed one tool's output to
the next. `tool_view()` is the derived tool -> tool `DiGraph` whose edges carry the
connecting types. Type names are canonicalised through the vocabulary, so
'Protein sequence' and 'protein sequence' are one node.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scigate.errors import BadInput
from scigate.tools._tool import Tool, ToolSpec
from scigate.tools._vocabulary import canonical_type

if TYPE_CHECKING:
    import networkx as nx

ONTOLOGY_FIELDS = (
    "functionality",
    "inputs",
    "outputs",
    "category",
    "source",
    "objects",
    "scenarios",
)
GRAPH_FORMAT = "scigate-tool-graph"


def _tool_id(name: str) -> str:
    return f"tool:{name}"


def _type_id(name: str) -> str:
    return f"type:{name}"


def ontology_record(item: Tool | ToolSpec | dict[str, Any]) -> dict[str, Any]:
    """The ontology fields (name, basic and advanced attributes) of a tool, spec or dict."""
    if isinstance(item, Tool):
        item = item.spec
    if isinstance(item, ToolSpec):
        data = item.model_dump(include={"name", *ONTOLOGY_FIELDS})
    else:
        data = dict(item)
    if not data.get("name"):
        raise BadInput("a tool record needs a name")
    record: dict[str, Any] = {"name": str(data["name"])}
    for key in ONTOLOGY_FIELDS:
        default: Any = [] if key in ("inputs", "outputs", "objects", "scenarios") else ""
        record[key] = data.get(key, default) if data.get(key) is not None else default
    return record


class ToolGraph:
    """A bipartite tool/type graph over a set of tool ontologies."""

    def __init__(self) -> None:
        import networkx as nx  # on first use: searching without --expand needs no graph

        self.graph = nx.DiGraph()

    # ------------------------------------------------------------------ building

    @classmethod
    def from_tools(cls, tools: Iterable[Tool | ToolSpec | dict[str, Any]]) -> ToolGraph:
        """A graph over the given tools (Tool objects, specs or ontology dicts)."""
        graph = cls()
        for item in tools:
            graph.add_tool(item)
        return graph

    def add_tool(self, item: Tool | ToolSpec | dict[str, Any]) -> None:
        """Add (or replace) one tool with its input and output edges."""
        record = ontology_record(item)
        name = record["name"]
        if self.has_tool(name):
            self.remove_tool(name)
        self.graph.add_node(_tool_id(name), kind="tool", **record)
        for t in record["inputs"]:
            self._add_type(t)
            self.graph.add_edge(_type_id(canonical_type(t)), _tool_id(name), relation="input")
        for t in record["outputs"]:
            self._add_type(t)
            self.graph.add_edge(_tool_id(name), _type_id(canonical_type(t)), relation="output")

    def _add_type(self, name: str) -> None:
        canon = canonical_type(name)
        if _type_id(canon) not in self.graph:
            self.graph.add_node(_type_id(canon), kind="type", name=canon)

    def remove_tool(self, name: str) -> None:
        """Remove a tool; types left without any tool are removed too."""
        node = _tool_id(name)
        if node not in self.graph:
            return
        neighbours = list(self.graph.predecessors(node)) + list(self.graph.successors(node))
        self.graph.remove_node(node)
        for n in neighbours:
            if self.graph.degree(n) == 0:
                self.graph.remove_node(n)

    # ------------------------------------------------------------------ queries

    def has_tool(self, name: str) -> bool:
        """True when the graph holds a tool called `name`."""
        return _tool_id(name) in self.graph

    @property
    def tools(self) -> list[str]:
        """Tool names, sorted."""
        return sorted(d["name"] for _, d in self.graph.nodes(data=True) if d["kind"] == "tool")

    @property
    def types(self) -> list[str]:
        """Type names, sorted."""
        return sorted(d["name"] for _, d in self.graph.nodes(data=True) if d["kind"] == "type")

    def ontology(self, name: str) -> dict[str, Any]:
        """The stored ontology record of a tool."""
        if not self.has_tool(name):
            raise BadInput(f"tool {name!r} is not in the graph")
        data = dict(self.graph.nodes[_tool_id(name)])
        data.pop("kind", None)
        return data

    def consumers(self, type_name: str) -> list[str]:
        """Tools that take `type_name` as an input."""
        node = _type_id(canonical_type(type_name))
        if node not in self.graph:
            return []
        return sorted(self.graph.nodes[t]["name"] for t in self.graph.successors(node))

    def producers(self, type_name: str) -> list[str]:
        """Tools that output `type_name`."""
        node = _type_id(canonical_type(type_name))
        if node not in self.graph:
            return []
        return sorted(self.graph.nodes[t]["name"] for t in self.graph.predecessors(node))

    def tool_view(self) -> nx.DiGraph:
        """The derived tool -> tool graph: an edge A -> B when an output type of A is an input
        type of B (self-loops left out); the edge attribute `via` lists the shared types."""
        import networkx as nx

        view = nx.DiGraph()
        for _, data in self.graph.nodes(data=True):
            if data["kind"] == "tool":
                view.add_node(data["name"])
        for node, data in self.graph.nodes(data=True):
            if data["kind"] != "type":
                continue
            for a in self.graph.predecessors(node):
                for b in self.graph.successors(node):
                    if a == b:
                        continue
                    an, bn = self.graph.nodes[a]["name"], self.graph.nodes[b]["name"]
                    if view.has_edge(an, bn):
                        view[an][bn]["via"].append(data["name"])
                    else:
                        view.add_edge(an, bn, via=[data["name"]])
        return view

    def successors(self, name: str) -> list[str]:
        """Tools that can take an output of `name` as input."""
        out: set[str] = set()
        for type_node in self.graph.successors(_tool_id(name)):
            out.update(self.graph.nodes[t]["name"] for t in self.graph.successors(type_node))
        out.discard(name)
        return sorted(out)

    def predecessors(self, name: str) -> list[str]:
        """Tools whose output `name` can take as input."""
        out: set[str] = set()
        for type_node in self.graph.predecessors(_tool_id(name)):
            out.update(self.graph.nodes[t]["name"] for t in self.graph.predecessors(type_node))
        out.discard(name)
        return sorted(out)

    def paths(
        self, src_type: str, dst_type: str, max_len: int = 3, limit: int = 100
    ) -> list[list[str]]:
        """Tool chains turning `src_type` into `dst_type`, shortest first (at most `limit`).

        A chain [t1, ..., tn] has n <= max_len, t1 takes `src_type`, each tool takes an
        output type of the one before it, and tn outputs `dst_type`; no tool repeats.
        """
        if max_len < 1:
            return []
        view = self.tool_view()
        starts = self.consumers(src_type)
        ends = set(self.producers(dst_type))
        # steps from each tool to a tool making dst_type, to prune hopeless branches
        to_end = {e: 0 for e in ends}
        frontier = list(ends)
        for step in range(1, max_len):
            frontier = [p for f in frontier for p in view.predecessors(f) if p not in to_end]
            for p in frontier:
                to_end[p] = step
        found: list[list[str]] = []
        queue: deque[list[str]] = deque([s] for s in starts if s in to_end)
        while queue and len(found) < limit:
            path = queue.popleft()
            if path[-1] in ends:
                found.append(path)
            for nxt in sorted(view.successors(path[-1])):
                if nxt not in path and len(path) + 1 + to_end.get(nxt, max_len) <= max_len:
                    queue.append([*path, nxt])
        return found

    def expand(
        self,
        names: Iterable[str],
        hops: int = 1,
        max_size: int = 20,
        allowed: Iterable[str] | None = None,
    ) -> list[str]:
        """Seed tools plus tools within `hops` I/O steps (either direction), breadth first,
        capped at `max_size` tools in total; `allowed` restricts which tools may be added."""
        allow = set(allowed) if allowed is not None else None
        seeds = [n for n in names if self.has_tool(n)]
        seen = list(dict.fromkeys(seeds))
        frontier = list(seen)
        for _ in range(max(hops, 0)):
            nxt: list[str] = []
            for name in frontier:
                for other in self.successors(name) + self.predecessors(name):
                    if len(seen) >= max_size:
                        return seen
                    if other in seen or (allow is not None and other not in allow):
                        continue
                    seen.append(other)
                    nxt.append(other)
            frontier = nxt
        return seen[:max_size] if len(seen) > max_size else seen

    def subgraph(self, names: Iterable[str]) -> ToolGraph:
        """A new graph over only the named tools."""
        wanted = [self.ontology(n) for n in names if self.has_tool(n)]
        return ToolGraph.from_tools(wanted)

    # ------------------------------------------------------------------ JSON

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: format tag, tool records, type names and edges."""
        return {
            "format": GRAPH_FORMAT,
            "version": 1,
            "tools": [self.ontology(n) for n in self.tools],
            "types": self.types,
            "edges": [
                {
                    "source": self.graph.nodes[a]["name"],
                    "target": self.graph.nodes[b]["name"],
                    "relation": d["relation"],
                }
                for a, b, d in sorted(self.graph.edges(data=True))
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ToolGraph:
        """Rebuild a graph written by `to_json`."""
        if not isinstance(data, dict) or data.get("format") != GRAPH_FORMAT:
            raise BadInput(f"not a scigate tool graph (expected format {GRAPH_FORMAT!r})")
        try:
            return cls.from_tools(data["tools"])
        except (KeyError, TypeError) as exc:
            raise BadInput(f"malformed tool graph: {exc}") from None

    def save(self, path: str | Path) -> None:
        """Write the graph as JSON to `path`."""
        Path(path).write_text(json.dumps(self.to_json(), indent=1, ensure_ascii=False))

    @classmethod
    def load(cls, path: str | Path) -> ToolGraph:
        """Read a graph written by `save`."""
        try:
            data = json.loads(Path(path).read_text())
        except (OSError, ValueError) as exc:
            raise BadInput(f"cannot read tool graph {path}: {exc}") from None
        return cls.from_json(data)

    def __len__(self) -> int:
        return len(self.tools)

    def __repr__(self) -> str:
        return f"ToolGraph({len(self.tools)} tools, {len(self.types)} types)"


def library_graph(tools: dict[str, Tool] | None = None) -> ToolGraph:
    """The graph over the whole tool library (or over `tools`)."""
    if tools is None:
        from scigate.tools._library import load_library

        tools = load_library()
    return ToolGraph.from_tools(tools.values())
