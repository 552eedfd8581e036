"""Reviews in audits, reports and releases: the summary of a database's gate candidates or
bench tasks, which items a `--require-review` release keeps, and the datasheet section."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from scigate._text import md_text
from scigate.errors import BadInput
from scigate.review._decide import (
    DECISIONS,
    decisions,
    default_protocol,
    review_summary,
    summary_items,
)
from scigate.review._items import item_kinds, load_items

if TYPE_CHECKING:
    from scigate.store import Store


def review_of(
    store: Store,
    kind: str,
    released: list[str] | None = None,
    run_id: str | None = None,
    *,
    accepted: Iterable[str] | None = None,
) -> dict[str, Any]:
    """The review summary of the database's items of `kind` (candidate | task), of one run
    when `run_id` is given.

    With `released`, the summary covers those item ids and adds `status` (id -> decision)
    for each of them; otherwise the machine-accepted items and any other reviewed one.
    `accepted`: the machine-accepted ids of `kind`, when the caller has the statuses
    already (the report: it saves loading every item with its question).
    """
    protocol = default_protocol(store, kind)
    if released is not None:
        ids = released
    elif accepted is not None and run_id is None:
        reviewed = [r["item_id"] for r in store.reviews(protocol=protocol.name)]
        kinds = item_kinds(store, reviewed)
        ids = list(dict.fromkeys([*accepted, *(i for i in reviewed if kinds.get(i) == kind)]))
    else:
        items = [
            i
            for i in load_items(store)
            if i.kind == kind and (run_id is None or i.run_id == run_id)
        ]
        ids = summary_items(store, items, protocol)
    out = review_summary(store, ids, protocol)
    if released is not None:
        out["status"] = decisions(store, released, protocol)
    return out


def require_approved(store: Store, kind: str, ids: list[str]) -> list[str]:
    """The ids (in order) whose review decision is 'approved'; BadInput when none is."""
    protocol = default_protocol(store, kind)
    got = decisions(store, ids, protocol)
    kept = [i for i in ids if got[i] == "approved"]
    if not kept:
        counts = ", ".join(f"{d} {list(got.values()).count(d)}" for d in DECISIONS)
        raise BadInput(
            f"--require-review: none of the {len(ids)} items is approved under the "
            f"{protocol.name} protocol ({counts}); review them with `scigate review serve`"
        )
    return kept


def datasheet_lines(review: dict[str, Any], *, required: bool, released: int) -> list[str]:
    """The datasheet's review section (markdown): protocol, rule, counts and agreement."""
    d = review["decisions"]
    lines = [
        "## Expert review",
        "",
        f"- protocol: {md_text(review['protocol'])} ({md_text(review['rule'])})",
        f"- released: {released} items, "
        + (
            "only those approved by review (--require-review)"
            if required
            else "whatever their review status (each item's status is in the conditions)"
        ),
        f"- reviewed: {review['reviewed']} of {review['items']} items; "
        f"{review['reviews']} verdicts by {len(review['reviewers'])} reviewers",
        "- decisions: " + ", ".join(f"{k} {d[k]}" for k in DECISIONS),
        "- verdicts per criterion (yes/no/unsure): "
        + "; ".join(
            f"{md_text(k)} {c['yes']}/{c['no']}/{c['unsure']}"
            for k, c in review["per_criterion"].items()
        ),
        f"- Fleiss' kappa: {_fmt(review['fleiss_kappa'])}",
        "",
    ]
    return lines


def _fmt(x: float | None) -> str:
    return "n/a (fewer than two reviewers per item)" if x is None else f"{x:.3f}"
