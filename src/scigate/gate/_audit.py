"""Audits of a run database: the checks the ToolGate paper shows are needed to trust a screen.

- letter distribution of the proposed answers;
- gate 1b (invariance) as its own funnel stage between verification and the screens;
- per screen: letters chosen, accuracy by the correct option's shown position, whether
  orders were shuffled;
- value-rank distribution of the proposed answers and the middle-value heuristic's
  expected success rate;
- exact duplicates, token-Jaccard clusters (>= 0.7) and the largest cluster's share;
- the in-loop funnel of the generation runs (the paper's Figure 2) apart from each
  post-generation rescreen's funnel (Table 4); the surviving pool reflects both;
- family concentration (over all candidates and over the surviving pool);
- agreement between screens (2x2 tables);
- time and tokens per gate (agent-hours, as the paper's Table 2);
- conflicting records (one question and options, different proposals), the rejection
  breakdown per gate and reason class, cross-family transfer of solvers and screens,
  and the letters and value ranks of the accepted pool's correct options.

Every function reads the database in a few whole-table queries (never one query per
candidate), so a 10,000-candidate database is audited in seconds. The gate results are
read in pages of PAGE rows and kept only as the audit needs them (`audit_view`: no
screen replies, no transcripts), and only the latest per candidate, gate and screen.
"""

from __future__ import annotations

import gc
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from itertools import combinations
from typing import Any

from pydantic import BaseModel, Field

from scigate.gate._candidate import LETTERS
from scigate.gate._conflicts import ConflictAudit, conflict_audit
from scigate.gate._rejections import RejectionBreakdown, rejection_breakdown
from scigate.gate._similarity import TokenRows, text_clusters
from scigate.gate._transfer import TransferAudit, solver_transfer
from scigate.gate._values import value_rank
from scigate.store import CandidateRecord, Store

JACCARD_THRESHOLD = 0.7

#: candidate id -> (gate, screen) -> the latest gate result row (detail decoded).
Latest = dict[str, dict[tuple[str, str], dict[str, Any]]]


class ScreenAudit(BaseModel):
    """How one screen behaved over the candidates it saw."""

    screen: str
    candidates: int
    solved: int
    errors: int = 0
    calls: int
    correct_calls: int
    accuracy: float | None
    shuffled: bool
    distinct_orders: int = 0
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
    pool_size: int = 0
    pool_families: dict[str, int] = Field(default_factory=dict)
    pool_top_family_share: float | None = None
    pool_largest_cluster_size: int = 0
    pool_largest_cluster_share: float | None = None
    # `funnel` holds the generation runs' in-loop outcomes; each rescreen run's is here
    rescreens: list[dict[str, Any]] = Field(default_factory=list)
    agreement: list[dict[str, Any]]
    cost: list[dict[str, Any]]
    funnel: dict[str, Any]
    pool_letter_distribution: dict[str, int] = Field(default_factory=dict)
    pool_value_rank_distribution: dict[str, int] = Field(default_factory=dict)
    conflicts: ConflictAudit = Field(default_factory=ConflictAudit)
    rejections: RejectionBreakdown = Field(default_factory=RejectionBreakdown)
    transfer: TransferAudit = Field(default_factory=TransferAudit)
    #: Expert review beside the machine verdicts (`scigate.review.review_summary`).
    review: dict[str, Any] = Field(default_factory=dict)
    #: per domain, side by side, when the database holds runs of several (see `by_domain`)
    domains: dict[str, dict[str, Any]] = Field(default_factory=dict)


def audit(
    store: Store,
    *,
    candidates: list[CandidateRecord] | None = None,
    latest: Latest | None = None,
    accepted: Iterable[str] | None = None,
    domains: Mapping[str, str] | None = None,
) -> Audit:
    """Compute every audit over the whole database (latest result per gate and screen).

    `candidates` and `latest` may be passed in when the caller has already loaded them,
    `accepted` (the ids whose status is accepted) when it has the statuses, `domains`
    (`candidate_domains(store)`) when it has read them.
    """
    from scigate.review import review_of

    with gc_paused():
        result = _audit(store, candidates, latest, domains)
    result.review = review_of(store, "candidate", accepted=accepted)
    return result


