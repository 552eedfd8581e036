"""Cross-family transfer: which solvers (and no-tool screens) solved what, by model family.

The paper's Table 3: of the items family A solved, how many did family B solve too?
A model's family is its provider (`openai`, `anthropic`, `openai-compatible`, `python`),
`cue` for cue baselines and `cmd` for external solver commands. A family attempted an
item when one of its models has a decided latest result on it (errors are left out) and
solved it when one of them solved it (a tool solver passed; a no-tool screen failed it).
"""

from __future__ import annotations

import functools
from collections import Counter, defaultdict
from typing import Any

from pydantic import BaseModel, Field

Latest = dict[str, dict[tuple[str, str], dict[str, Any]]]


class SolverSummary(BaseModel):
    """One tool solver or no-tool screen over every candidate it saw."""

    spec: str
    family: str
    kind: str  # tool | no-tool
    attempted: int  # decided results (pass or fail)
    solved: int
    errors: int


class TransferCell(BaseModel):
    """Row family `a`, column family `b`.

    Off the diagonal: `n` items that `a` solved and `b` attempted, `solved` of them `b`
    solved too. On the diagonal (a == b): `n` items `a` attempted, `solved` it solved.
    """

    a: str
    b: str
    n: int
    solved: int
    rate: float | None


class TransferAudit(BaseModel):
    """Solved-by tables for the tool-enabled solvers and the no-tool screens."""

    solvers: list[SolverSummary] = Field(default_factory=list)
    tool_families: list[str] = Field(default_factory=list)
    tool: list[TransferCell] = Field(default_factory=list)
    no_tool_families: list[str] = Field(default_factory=list)
    no_tool: list[TransferCell] = Field(default_factory=list)
    #: accepted (pool) item -> the tool solvers that solved it
    accepted_solved_by: dict[str, list[str]] = Field(default_factory=dict)
    #: "anthropic+openai" -> accepted items solved by exactly these tool families
    accepted_by_families: dict[str, int] = Field(default_factory=dict)


@functools.lru_cache(maxsize=4096)  # a few distinct specs, met once per gate result
def spec_family(spec: str) -> str:
    """The model family of a screen or solver spec (its provider)."""
    if spec.startswith("cmd:"):
        return "cmd"
    head = spec.split("?", 1)[0]
    provider = head.split("/", 1)[0].strip().lower() if "/" in head else ""
    if provider in ("ollama", "vllm"):  # shorthands of openai-compatible servers
        return "openai-compatible"
    return provider or "unknown"


def solver_transfer(latest: Latest, accepted: list[str]) -> TransferAudit:
    """Solved-by summaries, family transfer tables and the accepted items' solvers."""
    # kind -> family -> candidate -> solved (True/False); errors are left out
    by_family: dict[str, dict[str, dict[str, bool]]] = {
        "tool": defaultdict(dict),
        "no-tool": defaultdict(dict),
    }
    stats: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    order: list[tuple[str, str]] = []
    for cid, per in latest.items():
        for (gate, spec), g in per.items():
            if gate not in ("solve", "screen"):
                continue
            kind = "tool" if gate == "solve" else "no-tool"
            if (kind, spec) not in stats:
                order.append((kind, spec))
            st = stats[(kind, spec)]
            if g["outcome"] not in ("pass", "fail"):
                st["errors"] += 1
                continue
            solved = g["outcome"] == ("pass" if kind == "tool" else "fail")
            st["attempted"] += 1
            st["solved"] += solved
            fam = by_family[kind][spec_family(spec)]
            fam[cid] = fam.get(cid, False) or solved
    solvers = [
        SolverSummary(
            spec=spec,
            family=spec_family(spec),
            kind=kind,
            attempted=stats[(kind, spec)]["attempted"],
            solved=stats[(kind, spec)]["solved"],
            errors=stats[(kind, spec)]["errors"],
        )
        for kind, spec in sorted(order, key=lambda k: (k[0] != "tool", k[1]))
    ]
    solved_by: dict[str, list[str]] = {}
    families_of: Counter[str] = Counter()
    for cid in accepted:
        specs = sorted(
            spec
            for (gate, spec), g in latest.get(cid, {}).items()
            if gate == "solve" and g["outcome"] == "pass"
        )
        solved_by[cid] = specs
        fams = sorted({spec_family(s) for s in specs})
        families_of["+".join(fams) if fams else "(no tool solver)"] += 1
    return TransferAudit(
        solvers=solvers,
        tool_families=sorted(by_family["tool"]),
        tool=_matrix(by_family["tool"]),
        no_tool_families=sorted(by_family["no-tool"]),
        no_tool=_matrix(by_family["no-tool"]),
        accepted_solved_by=solved_by,
        accepted_by_families=dict(families_of.most_common()),
    )


def _matrix(families: dict[str, dict[str, bool]]) -> list[TransferCell]:
    cells = []
    names = sorted(families)
    for a in names:
        for b in names:
            ra, rb = families[a], families[b]
            if a == b:
                n, solved = len(ra), sum(ra.values())
            else:
                both = [c for c, ok in ra.items() if ok and c in rb]
                n, solved = len(both), sum(rb[c] for c in both)
            cells.append(
                TransferCell(a=a, b=b, n=n, solved=solved, rate=round(solved / n, 4) if n else None)
            )
    return cells
