"""The open-world known/unknown split of the tool space (SciToolAgent-Evo, section 4.1).

Known tools carry their full ontology (basic attributes: functionality, input and output
types, category; advanced: applicable objects and scientific scenarios) and form the known
tool graph G_K. Unknown tools expose only their name, a sparse functionality line and
their I/O types, until `migrate(name, completed_ontology)` moves them into G_K with the
ontology the agent completed. The split is seeded and stratified by category (or given
by name with `ToolSplit.from_known`), and serialisable to JSON so an agent's memory can
persist it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from scigate.errors import BadInput
from scigate.tools._graph import ToolGraph, ontology_record
from scigate.tools._tool import Tool

SPARSE_WORDS = 6


class Ontology(BaseModel):
    """A tool's ontology as the agent completes it before migration."""

    functionality: str = Field(min_length=1)
    inputs: list[str]
    outputs: list[str]
    category: str = ""
    objects: list[str] = Field(default_factory=list)
    scenarios: list[str] = Field(default_factory=list)
    source: str = ""


class UnknownTool(BaseModel):
    """What is visible of an unknown tool: name, sparse functionality, I/O types."""

    name: str
    functionality: str
    inputs: list[str]
    outputs: list[str]


def sparse_functionality(text: str, words: int = SPARSE_WORDS) -> str:
    """The first few words of the first sentence, marked as truncated."""
    first = text.strip().split(". ")[0].rstrip(".")
    parts = first.split()
    if not parts:
        return "A scientific tool."
    if len(parts) <= words:
        return " ".join(parts) + " ..."
    return " ".join(parts[:words]) + " ..."


class ToolSplit(BaseModel):
    """A known/unknown partition of tools with migration of unknown tools into G_K."""

    seed: int
    known_ratio: float
    known: dict[str, dict[str, Any]]  # name -> full ontology record
    unknown: dict[str, UnknownTool]
    migrated: list[str] = Field(default_factory=list)

    @property
    def known_names(self) -> list[str]:
        """Names of the known tools, sorted."""
        return sorted(self.known)

    @property
    def unknown_names(self) -> list[str]:
        """Names of the tools still unknown, sorted."""
        return sorted(self.unknown)

    def is_known(self, name: str) -> bool:
        """True when `name` is in the known set."""
        return name in self.known

    def view(self, name: str) -> dict[str, Any]:
        """What an agent may see of a tool: the full ontology if known, else the sparse one."""
        if name in self.known:
            return dict(self.known[name])
        if name in self.unknown:
            return self.unknown[name].model_dump()
        raise BadInput(f"tool {name!r} is in neither the known nor the unknown set")

    def known_graph(self) -> ToolGraph:
        """The known tool graph G_K over the known tools' ontologies."""
        return ToolGraph.from_tools(self.known.values())

    def migrate(self, name: str, completed_ontology: Ontology | dict[str, Any]) -> dict[str, Any]:
        """Move an unknown tool into the known set with its completed ontology; returns it."""
        if name in self.known:
            raise BadInput(f"tool {name!r} is already known")
        if name not in self.unknown:
            raise BadInput(f"tool {name!r} is not an unknown tool")
        try:
            onto = (
                completed_ontology
                if isinstance(completed_ontology, Ontology)
                else Ontology.model_validate(completed_ontology)
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first["loc"])
            raise BadInput(f"incomplete ontology for {name!r}: {where}: {first['msg']}") from None
        record = ontology_record({"name": name, **onto.model_dump()})
        del self.unknown[name]
        self.known[name] = record
        self.migrated.append(name)
        return record

    @classmethod
    def from_known(
        cls,
        tools: dict[str, Tool] | Iterable[Tool | dict[str, Any]],
        known: Iterable[str],
        *,
        seed: int = 0,
        known_ratio: float | None = None,
    ) -> ToolSplit:
        """The split in which exactly the tools named in `known` are known (names that are
        not among `tools` are ignored); `known_ratio` defaults to the share that is known."""
        records = sorted(_records(tools), key=lambda r: r["name"])
        wanted = set(known)
        known_records = {r["name"]: r for r in records if r["name"] in wanted}
        unknown = {
            r["name"]: UnknownTool(
                name=r["name"],
                functionality=sparse_functionality(r["functionality"]),
                inputs=list(r["inputs"]),
                outputs=list(r["outputs"]),
            )
            for r in records
            if r["name"] not in wanted
        }
        if known_ratio is None:
            known_ratio = len(known_records) / len(records) if records else 0.0
        return cls(seed=seed, known_ratio=known_ratio, known=known_records, unknown=unknown)

    # ------------------------------------------------------------------ JSON

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of the whole split (including migrations)."""
        return self.model_dump(mode="json")

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ToolSplit:
        """Rebuild a split from `to_json` output."""
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise BadInput(f"malformed tool split: {exc.errors()[0]['msg']}") from None

    def save(self, path: str | Path) -> None:
        """Write the split as JSON."""
        Path(path).write_text(json.dumps(self.to_json(), indent=1, ensure_ascii=False))

    @classmethod
    def load(cls, path: str | Path) -> ToolSplit:
        """Read a split written by `save`."""
        try:
            return cls.from_json(json.loads(Path(path).read_text()))
        except (OSError, ValueError) as exc:
            raise BadInput(f"cannot read tool split {path}: {exc}") from None


def make_split(
    tools: dict[str, Tool] | Iterable[Tool | dict[str, Any]] | None = None,
    seed: int = 0,
    known_ratio: float = 0.5,
) -> ToolSplit:
    """Partition tools into known and unknown, stratified by category and seeded.

    In each category, round(known_ratio * n) tools (half-up) become known, chosen by a
    shuffle seeded with `seed`; the same tools and seed always give the same split.
    """
    if not 0.0 <= known_ratio <= 1.0:
        raise BadInput(f"known_ratio must be between 0 and 1, got {known_ratio}")
    records = _records(tools)
    by_category: dict[str, list[dict[str, Any]]] = {}
    for rec in sorted(records, key=lambda r: r["name"]):
        by_category.setdefault(rec["category"] or "", []).append(rec)
    rng = random.Random(seed)
    known: list[str] = []
    for category in sorted(by_category):
        group = by_category[category]
        rng.shuffle(group)
        known += [rec["name"] for rec in group[: int(known_ratio * len(group) + 0.5)]]
    return ToolSplit.from_known(records, known, seed=seed, known_ratio=known_ratio)


def _records(
    tools: dict[str, Tool] | Iterable[Tool | dict[str, Any]] | None,
) -> list[dict[str, Any]]:
    if tools is None:
        from scigate.tools._library import load_library

        tools = load_library()
    items = tools.values() if isinstance(tools, dict) else tools
    return [ontology_record(t) for t in items]