def _audit(
    store: Store,
    candidates: list[CandidateRecord] | None,
    latest: Latest | None,
    domains: Mapping[str, str] | None = None,
) -> Audit:
    cand_list = candidates if candidates is not None else audit_candidates(store)
    cands = {c.id: c for c in cand_list}
    latest = latest if latest is not None else latest_results(store, audit_rows(store))
    ids = sorted(cands, key=lambda i: (cands[i].created_at, i))
    verified_ids = [cid for cid in ids if _outcome(latest, cid, "verify", "") == "pass"]
    verified = [cands[c] for c in verified_ids]

    letters = Counter(c.answer for c in verified)
    rank_of = {c.id: value_rank(c.options, c.answer) for c in verified}  # the pool's too
    ranks = Counter(rank_of.values())
    ranked = sum(n for r, n in ranks.items() if r is not None)
    middle = ranks.get(2, 0) + ranks.get(3, 0)
    middle_share = middle / ranked if ranked else None

    screen_names = screens_in_order(store)
    screen_audits = [_screen_audit(s, latest, cands) for s in screen_names]

    dup_groups: dict[str, list[str]] = defaultdict(list)
    for cid in ids:
        dup_groups[cands[cid].question_key].append(cid)
    exact = [g for g in dup_groups.values() if len(g) > 1]

    # tokenized once: the pool's clusters are computed from the same rows
    token_rows = TokenRows.of(cands[i].question for i in ids)
    groups = token_rows.clusters(JACCARD_THRESHOLD)
    largest = groups[0] if groups else []

    families = Counter((c.family or "(none)") for c in cands.values())
    domains = domains if domains is not None else candidate_domains(store)
    whole = db_funnel(store, latest, screen_names, cands, domains)
    pool_ids = whole["pool_ids"]
    funnel = _in_loop_funnel(store, latest, screen_names, cands, whole, domains)
    pool = [cands[c] for c in pool_ids]
    pool_families = Counter((c.family or "(none)") for c in pool)
    position = {cid: k for k, cid in enumerate(ids)}
    pool_groups = token_rows.subset(position[c.id] for c in pool).clusters(JACCARD_THRESHOLD)
    del token_rows, position
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
        largest_cluster_share=_share(len(largest), len(ids)),
        largest_cluster_ids=[ids[i] for i in largest][:50],
        families=dict(families.most_common()),
        top_family_share=_share(families.most_common(1)[0][1], len(cands)) if cands else None,
        pool_size=len(pool),
        pool_families=dict(pool_families.most_common()),
        pool_top_family_share=_share(pool_families.most_common(1)[0][1], len(pool))
        if pool
        else None,
        pool_largest_cluster_size=len(pool_groups[0]) if pool_groups else 0,
        pool_largest_cluster_share=_share(len(pool_groups[0]), len(pool)) if pool_groups else None,
        rescreens=_rescreens(store),
        agreement=_agreement(screen_names, latest, verified_ids),
        cost=cost_by_gate(store),
        funnel=funnel,
        domains=by_domain(store, cands, latest, screen_names),
        **_pool_and_gate_audits(store, cands, latest, ids, verified_ids, pool, rank_of),
    )


def by_domain(
    store: Store,
    cands: dict[str, CandidateRecord],
    latest: Latest,
    screens: list[str],
) -> dict[str, dict[str, Any]]:
    """Each domain's candidates side by side (empty when the database holds one domain):
    how many were generated, verified, passed gate 1b and reached the pool, how often each
    screen solved the ones it saw, the pool's letters and value ranks, families and the
    largest near-duplicate cluster. A candidate's domain is its run's; a domain's pool is
    the one a database holding only its candidates would have (the screens that ran on
    them, a tool gate where one ran on them)."""
    run_domain = {r["id"]: r.get("domain") or "(none)" for r in store.runs()}
    groups: dict[str, list[CandidateRecord]] = defaultdict(list)
    for c in cands.values():
        groups[run_domain.get(c.run_id, "(none)")].append(c)
    if len(groups) < 2:
        return {}
    out: dict[str, dict[str, Any]] = {}
    for domain, items in sorted(groups.items()):
        own = {c.id: c for c in items}
        own_latest = {cid: latest[cid] for cid in own if cid in latest}
        own_screens = [
            s for s in screens if any(("screen", s) in per for per in own_latest.values())
        ]
        pool = set(dedupe_by_question(surviving_candidates(own_latest, own_screens, own), own))
        verified = [c for c in items if _outcome(latest, c.id, "verify", "") == "pass"]
        invariant = [
            c for c in verified if _outcome(latest, c.id, "invariance", "") in (None, "pass")
        ]
        in_pool = [c for c in items if c.id in pool]
        solved: dict[str, float | None] = {}
        for s in screens:
            seen = [_outcome(latest, c.id, "screen", s) for c in items]
            decided = [o for o in seen if o in ("pass", "fail")]
            solved[s] = _round(_share(decided.count("fail"), len(decided)))
        families = Counter(c.family or "(none)" for c in items)
        clusters = _jaccard_groups(c.question for c in items)
        out[domain] = {
            "candidates": len(items),
            "verified": len(verified),
            "invariant": len(invariant),
            "pool": len(in_pool),
            "pool_share": _share(len(in_pool), len(items)),
            "screen_solved_share": solved,
            "pool_letter_distribution": letter_counts(in_pool),
            "pool_value_rank_distribution": rank_counts(
                value_rank(c.options, c.answer) for c in in_pool
            ),
            "families": dict(families.most_common()),
            "largest_cluster_size": len(clusters[0]) if clusters else 0,
        }
    return out


