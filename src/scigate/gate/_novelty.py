"""Near-duplicate rejection before the expensive gates (the paper's novelty penalty).

A new candidate is compared with the *surviving history*: every candidate in the run
database that passed gate 1 in a generation run and has failed no later in-loop gate so
far (accepted items, and items still in their screens or tool gate, so two concurrent
rounds cannot both slip through). Post-generation rescreens do not count: their results
never reach the generation loop. A candidate with exactly the same question and options
as a survivor is a re-proposal, not a near duplicate: it is gated, so the conflict
between the two proposals is verified and recorded.
"""

from __future__ import annotations

import json

from pydantic import BaseModel

from scigate.gate._config import NEAR_DUPLICATE_JACCARD
from scigate.gate._similarity import jaccard, tokens
from scigate.store import Store, question_key

__all__ = ["NEAR_DUPLICATE_JACCARD", "NearDuplicate", "near_duplicate"]


class NearDuplicate(BaseModel):
    """The survivor a candidate nearly repeats."""

    duplicate_of: str
    jaccard: float
    threshold: float

    def reason(self) -> str:
        """One line for the attempt and gate records."""
        return (
            f"near duplicate of surviving candidate {self.duplicate_of} "
            f"(token Jaccard {self.jaccard:.2f} >= {self.threshold:g}); not verified"
        )


def near_duplicate(
    store: Store,
    question: str,
    options: dict[str, str] | None,
    threshold: float,
    *,
    token_cache: dict[str, frozenset[str]] | None = None,
    exclude: frozenset[str] | set[str] = frozenset(),
) -> NearDuplicate | None:
    """The most similar surviving candidate at Jaccard >= `threshold`, or None.

    `threshold` 0 turns the check off. `token_cache` (candidate id -> token set) lets a
    loop tokenize each stored question once instead of once per round. Survivors whose
    id is in `exclude` are left out (a loop's later rounds: the check is made in the
    order of generation). `options` None: the options are not known yet, and a
    survivor with the very same question (a possible re-proposal, which is never a near
    duplicate) makes the answer unknown: None then too, as when nothing is similar.
    """
    if threshold <= 0:
        return None
    cache = token_cache if token_cache is not None else {}
    mine, key = tokens(question), question_key(question)
    best: tuple[float, str] | None = None  # the most similar, then the smallest id
    for row in store.survivor_questions():
        if row["id"] in exclude:
            continue
        theirs = cache.get(row["id"])
        if theirs is None:
            theirs = cache[row["id"]] = tokens(row["question"])
        if theirs == mine and question_key(row["question"]) == key:
            if options is None:
                return None  # whether it is a re-proposal depends on the options
            if json.loads(row["options_json"]) == options:
                continue  # a re-proposal of the same item: verified, never merged
        sim = jaccard(mine, theirs)
        if sim >= threshold and (
            best is None or sim > best[0] or (sim == best[0] and row["id"] < best[1])
        ):
            best = (sim, row["id"])
    if best is None:
        return None
    return NearDuplicate(duplicate_of=best[1], jaccard=round(best[0], 4), threshold=threshold)
