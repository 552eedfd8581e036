"""Conflicting records: the same question and options proposed with different answers.

A candidate's identity covers its proposal and solution, so a repeat of a question and
its options with another proposal is a record of its own and is gated on its own. The
audit counts such repeats and, among them, the conflicts (different proposed letters);
a conflict in which two different proposals both passed verification means that the
check cannot tell them apart (a script whose output depends on more than the question,
or options too close at their printed precision) and deserves a look.
"""

from __future__ import annotations

import json
from collections import defaultdict

from pydantic import BaseModel, Field

from scigate.store import CandidateRecord

#: Conflict groups listed in full (the counts cover all of them).
MAX_LISTED = 50


class ConflictGroup(BaseModel):
    """Records that share one question and one set of options."""

    ids: list[str]
    proposals: dict[str, str]  # candidate id -> proposed letter
    verified: list[str]  # the ids whose verification passed


class ConflictAudit(BaseModel):
    """Repeats of a question and options, and those whose proposals differ."""

    repeat_groups: int = 0  # question + options seen in more than one record
    repeat_records: int = 0  # records beyond the first of each such group
    conflicts: int = 0  # groups whose records propose different letters
    conflict_records: int = 0  # records in those groups
    conflicts_verified_twice: int = 0  # conflicts with two different proposals verified
    groups: list[ConflictGroup] = Field(default_factory=list)  # the first MAX_LISTED conflicts


def content_key(question: str, options: dict[str, str]) -> str:
    """The question (trimmed) and options (sorted), as one string."""
    return json.dumps([question.strip(), sorted(options.items())], ensure_ascii=False)


def conflict_audit(
    ids: list[str], cands: dict[str, CandidateRecord], verified: set[str]
) -> ConflictAudit:
    """Group the candidates `ids` (oldest first) by question and options."""
    groups: dict[str, list[str]] = defaultdict(list)
    for cid in ids:
        c = cands[cid]
        groups[content_key(c.question, c.options)].append(cid)
    out = ConflictAudit()
    for members in groups.values():
        if len(members) < 2:
            continue
        out.repeat_groups += 1
        out.repeat_records += len(members) - 1
        proposals = {cid: cands[cid].answer for cid in members}
        if len(set(proposals.values())) < 2:
            continue
        out.conflicts += 1
        out.conflict_records += len(members)
        ok = [cid for cid in members if cid in verified]
        out.conflicts_verified_twice += len({proposals[cid] for cid in ok}) > 1
        if len(out.groups) < MAX_LISTED:
            out.groups.append(ConflictGroup(ids=members, proposals=proposals, verified=ok))
    return out
