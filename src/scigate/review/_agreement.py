"""Inter-reviewer agreement: Fleiss' kappa and each reviewer's agreement with the majority."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence


def fleiss_kappa(table: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' kappa (Fleiss 1971) of a subjects x categories table of rating counts.

    Row i holds how many raters put subject i in each category. Subjects with fewer than
    two ratings carry no agreement and are left out; rows may have different totals
    (each subject's agreement is then over its own pairs of raters, which is Fleiss'
    formula when every row has the same total). None when no subject has two ratings or
    every rating is in one category (chance agreement 1: kappa is undefined).
    """
    rows = [list(r) for r in table if sum(r) >= 2]
    if not rows:
        return None
    width = max(len(r) for r in rows)
    rows = [r + [0] * (width - len(r)) for r in rows]
    total = sum(sum(r) for r in rows)
    p_j = [sum(r[j] for r in rows) / total for j in range(width)]
    p_e = sum(p * p for p in p_j)
    p_i = [(sum(n * n for n in r) - sum(r)) / (sum(r) * (sum(r) - 1)) for r in rows]
    p_bar = sum(p_i) / len(p_i)
    if p_e >= 1.0:
        return None
    return (p_bar - p_e) / (1 - p_e)


def majority(verdicts: Iterable[str]) -> str | None:
    """The verdict more than half of the ratings gave, or None."""
    votes = list(verdicts)
    if not votes:
        return None
    value, n = Counter(votes).most_common(1)[0]
    return value if 2 * n > len(votes) else None


def agreement_with_majority(
    subjects: Mapping[tuple[str, str], Mapping[str, str]],
) -> dict[str, dict[str, float | int | None]]:
    """Per reviewer: of the subjects they rated that have a majority verdict among at least
    three ratings, how many times they gave it (`agree`), out of `subjects`, and the rate.

    `subjects` maps a subject (item id, criterion) to {reviewer: verdict}.
    """
    out: dict[str, dict[str, float | int | None]] = {}
    for ratings in subjects.values():
        for name in ratings:
            out.setdefault(name, {"subjects": 0, "agree": 0, "rate": None})
        if len(ratings) < 3:
            continue
        verdict = majority(ratings.values())
        if verdict is None:
            continue
        for name, given in ratings.items():
            row = out[name]
            row["subjects"] = int(row["subjects"] or 0) + 1
            row["agree"] = int(row["agree"] or 0) + (given == verdict)
    for row in out.values():
        n = int(row["subjects"] or 0)
        row["rate"] = round(int(row["agree"] or 0) / n, 4) if n else None
    return dict(sorted(out.items()))