def _pool_and_gate_audits(
    store: Store,
    cands: dict[str, CandidateRecord],
    latest: Latest,
    ids: list[str],
    verified_ids: list[str],
    pool: list[CandidateRecord],
    rank_of: dict[str, int | None] | None = None,
) -> dict[str, Any]:
    """The pool's letters and value ranks, conflicts, rejections and solver transfer
    (`rank_of`: value ranks already computed, by candidate id)."""
    known = rank_of or {}
    # generation rounds only: a rescreen's rows are not rejections of generated candidates
    attempts = store.gate_run_attempt_outcomes()
    return {
        "pool_letter_distribution": letter_counts(pool),
        "pool_value_rank_distribution": rank_counts(
            known[c.id] if c.id in known else value_rank(c.options, c.answer) for c in pool
        ),
        "conflicts": conflict_audit(ids, cands, set(verified_ids)),
        "rejections": rejection_breakdown(latest, attempts),
        "transfer": solver_transfer(latest, [c.id for c in pool]),
    }


def letter_counts(items: list[CandidateRecord]) -> dict[str, int]:
    """How often each letter is the proposed answer."""
    letters = Counter(c.answer for c in items)
    return {k: letters.get(k, 0) for k in LETTERS}


def rank_counts(values: Iterable[int | None]) -> dict[str, int]:
    """How often each value rank (1st..4th smallest numeric option; None: non-numeric) occurs."""
    ranks = Counter(values)
    return {str(r): ranks.get(r, 0) for r in (1, 2, 3, 4)} | (
        {"non-numeric": ranks[None]} if ranks.get(None) else {}
    )


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector (restored on exit, also when nested).

    Loading a large run database creates hundreds of thousands of long-lived dicts and
    lists (no reference cycles); the collector would rescan them again and again, which
    costs about a quarter of a 10,000-candidate report.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _jaccard_groups(questions: Iterable[str]) -> list[list[int]]:
    """Token-Jaccard clusters of the questions (near-linear; see `text_clusters`)."""
    return text_clusters(questions, JACCARD_THRESHOLD)


def audit_candidates(store: Store, *, solutions: bool = False) -> list[CandidateRecord]:
    """Every candidate, oldest first, with what the audit reads: no solution, no meta
    (the bulk of a candidate's record), read PAGE rows per query. `solutions` adds the
    solution, generator and answer value (what the report's item browser shows)."""
    out: list[CandidateRecord] = []
    for page in store.candidate_pages(PAGE, solutions=solutions):
        out += candidate_records(page)
    return out


def candidate_records(rows: Iterable[dict[str, Any]]) -> Iterator[CandidateRecord]:
    """Candidate rows (columns of `candidates`, options decoded) as records."""
    for row in rows:
        row["run_id"] = row["run_id"] or ""
        yield CandidateRecord.model_validate(row)


def gate_rows(store: Store) -> list[dict[str, Any]]:
    """Every gate result with its detail decoded, in insertion (id) order (one query)."""
    return store.gate_result_rows()


#: Gate results read per query by `gate_pages` (bounds how many are decoded at once).
PAGE = 5_000
#: What `_screen_audit` reads of a screen call; `audit_view` keeps only these.
_CALL_KEYS = ("order", "chosen_letter", "correct")
#: Columns whose values repeat from row to row: `audit_view` shares one string for each.
_SHARED = ("run_id", "gate", "screen", "outcome", "reason")


