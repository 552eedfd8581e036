"""What two `gate run`s are compared by: every round's outcome and what reached gate 1."""

from __future__ import annotations

from pathlib import Path

from scigate.store import Store


def round_outcomes(db: Path) -> tuple[list[tuple[int, str]], dict[str, tuple]]:
    """Every round's outcome in the database's one run, and the candidates that reached
    gate 1 with their question, options, answer and distractors."""
    with Store(db, create=False, readonly=True) as store:
        [run] = [r["id"] for r in store.query("SELECT id FROM runs")]
        outcomes = sorted((a["round"], a["status"]) for a in store.attempts(run))
        gated = {}
        for g in store.gate_results(run_id=run, gate="verify"):
            c = store.get_candidate(g["candidate_id"])
            assert c is not None
            gated[c.id] = (c.question, c.options, c.answer, c.meta.get("distractors"))
    return outcomes, gated
