"""Why candidates were rejected: counts and shares per gate and per reason class.

A reason class is the plain-words head of a gate's reason ("timeout", "value matches
another option", "solved it (rejected as too easy)", "wrong answer", ...): the text
before the first colon, after the model spec that screen reasons start with, with
numbers replaced by N. A gate may name the class itself in its detail
(`detail["reason_class"]`), which wins. Every gate that wrote results is counted, so a
new gate appears in the breakdown without a change here.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Any

from pydantic import BaseModel, Field

#: The order gates are shown in; gates not named here follow in order of appearance.
GATE_ORDER = ("generate", "verify", "invariance", "screen", "solve")
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_MAX_CLASS = 80


class ReasonCount(BaseModel):
    """One reason class at one gate."""

    reason: str
    outcome: str  # fail | error
    count: int
    share: float | None  # of the gate's non-passing results
    by_model: dict[str, int] = Field(default_factory=dict)  # screen / solver spec -> count


class GateRejections(BaseModel):
    """The non-passing results of one gate, by reason class."""

    gate: str
    results: int  # latest results of this gate (one per candidate and model)
    rejected: int  # outcome fail
    errors: int  # outcome error (could not decide)
    rejected_share: float | None  # rejected / results
    reasons: list[ReasonCount]


class RejectionBreakdown(BaseModel):
    """Rejections and errors over the whole database, per gate and reason class."""

    total: int = 0  # every non-passing result counted below
    gates: list[GateRejections] = Field(default_factory=list)


def reason_class(reason: str | None, spec: str = "", detail: dict[str, Any] | None = None) -> str:
    """The class of a gate's reason: its head before the first colon, numbers as N."""
    given = (detail or {}).get("reason_class")
    if isinstance(given, str) and given.strip():
        return given.strip()[:_MAX_CLASS]
    text = (reason or "").strip()
    if spec and text.startswith(spec):
        text = text[len(spec) :].lstrip(" :")
    head = text.split(":", 1)[0].strip()
    head = " ".join(_NUMBER.sub("N", head).split())
    if len(head) > _MAX_CLASS:
        head = head[: _MAX_CLASS - 1] + "…"
    return head or "(no reason given)"


def rejection_breakdown(
    latest: dict[str, dict[tuple[str, str], dict[str, Any]]],
    attempts: list[dict[str, Any]],
) -> RejectionBreakdown:
    """Count non-passing latest gate results per gate and reason class.

    `latest` maps candidate -> (gate, model) -> latest result; `attempts` are the rows of
    the attempts table (candidate_id, status, reason): those without a candidate are
    the generator's failures (gate "generate"), and a candidate rejected by the loop
    before any gate ran (status "rejected-X", no gate result) counts under gate X.
    """
    # gate -> (outcome, class) -> spec -> count
    found: dict[str, dict[tuple[str, str], Counter[str]]] = defaultdict(
        lambda: defaultdict(Counter)
    )
    ran: Counter[str] = Counter()
    order: list[str] = []
    for per in latest.values():
        for (gate, spec), g in per.items():
            if gate not in order:
                order.append(gate)
            ran[gate] += 1
            if g["outcome"] == "pass":
                continue
            outcome = "error" if g["outcome"] == "error" else "fail"
            cls = reason_class(g.get("reason"), spec, g.get("detail"))
            found[gate][(outcome, cls)][spec] += 1
    for a in attempts:
        cid, status = a.get("candidate_id"), a.get("status") or ""
        if cid is None and status != "candidate":
            gate = "generate"
            outcome = "fail" if status == "generator-failed" else "error"
        elif cid is not None and status.startswith("rejected-") and cid not in latest:
            gate, outcome = status.removeprefix("rejected-"), "fail"
        else:
            continue
        if gate not in order:
            order.append(gate)
        ran[gate] += 1
        found[gate][(outcome, reason_class(a.get("reason")))][""] += 1
    if "generate" in ran:  # the generator's successes ran too: every attempt with a candidate
        ran["generate"] += sum(1 for a in attempts if a.get("candidate_id") is not None)
    gates = sorted(order, key=lambda g: GATE_ORDER.index(g) if g in GATE_ORDER else 99)
    out = []
    for gate in gates:
        rows = found.get(gate, {})
        not_passed = sum(sum(c.values()) for c in rows.values())
        reasons = [
            ReasonCount(
                reason=cls,
                outcome=outcome,
                count=sum(by.values()),
                share=_share(sum(by.values()), not_passed),
                by_model={k: v for k, v in by.most_common() if k},
            )
            for (outcome, cls), by in rows.items()
        ]
        reasons.sort(key=lambda r: (-r.count, r.outcome, r.reason))
        rejected = sum(r.count for r in reasons if r.outcome == "fail")
        out.append(
            GateRejections(
                gate=gate,
                results=ran[gate],
                rejected=rejected,
                errors=not_passed - rejected,
                rejected_share=_share(rejected, ran[gate]),
                reasons=reasons,
            )
        )
    return RejectionBreakdown(total=sum(g.rejected + g.errors for g in out), gates=out)


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None