def gate_pages(store: Store) -> Iterator[list[dict[str, Any]]]:
    """The gate results as `gate_rows` has them, PAGE rows per query (keyset paging)."""
    return store.gate_result_pages(PAGE)


def audit_view(row: dict[str, Any]) -> dict[str, Any]:
    """A gate result as the audit reads it: screen calls without their replies (only
    `_CALL_KEYS`), no solver transcript; everything else as stored. The strings that
    repeat from row to row (run, gate, screen, outcome, short reasons, detail keys) and
    the screen calls themselves (a few hundred distinct (order, letter, correct) triples)
    are shared between rows, not copied: the view is read-only."""
    out = dict(row)
    intern = sys.intern
    for k in _SHARED_ALWAYS:
        v = out.get(k)
        if type(v) is str:
            out[k] = intern(v)
    v = out.get("reason")
    if type(v) is str and len(v) <= _INTERN_CHARS:
        out["reason"] = intern(v)
    detail = row.get("detail")
    if not isinstance(detail, dict):
        return out
    slim = {intern(k): v for k, v in detail.items() if k != "transcript_tail"}
    calls = slim.get("calls")
    if isinstance(calls, list):
        slim["calls"] = [_shared_call(c) if isinstance(c, dict) else c for c in calls]
    out["detail"] = slim
    return out


#: `_SHARED` but the reason, which `audit_view` shares only when short.
_SHARED_ALWAYS = tuple(k for k in _SHARED if k != "reason")


#: Reasons up to this long are interned by `audit_view` ("2 of 3" repeats; long ones rarely).
_INTERN_CHARS = 64
#: At most this many distinct screen calls are shared (beyond, each row keeps its own).
_SHARED_CALLS_MAX = 4096
_shared_calls: dict[tuple[Any, ...], dict[str, Any]] = {}
_ABSENT = object()


def _shared_call(call: dict[str, Any]) -> dict[str, Any]:
    """The `_CALL_KEYS` of a screen call, as one dict shared by every equal call."""
    order = call.get("order", _ABSENT)
    key = (
        tuple(order) if type(order) is list else order,
        call.get("chosen_letter", _ABSENT),
        call.get("correct", _ABSENT),
    )
    try:
        shared = _shared_calls.get(key)
    except TypeError:  # an unhashable value (a nested list): not shared
        shared = None
    if shared is None:
        shared = {k: call[k] for k in _CALL_KEYS if k in call}
        if len(_shared_calls) < _SHARED_CALLS_MAX:
            with suppress(TypeError):
                _shared_calls[key] = shared
    return shared


def audit_rows(store: Store) -> Iterator[dict[str, Any]]:
    """Every gate result in id order as `audit_view` has it, read page by page."""
    for page in gate_pages(store):
        yield from (audit_view(g) for g in page)


def latest_results(store: Store, rows: Iterable[dict[str, Any]] | None = None) -> Latest:
    """candidate id -> (gate, screen) -> the most recent gate result (one query).

    `rows` (from `gate_rows` or `audit_rows`, any iterable) may be passed in instead.
    The most recent is the latest `created_at`, ties broken by the larger id.
    """
    out: Latest = defaultdict(dict)
    ids: dict[str, str] = {}  # one string per candidate id, shared by its rows
    for g in rows if rows is not None else gate_rows(store):
        cid = g["candidate_id"] = ids.setdefault(g["candidate_id"], g["candidate_id"])
        per = out[cid]
        key = (g["gate"], g["screen"])
        old = per.get(key)
        if old is None or (g["created_at"], g["id"]) >= (old["created_at"], old["id"]):
            per[key] = g
    return out


def _solved(latest: Latest, cid: str) -> bool:
    return any(k[0] == "solve" and g["outcome"] == "pass" for k, g in latest.get(cid, {}).items())


def surviving_candidates(
    latest: Latest,
    screens: list[str],
    cands: dict[str, CandidateRecord],
    domains: Mapping[str, str] | None = None,
) -> list[str]:
    """Candidates that passed verification, gate 1b where it ran, and every screen, and
    the tool gate when one ran; oldest first, exact duplicates included.

    `domains` (candidate id -> its run's domain, `candidate_domains`) scopes the screens
    and the tool gate: when the candidates span several domains, each must pass the
    screens of `screens` that ran on its own domain's candidates, and a tool gate counts
    only where one ran on its domain. Without it, or with one domain, every screen of
    `screens` and any tool gate apply to all."""
    scope = pool_scopes(latest, screens, cands, domains)
    return [
        c
        for c in sorted(cands, key=lambda i: (cands[i].created_at, i))
        if _outcome(latest, c, "verify", "") == "pass"
        and not _rejected_by_invariance(latest, c)
        and all(_outcome(latest, c, "screen", s) == "pass" for s in scope[c][0])
        and (not scope[c][1] or _solved(latest, c))
    ]


