"""Checking verdicts before they are stored: the same rules for the web app and CSV import."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from scigate.errors import BadInput
from scigate.review._protocols import VERDICTS, Protocol

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._@-]{0,63}")
#: Longest note kept with a verdict (characters).
MAX_NOTE = 4000


class Verdict(BaseModel):
    """One reviewer's answer to one criterion of one item."""

    item_id: str
    item_kind: str
    protocol: str
    reviewer: str
    criterion: str
    verdict: str
    note: str = ""


def check_name(name: str) -> str:
    """A reviewer name as typed, stripped; BadInput unless it is 1-64 plain characters."""
    name = (name or "").strip()
    if not _NAME.fullmatch(name):
        raise BadInput(
            f"bad reviewer name {name[:40]!r} (1-64 letters, digits, spaces and . _ @ -)"
        )
    return name


def check_verdict(
    raw: dict[str, Any],
    *,
    protocol: Protocol,
    kinds: dict[str, str],
    reviewers: set[str],
    where: str = "",
) -> Verdict:
    """A verdict from untrusted input (a POST body, a CSV row), checked; BadInput naming
    the first problem: unknown item, unknown reviewer, a criterion outside the protocol,
    a verdict other than yes/no/unsure, an over-long note."""
    at = f"{where}: " if where else ""
    item = str(raw.get("item_id") or "").strip()
    if item not in kinds:
        raise BadInput(f"{at}unknown item {item[:40]!r}")
    reviewer = str(raw.get("reviewer") or "").strip()
    if reviewer not in reviewers:
        raise BadInput(
            f"{at}unknown reviewer {reviewer[:40]!r} (register with `scigate review add-reviewer`)"
        )
    criterion = str(raw.get("criterion") or "").strip()
    if criterion not in protocol.criterion_keys():
        raise BadInput(
            f"{at}criterion {criterion[:40]!r} is not in the {protocol.name} protocol "
            f"({', '.join(protocol.criterion_keys())})"
        )
    verdict = str(raw.get("verdict") or "").strip().lower()
    if verdict not in VERDICTS:
        raise BadInput(f"{at}verdict {verdict[:20]!r} is not one of {', '.join(VERDICTS)}")
    note = raw.get("note") or ""
    if not isinstance(note, str) or len(note) > MAX_NOTE:
        raise BadInput(f"{at}note must be text of at most {MAX_NOTE} characters")
    return Verdict(
        item_id=item,
        item_kind=kinds[item],
        protocol=protocol.name,
        reviewer=reviewer,
        criterion=criterion,
        verdict=verdict,
        note=note.strip(),
    )
