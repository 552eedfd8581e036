"""Audits of a run database: the checks the ToolGate paper shows are needed to trust a screen.

- letter distribution of the proposed answers;
- per screen: letters chosen, accuracy by the correct option's shown position, whether
  orders were shuffled;
- value-rank distribution of the proposed answers and the middle-value heuristic's
  expected success rate;
- exact duplicates, token-Jaccard clusters (>= 0.7) and the largest cluster's share;
- family concentration;
- agreement between screens (2x2 tables);
- time and tokens per gate (agent-hours, as the paper's Table 2).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import combinations
from typing import Any

from pydantic import BaseModel, Field

from scigate.gate._candidate import LETTERS
from scigate.gate._similarity import clusters, similar_pairs, tokens
from scigate.gate._values import value_rank

JACCARD_THRESHOLD = 0.7


class ScreenAudit(BaseModel):
    """How one screen behaved over the candidates it saw."""

    screen: str
    candidates: int
    solved: int
    calls: int
    correct_calls: int
    accuracy: float | None
    shuffled: bool
    early_stops: int
    letter_choices: dict[str, int]
    accuracy_by_correct_position: dict[str, float | None]
    calls_by_correct_position: dict[str, int]
    unreadable_replies: int


class Audit(BaseModel):
    """Everything `scigate gate audit` reports."""

    candidates: int
    verified: int
    letter_distribution: dict[str, int]
    value_rank_distribution: dict[str, int]
    middle_share: float | None
    middle_heuristic_success: float | None
    screens: list[ScreenAudit]
    cue_screens: list[str]
    exact_duplicates: list[list[str]]
    duplicate_candidates: int
    jaccard_threshold: float = JACCARD_THRESHOLD
    jaccard_clusters: int
    largest_cluster_size: int
    largest_cluster_share: float | None
    largest_cluster_ids: list[str] = Field(default_factory=list)
    families: dict[str, int]
    top_family_share: float | None
    agreement: list[dict[str, Any]]
    cost: list[dict[str, Any]]
    funnel: dict[str, Any]


def audit(store: Any) -> Audit:
    """Compute every audit over the whole database (latest result per gate and screen)."""
    cands = {c.id: c for c in store.candidates()}
    latest = latest_results(store)
    verified_ids = [
        cid for cid in cands if latest.get(cid, {}).get(("verify", ""), {}).get("outcome") == "pass"
    ]
    verified = [cands[c] for c in verified_ids]

    letters = Counter(c.answer for c in verified)
    ranks = Counter(value_rank(c.options, c.answer) for c in verified)
    ranked = sum(n for r, n in ranks.items() if r is not None)
    middle = ranks.get(2, 0) + ranks.get(3, 0)
    middle_share = middle / ranked if ranked else None

    screen_names = screens_in_order(store)
    screen_audits = [_screen_audit(s, latest) for s in screen_names]

    dup_groups: dict[str, list[str]] = defaultdict(list)
    for c in sorted(cands.values(), key=lambda c: (c.created_at, c.id)):
        root = c.duplicate_of or c.id
        dup_groups[root].append(c.id)
    exact = [g for g in dup_groups.values() if len(g) > 1]

    ids = sorted(cands, key=lambda i: (cands[i].created_at, i))
    sets = [tokens(cands[i].question) for i in ids]
    groups = clusters(len(ids), similar_pairs(sets, JACCARD_THRESHOLD)) if ids else []
    largest = groups[0] if groups else []

    families = Counter((c.family or "(none)") for c in cands.values())
    return Audit(
        candidates=len(cands),
        verified=len(verified),
        letter_distribution={k: letters.get(k, 0) for k in LETTERS},
        value_rank_distribution={str(r): ranks.get(r, 0) for r in (1, 2, 3, 4)}
        | ({"non-numeric": ranks[None]} if ranks.get(None) else {}),
        middle_share=_round(middle_share),
        middle_heuristic_success=_round(middle_share / 2 if middle_share is not None else None),
        screens=screen_audits,
        cue_screens=[s for s in screen_names if s.startswith("cue/")],
        exact_duplicates=exact,
        duplicate_candidates=sum(len(g) - 1 for g in exact),
        jaccard_clusters=sum(1 for g in groups if len(g) > 1),
        largest_cluster_size=len(largest),
        largest_cluster_share=_round(len(largest) / len(ids)) if ids else None,
        largest_cluster_ids=[ids[i] for i in largest][:50],
        families=dict(families.most_common()),
        top_family_share=_round(families.most_common(1)[0][1] / len(cands)) if cands else None,
        agreement=_agreement(screen_names, latest, verified_ids),
        cost=cost_by_gate(store),
        funnel=db_funnel(store, latest, screen_names, cands),
    )


def latest_results(store: Any) -> dict[str, dict[tuple[str, str], dict[str, Any]]]:
    """candidate id -> (gate, screen) -> the most recent gate result."""
    out: dict[str, dict[tuple[str, str], dict[str, Any]]] = defaultdict(dict)
    for g in sorted(store.gate_results(), key=lambda g: (g.get("created_at") or 0, g["id"])):
        out[g["candidate_id"]][(g["gate"], g["screen"])] = g
    return out


def screens_in_order(store: Any) -> list[str]:
    """Screens in the order the runs applied them (first appearance)."""
    order: list[str] = []
    for run in sorted(store.runs(), key=lambda r: r.get("created_at") or 0):
        for s in (run.get("config") or {}).get("screens", []) or []:
            if s not in order:
                order.append(s)
    for row in store.query(
        "SELECT DISTINCT screen FROM gate_results WHERE gate = 'screen' ORDER BY id"
    ):
        if row["screen"] not in order:
            order.append(row["screen"])
    return order


def _screen_audit(screen: str, latest: dict) -> ScreenAudit:
    choices: Counter[str] = Counter()
    pos_calls: Counter[str] = Counter()
    pos_correct: Counter[str] = Counter()
    n = solved = calls = correct = early = unreadable = 0
    orders: set[tuple[str, ...]] = set()
    for per in latest.values():
        g = per.get(("screen", screen))
        if g is None:
            continue
        n += 1
        detail = g.get("detail") or {}
        solved += bool(detail.get("solved"))
        early += bool(detail.get("early_stop"))
        answer = _proposed_letter(detail, per)
        for call in detail.get("calls", []):
            calls += 1
            correct += bool(call.get("correct"))
            order = call.get("order") or list(LETTERS)
            orders.add(tuple(order))
            if call.get("chosen_letter"):
                choices[call["chosen_letter"]] += 1
            else:
                unreadable += 1
            if answer and answer in order:
                shown = LETTERS[order.index(answer)]
                pos_calls[shown] += 1
                pos_correct[shown] += bool(call.get("correct"))
    return ScreenAudit(
        screen=screen,
        candidates=n,
        solved=solved,
        calls=calls,
        correct_calls=correct,
        accuracy=_round(correct / calls) if calls else None,
        shuffled=len(orders) > 1,
        early_stops=early,
        letter_choices={k: choices.get(k, 0) for k in LETTERS},
        accuracy_by_correct_position={
            k: _round(pos_correct[k] / pos_calls[k]) if pos_calls[k] else None for k in LETTERS
        },
        calls_by_correct_position={k: pos_calls.get(k, 0) for k in LETTERS},
        unreadable_replies=unreadable,
    )


def _proposed_letter(detail: dict, per: dict) -> str | None:
    verify = per.get(("verify", ""))
    if verify and (verify.get("detail") or {}).get("proposed"):
        return verify["detail"]["proposed"]
    return detail.get("proposed")


def _agreement(screens: list[str], latest: dict, verified_ids: list[str]) -> list[dict[str, Any]]:
    rows = []
    for a, b in combinations(screens, 2):
        table = {"both_solved": 0, "only_a": 0, "only_b": 0, "neither": 0}
        for cid in verified_ids:
            ga, gb = latest.get(cid, {}).get(("screen", a)), latest.get(cid, {}).get(("screen", b))
            if ga is None or gb is None:
                continue
            sa, sb = ga["outcome"] == "fail", gb["outcome"] == "fail"
            key = "both_solved" if sa and sb else "only_a" if sa else "only_b" if sb else "neither"
            table[key] += 1
        n = sum(table.values())
        agree = table["both_solved"] + table["neither"]
        rows.append(
            {"a": a, "b": b, "n": n, **table, "agreement_rate": _round(agree / n) if n else None}
        )
    return rows


def cost_by_gate(store: Any) -> list[dict[str, Any]]:
    """Seconds (and agent-hours), calls, tokens and cost per gate and per model role."""
    rows = store.query(
        "SELECT gate, screen, COUNT(*) AS n, SUM(seconds) AS seconds FROM gate_results "
        "GROUP BY gate, screen ORDER BY MIN(id)"
    )
    calls = {
        (r["role"], r["spec"]): r
        for r in store.query(
            "SELECT role, spec, COUNT(*) AS calls, SUM(input_tokens) AS input_tokens, "
            "SUM(output_tokens) AS output_tokens, SUM(cost) AS cost, "
            "SUM(CASE WHEN cost IS NULL THEN 1 ELSE 0 END) AS unpriced FROM model_calls GROUP BY role, spec"
        )
    }
    out = []
    gen = store.query(
        "SELECT COUNT(*) AS n, SUM(seconds) AS seconds FROM attempts WHERE status != 'error'"
    )[0]
    gen_calls = [v for (role, _), v in calls.items() if role == "generator"]
    out.append(_cost_row("generate", "", gen["n"] or 0, gen["seconds"] or 0.0, gen_calls))
    role_of = {"screen": "screen", "solve": "solver"}
    for r in rows:
        spec = r["screen"]
        matched = [
            v for (role, s), v in calls.items() if role == role_of.get(r["gate"]) and s == spec
        ]
        out.append(_cost_row(r["gate"], spec, r["n"], r["seconds"] or 0.0, matched))
    return out


def _cost_row(gate: str, spec: str, n: int, seconds: float, calls: list[dict]) -> dict[str, Any]:
    unpriced = sum(c["unpriced"] or 0 for c in calls)
    priced = [c["cost"] for c in calls if c["cost"] is not None]
    return {
        "gate": gate,
        "spec": spec,
        "items": n,
        "seconds": round(seconds, 3),
        "agent_hours": round(seconds / 3600, 4),
        "model_calls": sum(c["calls"] for c in calls),
        "input_tokens": sum(c["input_tokens"] or 0 for c in calls),
        "output_tokens": sum(c["output_tokens"] or 0 for c in calls),
        "cost_usd": None if unpriced or not calls else round(sum(priced), 4),
    }


def db_funnel(store: Any, latest: dict, screens: list[str], cands: dict) -> dict[str, Any]:
    """generated, verified, each screen (sequential), solved, unique over the database."""
    generated = len(cands)
    verified = [
        c for c in cands if latest.get(c, {}).get(("verify", ""), {}).get("outcome") == "pass"
    ]
    alive = list(verified)
    per_screen: dict[str, int] = {}
    for s in screens:
        alive = [
            c for c in alive if latest.get(c, {}).get(("screen", s), {}).get("outcome") == "pass"
        ]
        per_screen[s] = len(alive)
    solved = [
        c
        for c in alive
        if any(k[0] == "solve" and g["outcome"] == "pass" for k, g in latest.get(c, {}).items())
    ]
    any_solve = any(k[0] == "solve" for per in latest.values() for k in per)
    final = solved if any_solve else alive
    unique = [c for c in final if not cands[c].duplicate_of]
    failed_gen = store.query(
        "SELECT COUNT(*) AS n FROM attempts WHERE status = 'generator-failed'"
    )[0]["n"]
    return {
        "attempts": generated + (failed_gen or 0),
        "generated": generated,
        "verified": len(verified),
        "screens": per_screen,
        "solved": len(solved) if any_solve else None,
        "unique": len(unique),
    }


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)