def candidate_domains(store: Store, cands: Iterable[str] | None = None) -> dict[str, str]:
    """candidate id -> the domain of the run that produced it ("" when none recorded)."""
    domains = store.candidate_run_domains()
    if cands is None:
        return domains
    wanted = set(cands)
    return {cid: domain for cid, domain in domains.items() if cid in wanted}


def pool_scopes(
    latest: Latest,
    screens: list[str],
    cands: Iterable[str],
    domains: Mapping[str, str] | None = None,
) -> dict[str, tuple[list[str], bool]]:
    """candidate id -> (the screens it must pass, whether a tool gate applies to it).

    One domain (or no `domains`): `screens` and "a tool gate ran on any candidate" for
    every candidate. Several: per domain, the screens of `screens` that ran on one of the
    domain's candidates and whether a tool gate ran on one of them (what
    `v_candidate_status` computes per domain since schema version 6)."""
    ids = list(cands)
    group = {c: (domains or {}).get(c, "") for c in ids}
    members: dict[str, list[str]] = defaultdict(list)
    for c in ids:
        members[group[c]].append(c)
    if len(members) < 2:
        any_solve = any(k[0] == "solve" for per in latest.values() for k in per)
        return {c: (screens, any_solve) for c in ids}
    per_domain: dict[str, tuple[list[str], bool]] = {}
    for name, own in members.items():
        keys = {k for c in own for k in latest.get(c, {})}
        per_domain[name] = (
            [s for s in screens if ("screen", s) in keys],
            any(k[0] == "solve" for k in keys),
        )
    return {c: per_domain[group[c]] for c in ids}


def dedupe_by_question(ids: list[str], cands: dict[str, CandidateRecord]) -> list[str]:
    """The first of each exact-duplicate question (normalized), in the given order."""
    seen: set[str] = set()
    pool = []
    for c in ids:
        if cands[c].question_key not in seen:
            seen.add(cands[c].question_key)
            pool.append(c)
    return pool


def _outcome(latest: Latest, cid: str, gate: str, screen: str) -> str | None:
    g = latest.get(cid, {}).get((gate, screen))
    return None if g is None else g["outcome"]


def screens_in_order(store: Store) -> list[str]:
    """Screens in the order the runs applied them (first appearance)."""
    order: list[str] = []
    for run in sorted(store.runs(), key=lambda r: r.get("created_at") or 0):
        for s in (run.get("config") or {}).get("screens", []) or []:
            if s not in order:
                order.append(s)
    for screen in store.screens_by_first_result():
        if screen not in order:
            order.append(screen)
    return order


def _screen_audit(screen: str, latest: Latest, cands: dict[str, CandidateRecord]) -> ScreenAudit:
    choices: Counter[str] = Counter()
    pos_calls: Counter[str] = Counter()
    pos_correct: Counter[str] = Counter()
    n = solved = errors = calls = correct = early = unreadable = 0
    orders: set[tuple[str, ...]] = set()
    declared_shuffled: set[bool] = set()
    for cid, per in latest.items():
        g = per.get(("screen", screen))
        if g is None:
            continue
        n += 1
        detail = g.get("detail") or {}
        solved += g["outcome"] == "fail"
        errors += g["outcome"] == "error"
        early += bool(detail.get("early_stop"))
        if isinstance(detail.get("shuffled"), bool):
            declared_shuffled.add(detail["shuffled"])
        answer = _proposed_letter(cands.get(cid), detail, per)
        for call in detail.get("calls", []) or []:
            calls += 1
            correct += bool(call.get("correct"))
            order = call.get("order") or list(LETTERS)
            orders.add(tuple(order))
            if call.get("chosen_letter") in LETTERS:
                choices[call["chosen_letter"]] += 1
            else:
                unreadable += 1
            if answer and answer in order:
                shown = LETTERS[order.index(answer)]
                pos_calls[shown] += 1
                pos_correct[shown] += bool(call.get("correct"))
    # More than one distinct order proves shuffling; with a single call seen, trust the record.
    shuffled = len(orders) > 1 or (calls <= 1 and declared_shuffled == {True})
    return ScreenAudit(
        screen=screen,
        candidates=n,
        solved=solved,
        errors=errors,
        calls=calls,
        correct_calls=correct,
        accuracy=_share(correct, calls),
        shuffled=shuffled,
        distinct_orders=len(orders),
        early_stops=early,
        letter_choices={k: choices.get(k, 0) for k in LETTERS},
        accuracy_by_correct_position={k: _share(pos_correct[k], pos_calls[k]) for k in LETTERS},
        calls_by_correct_position={k: pos_calls.get(k, 0) for k in LETTERS},
        unreadable_replies=unreadable,
    )


