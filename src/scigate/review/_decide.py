"""Decisions from reviews and the review summary that audits, reports and releases show.

Reviews never change a machine verdict: a decision is computed beside it, from the
`reviews` table only.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

from scigate.review._agreement import agreement_with_majority, fleiss_kappa
from scigate.review._protocols import OPENSCITOOLBENCH, TOOLGATE, VERDICTS, Protocol

if TYPE_CHECKING:
    from scigate.store import Store

#: Review decisions, in the order summaries list them.
DECISIONS = ("approved", "rejected", "sent-back", "pending", "unreviewed")

Ballots = dict[str, dict[str, str]]  # reviewer -> criterion -> verdict


def decide(protocol: Protocol, ballots: Ballots) -> str:
    """The decision on one item from its reviewers' verdicts (see `Protocol`)."""
    if not ballots:
        return "unreviewed"
    if any(b.get(protocol.correctness) == "no" for b in ballots.values()):
        return "sent-back"
    keys = protocol.criterion_keys()
    complete = [b for b in ballots.values() if all(k in b for k in keys)]
    if len(complete) < protocol.reviewers:
        return "pending"
    for k in keys:
        if 2 * sum(b[k] == "yes" for b in complete) <= len(complete):
            return "rejected"
    return "approved"


def ballots_by_item(rows: list[dict[str, Any]], protocol: Protocol) -> dict[str, Ballots]:
    """item id -> reviewer -> criterion -> verdict, for the protocol's own criteria."""
    keys = set(protocol.criterion_keys())
    out: dict[str, Ballots] = defaultdict(dict)
    for r in rows:
        if r["protocol"] == protocol.name and r["criterion"] in keys:
            out[r["item_id"]].setdefault(r["reviewer"], {})[r["criterion"]] = r["verdict"]
    return dict(out)


def with_rule(store: Store, protocol: Protocol) -> Protocol:
    """The protocol with the database's own rule for it (`scigate review rule`), if any."""
    n = store.review_rules().get(protocol.name)
    return protocol if n is None else protocol.model_copy(update={"reviewers": n})


def default_protocol(store: Store, kind: str = "candidate") -> Protocol:
    """The protocol the database's reviews use most (ties and no reviews: the item kind's
    own, ToolGate for gate candidates, OpenSciToolBench for bench tasks), with the
    database's rule for it."""
    counts = Counter(r["protocol"] for r in store.reviews())
    own = TOOLGATE if kind == "candidate" else OPENSCITOOLBENCH
    if not counts or counts.get(own.name) == max(counts.values()):
        return with_rule(store, own)
    from scigate.review._protocols import get_protocol

    return with_rule(store, get_protocol(counts.most_common(1)[0][0]))


def decisions(store: Store, item_ids: list[str], protocol: Protocol) -> dict[str, str]:
    """item id -> decision, for the given items."""
    ballots = ballots_by_item(store.reviews(protocol=protocol.name), protocol)
    return {i: decide(protocol, ballots.get(i, {})) for i in item_ids}


def review_summary(store: Store, item_ids: list[str], protocol: Protocol) -> dict[str, Any]:
    """Coverage, decisions, per-criterion counts and agreement over the given items."""
    wanted = set(item_ids)
    rows = [r for r in store.reviews(protocol=protocol.name) if r["item_id"] in wanted]
    ballots = ballots_by_item(rows, protocol)
    decided = Counter(decide(protocol, ballots.get(i, {})) for i in item_ids)
    per_criterion = {k: dict.fromkeys(VERDICTS, 0) for k in protocol.criterion_keys()}
    subjects: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    for item, by_reviewer in ballots.items():
        for reviewer, verdicts in by_reviewer.items():
            for k, v in verdicts.items():
                per_criterion[k][v] += 1
                subjects[(item, k)][reviewer] = v
    table = [[Counter(s.values())[v] for v in VERDICTS] for s in subjects.values()]
    by_criterion = {
        k: _round(
            fleiss_kappa(
                [
                    [Counter(s.values())[v] for v in VERDICTS]
                    for (_, c), s in subjects.items()
                    if c == k
                ]
            )
        )
        for k in protocol.criterion_keys()
    }
    return {
        "protocol": protocol.name,
        "rule": (
            f"majority of {protocol.reviewers} reviewers on every criterion; "
            f"any 'no' on {protocol.correctness} sends the item back"
        ),
        "items": len(item_ids),
        "reviewed": sum(1 for i in item_ids if ballots.get(i)),
        "reviews": len(rows),
        "reviewers": sorted({r["reviewer"] for r in rows}),
        "decisions": {d: decided.get(d, 0) for d in DECISIONS},
        "per_criterion": per_criterion,
        "fleiss_kappa": _round(fleiss_kappa(table)),
        "fleiss_kappa_by_criterion": by_criterion,
        "agreement_with_majority": agreement_with_majority(subjects),
    }


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def summary_lines(s: dict[str, Any]) -> list[str]:
    """The summary as plain text lines (for the terminal and datasheets)."""
    d = s["decisions"]
    lines = [
        f"review ({s['protocol']}: {s['rule']}): {s['reviewed']} of {s['items']} items "
        f"reviewed, {s['reviews']} verdicts by {len(s['reviewers'])} reviewers",
        "decisions: " + ", ".join(f"{k} {d[k]}" for k in DECISIONS),
        "per criterion (yes/no/unsure): "
        + "; ".join(
            f"{k} {c['yes']}/{c['no']}/{c['unsure']}" for k, c in s["per_criterion"].items()
        ),
        f"Fleiss' kappa: {_fmt(s['fleiss_kappa'])} ("
        + ", ".join(f"{k} {_fmt(v)}" for k, v in s["fleiss_kappa_by_criterion"].items())
        + ")",
    ]
    agree = s["agreement_with_majority"]
    if agree:
        lines.append(
            "agreement with the majority: "
            + ", ".join(
                f"{name} {r['agree']}/{r['subjects']}"
                + (f" ({_fmt(r['rate'])})" if r["rate"] is not None else "")
                for name, r in agree.items()
            )
        )
    return lines


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def summary_items(store: Store, items: list[Any], protocol: Protocol) -> list[str]:
    """The items a summary covers: those the machine accepted, and any other with a review."""
    reviewed = {r["item_id"] for r in store.reviews(protocol=protocol.name)}
    return [i.id for i in items if i.status == "accepted" or i.id in reviewed]
