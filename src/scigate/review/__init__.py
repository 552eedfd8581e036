"""Expert review as a step of the pipeline: a local web app, recorded verdicts per criterion,
decisions by protocol, agreement, and offline review through CSV.

Reviews live in the run database's `reviewers` and `reviews` tables (schema v4) and never
change a machine verdict; audits, reports and releases show both side by side.
"""

from scigate.review._agreement import agreement_with_majority, fleiss_kappa, majority
from scigate.review._csv import export_csv, read_csv_verdicts
from scigate.review._decide import (
    DECISIONS,
    ballots_by_item,
    decide,
    decisions,
    default_protocol,
    review_summary,
    summary_items,
    summary_lines,
    with_rule,
)
from scigate.review._items import Item, item_detail, item_kinds, load_items
from scigate.review._protocols import (
    OPENSCITOOLBENCH,
    PROTOCOLS,
    TOOLGATE,
    VERDICTS,
    Criterion,
    Protocol,
    get_protocol,
)
from scigate.review._release import datasheet_lines, require_approved, review_of
from scigate.review._server import ReviewApp, make_server, serve_in_thread, url_of
from scigate.review._verdicts import Verdict, check_name, check_verdict

__all__ = [
    "DECISIONS",
    "OPENSCITOOLBENCH",
    "PROTOCOLS",
    "TOOLGATE",
    "VERDICTS",
    "Criterion",
    "Item",
    "Protocol",
    "ReviewApp",
    "Verdict",
    "agreement_with_majority",
    "ballots_by_item",
    "check_name",
    "check_verdict",
    "datasheet_lines",
    "decide",
    "decisions",
    "default_protocol",
    "export_csv",
    "fleiss_kappa",
    "get_protocol",
    "item_detail",
    "item_kinds",
    "load_items",
    "majority",
    "make_server",
    "read_csv_verdicts",
    "require_approved",
    "review_of",
    "review_summary",
    "serve_in_thread",
    "summary_items",
    "summary_lines",
    "url_of",
    "with_rule",
]