def _proposed_letter(cand: CandidateRecord | None, detail: dict, per: dict) -> str | None:
    if cand is not None and cand.answer in LETTERS:
        return cand.answer
    verify = per.get(("verify", ""))
    if verify and (verify.get("detail") or {}).get("proposed"):
        return verify["detail"]["proposed"]
    return detail.get("proposed")


def _agreement(screens: list[str], latest: Latest, verified_ids: list[str]) -> list[dict[str, Any]]:
    """2x2 tables of which verified candidates two screens solved (errors left out)."""
    rows = []
    for a, b in combinations(screens, 2):
        table = {"both_solved": 0, "only_a": 0, "only_b": 0, "neither": 0}
        for cid in verified_ids:
            oa, ob = _outcome(latest, cid, "screen", a), _outcome(latest, cid, "screen", b)
            if oa not in ("pass", "fail") or ob not in ("pass", "fail"):
                continue
            sa, sb = oa == "fail", ob == "fail"
            key = "both_solved" if sa and sb else "only_a" if sa else "only_b" if sb else "neither"
            table[key] += 1
        n = sum(table.values())
        agree = table["both_solved"] + table["neither"]
        rows.append({"a": a, "b": b, "n": n, **table, "agreement_rate": _share(agree, n)})
    return rows


_ROLE_OF_GATE = {"screen": "screen", "solve": "solver"}


def cost_by_gate(store: Store) -> list[dict[str, Any]]:
    """Seconds (and agent-hours), calls, tokens and cost per gate and per model role.

    Generation time is the generator's own working time; a gate's time is the sum of its results'
    seconds. Model calls are matched to a gate by role and spec; calls that match no gate
    (other roles, other specs) get rows of their own so no token is left out.
    """
    rows = store.gate_result_totals()
    calls = {(r["role"], r["spec"]): r for r in store.model_call_totals()}
    used: set[tuple[str, str]] = set()
    out = []
    # The generator's own time (gen_seconds) in the generation runs, never the round's
    # wall time (queueing and later gates) nor rescreen rows.
    gen = store.gate_run_generation_time()
    gen_keys = [k for k in calls if k[0] == "generator"]
    used.update(gen_keys)
    out.append(
        _cost_row(
            "generate", "", gen["n"] or 0, gen["seconds"] or 0.0, [calls[k] for k in gen_keys]
        )
    )
    for r in rows:
        key = (_ROLE_OF_GATE.get(r["gate"], r["gate"]), r["screen"])
        matched = [calls[key]] if key in calls else []
        used.update(k for k in [key] if k in calls)
        out.append(_cost_row(r["gate"], r["screen"], r["n"], r["seconds"] or 0.0, matched))
    for key, c in calls.items():
        if key not in used:
            role = key[0] or "other"
            out.append(_cost_row(f"calls: {role}", key[1], 0, c["latency"] or 0.0, [c]))
    return out


def _cost_row(gate: str, spec: str, n: int, seconds: float, calls: list[dict]) -> dict[str, Any]:
    unpriced = sum(c["unpriced"] or 0 for c in calls)
    priced = sum(c["cost"] or 0.0 for c in calls)
    return {
        "gate": gate,
        "spec": spec,
        "items": n,
        "seconds": round(seconds, 3),
        "agent_hours": round(seconds / 3600, 4),
        "model_calls": sum(c["calls"] for c in calls),
        "input_tokens": sum(c["input_tokens"] or 0 for c in calls),
        "output_tokens": sum(c["output_tokens"] or 0 for c in calls),
        # unknown when any call's price is unknown (never counted as zero)
        "cost_usd": None if unpriced else round(priced, 6),
        "priced_cost_usd": round(priced, 6),
        "unpriced_calls": unpriced,
    }


def _rescreens(store: Store) -> list[dict[str, Any]]:
    """One funnel per post-generation rescreen run (the paper's Table 4)."""
    from scigate.gate._funnel import rescreen_funnels

    return rescreen_funnels(store)


def _in_loop_funnel(
    store: Store,
    latest: Latest,
    screens: list[str],
    cands: dict[str, CandidateRecord],
    whole: dict[str, Any] | None = None,
    domains: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """`db_funnel` over the generation runs' own gate results and screens (no rescreen).

    `whole` is `db_funnel(store, latest, screens, cands)` when the caller has it: with no
    result of another run and every screen an in-loop one, the in-loop funnel is that
    very funnel (same results, same screens), so it is not computed twice."""
    rescreened = store.non_gate_run_result_count()
    if rescreened:
        gate_runs = {r["id"] for r in store.runs() if r["kind"] == "gate"}
        latest = latest_results(store, (g for g in audit_rows(store) if g["run_id"] in gate_runs))
    in_loop = {
        s
        for r in store.runs()
        if r["kind"] == "gate"
        for s in (r.get("config") or {}).get("screens") or []
    }
    own = [s for s in screens if s in in_loop]
    if whole is not None and not rescreened and own == screens:
        funnel = dict(whole)
    else:
        funnel = db_funnel(store, latest, own, cands, domains)
    funnel.pop("pool_ids")
    return funnel


def db_funnel(
    store: Store,
    latest: Latest,
    screens: list[str],
    cands: dict[str, CandidateRecord],
    domains: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """generated, verified, each screen (sequential), solved, unique over the database.

    `unique` counts distinct normalized questions among the survivors (exact
    deduplication). The returned dict also holds `pool_ids`, the surviving candidates
    after deduplication (callers pop it before publishing the funnel). `domains`
    (`candidate_domains`, of these candidates or more) is read when not given.
    """
    ordered = sorted(cands, key=lambda i: (cands[i].created_at, i))
    verified = [c for c in ordered if _outcome(latest, c, "verify", "") == "pass"]
    invariant = invariant_candidates(latest, verified)
    alive = [c for c in verified if not _rejected_by_invariance(latest, c)]
    # verified candidates that gate 1b never ran on (their run had it off): they go on;
    # counted before the screens thin `alive` out
    unchecked = None if invariant is None else len(alive) - len(invariant)
    # each candidate meets only its own domain's screens and tool gate (`pool_scopes`)
    if domains is None:
        domains = candidate_domains(store, cands)
    scope = pool_scopes(latest, screens, cands, domains)
    per_screen: dict[str, int] = {}
    for s in screens:
        alive = [
            c for c in alive if s not in scope[c][0] or _outcome(latest, c, "screen", s) == "pass"
        ]
        per_screen[s] = len(alive)
    any_solve = any(scope[c][1] for c in cands)
    solved = [c for c in alive if _solved(latest, c)]
    final = [c for c in alive if not scope[c][1] or _solved(latest, c)]
    pool = dedupe_by_question(final, cands)
    counts = store.gate_run_attempt_counts()  # rounds, not rescreens
    failed_gen = counts["failed"] or 0
    return {
        "attempts": max(counts["n"] or 0, len(cands) + failed_gen),
        "generator_failed": failed_gen,
        "near_duplicates": counts["near"] or 0,
        "generated": len(cands),
        "verified": len(verified),
        "invariant": None if invariant is None else len(invariant),
        "invariance_unchecked": unchecked,
        "screens": per_screen,
        "solved": len(solved) if any_solve else None,
        "unique": len(pool),
        "duplicates_removed": len(final) - len(pool),
        "pool_ids": pool,
    }


def _rejected_by_invariance(latest: Latest, cid: str) -> bool:
    """True when gate 1b ran on the candidate and its latest result is not a pass."""
    outcome = _outcome(latest, cid, "invariance", "")
    return outcome is not None and outcome != "pass"


def invariant_candidates(latest: Latest, verified: list[str]) -> list[str] | None:
    """The verified candidates whose latest gate-1b result is a pass; None when gate 1b
    never ran on this database (the stage is then left out of the funnel)."""
    if not any(k[0] == "invariance" for per in latest.values() for k in per):
        return None
    return [c for c in verified if _outcome(latest, c, "invariance", "") == "pass"]


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)
