"""The items a run database offers for review, and everything the machine knows about one.

Gate runs offer their candidates (id = candidate id); bench builds offer their attempts
that reached a question (id = the task id of an accepted one, `RUN#ATTEMPT` otherwise).
A bench build keeps the full task (options, gold answer, executed plan) in its JSONL,
not the database: pass that file (`bench=`) to show them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from scigate.errors import BadInput

if TYPE_CHECKING:
    from scigate.store import Store

#: Token-Jaccard similarity from which another item is shown as a near-duplicate.
NEAR_DUPLICATE = 0.7
# The gate's question tokens (scigate.gate's near-duplicate audit uses the same): review
# sits below the gate and bench layers, which import it, so it does not import them.
_TOKEN = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")


def _tokens(text: str) -> frozenset[str]:
    return frozenset(_TOKEN.findall(text.lower()))


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


class Item(BaseModel):
    """One row of the review queue: what the filters need."""

    id: str
    kind: str  # candidate | task
    run_id: str | None = None
    domain: str | None = None
    family: str | None = None
    level: str | None = None
    status: str  # the machine's: accepted | rejected-<stage> | error-<stage> | pending | ...
    flagged: bool = False  # the tool agent did not solve it ("flagged for review")
    question: str = ""
    created_at: float = 0.0

    @property
    def stage(self) -> str | None:
        """The stage that rejected it (verify, screen, solve, ...), or None."""
        head, _, stage = self.status.partition("-")
        return stage if head == "rejected" else None


def load_items(store: Store, bench: Path | None = None) -> list[Item]:
    """Every reviewable item of the database: gate candidates and bench build attempts."""
    runs = {r["id"]: r for r in store.runs()}
    items: list[Item] = []
    for r in store.candidate_statuses_with_questions():
        meta = r["meta"] or {}
        run = runs.get(r["run_id"] or "") or {}
        level = meta.get("level")
        items.append(
            Item(
                id=r["candidate_id"],
                kind="candidate",
                run_id=r["run_id"],
                domain=meta.get("domain") or run.get("domain"),
                family=r["family"] or meta.get("family"),
                level=None if level is None else str(level),
                status=r["status"],
                flagged=r["solve"] == "fail",  # the tool agent did not solve it
                question=r["question"],
                created_at=r["created_at"],
            )
        )
    tasks = _bench_tasks(bench)
    for run in runs.values():
        if run["kind"] != "bench-build":
            continue
        for a in store.attempts(run["id"]):
            d = a["detail"] or {}
            if not d.get("question"):
                continue
            task = tasks.get(d.get("task_id") or "", {})
            items.append(
                Item(
                    id=_task_item_id(run["id"], a),
                    kind="task",
                    run_id=run["id"],
                    domain=d.get("domain"),
                    family=d.get("kind"),
                    level=None if d.get("level") is None else f"L{d['level']}",
                    status="accepted" if a["status"] == "accepted" else _bench_status(a),
                    flagged=d.get("stage") == "solver" and a["status"] != "accepted",
                    question=task.get("question") or d["question"],
                    created_at=a["created_at"],
                )
            )
    return items


def item_kinds(store: Store, item_ids: list[str]) -> dict[str, str]:
    """id -> kind for those of `item_ids` the database holds (without loading the queue)."""
    out: dict[str, str] = {}
    for item in dict.fromkeys(item_ids):
        if store.has_candidate(item):
            out[item] = "candidate"
            continue
        run, sep, round_ = item.partition("#")
        if sep and round_.isdigit():
            found = store.has_bench_attempt(run, int(round_))
        else:
            found = store.has_bench_task(item)
        if found:
            out[item] = "task"
    return out


def _task_item_id(run_id: str, attempt: dict[str, Any]) -> str:
    return (attempt["detail"] or {}).get("task_id") or f"{run_id}#{attempt['round']}"


def _bench_status(attempt: dict[str, Any]) -> str:
    stage = (attempt["detail"] or {}).get("stage") or "build"
    return f"{attempt['status'] if attempt['status'] != 'rejected' else 'rejected'}-{stage}"


def _bench_tasks(bench: Path | None) -> dict[str, dict[str, Any]]:
    if bench is None:
        return {}
    from scigate._jsonl import read_objects

    return {str(t.get("id")): t for _, t in read_objects(bench, "benchmark file")}


def item_detail(store: Store, item: Item, items: list[Item], bench: Path | None = None) -> dict:
    """Everything recorded about one item, for its review page."""
    near = _near_duplicates(item, items)
    if item.kind == "candidate":
        return {**_candidate_detail(store, item), "near_duplicates": near}
    return {**_task_detail(store, item, bench), "near_duplicates": near}


def _near_duplicates(item: Item, items: list[Item]) -> list[dict[str, Any]]:
    mine = _tokens(item.question)
    near: list[tuple[float, Item]] = []
    for other in items:
        if other.id == item.id:
            continue
        sim = _jaccard(mine, _tokens(other.question))
        if sim >= NEAR_DUPLICATE:
            near.append((sim, other))
    near.sort(key=lambda pair: -pair[0])
    return [
        {"id": other.id, "similarity": round(sim, 3), "status": other.status}
        for sim, other in near[:20]
    ]


def _candidate_detail(store: Store, item: Item) -> dict[str, Any]:
    cand = store.get_candidate(item.id)
    if cand is None:
        raise BadInput(f"unknown item {item.id!r}")
    gates = store.gate_results(candidate_id=item.id)
    screen_calls = []
    solver = []
    checks = []
    for g in gates:
        detail = g["detail"] or {}
        if g["gate"] == "screen":
            for call in detail.get("calls") or []:
                screen_calls.append({"screen": g["screen"], "run_id": g["run_id"], **call})
        if g["gate"] == "solve":
            solver.append(
                {
                    "solver": g["screen"],
                    "outcome": g["outcome"],
                    "reason": g["reason"],
                    "answer_value": detail.get("answer_value"),
                    "steps": detail.get("steps"),
                    "flagged": bool(detail.get("flagged_for_review")),
                    "transcript": detail.get("transcript_tail") or detail.get("transcript") or [],
                }
            )
        if g["gate"] in ("invariance", "dependence"):
            checks.append(g)
    calls = store.model_calls(candidate_id=item.id)
    transcript = [
        {"spec": c["spec"], "messages": c["messages"], "response": c["response"]}
        for c in calls
        if c["role"] in ("solver", "agent")
    ]
    return {
        "question": cand.question,
        "options": cand.options,
        "proposed": cand.answer,
        "answer_value": cand.answer_value,
        "gold": None,
        "solution": cand.solution,
        "plan": None,
        "meta": cand.meta,
        "generator": cand.generator,
        "duplicate_of": cand.duplicate_of,
        "gates": gates,
        "screen_calls": screen_calls,
        "solver": solver,
        "transcript": transcript,
        "checks": checks,
    }


def _task_detail(store: Store, item: Item, bench: Path | None) -> dict[str, Any]:
    attempt = next(
        (a for a in store.attempts(item.run_id) if _task_item_id(item.run_id or "", a) == item.id),
        None,
    )
    if attempt is None:
        raise BadInput(f"unknown item {item.id!r}")
    d = attempt["detail"] or {}
    task = _bench_tasks(bench).get(d.get("task_id") or "", {})
    gates = [
        {"gate": name, "screen": "", "outcome": "pass", "reason": why, "run_id": item.run_id}
        for name, why in (d.get("checks") or {}).items()
    ]
    if attempt["status"] != "accepted":
        gates.append(
            {
                "gate": d.get("stage", "?"),
                "screen": "",
                "outcome": "fail",
                "reason": attempt["reason"],
                "run_id": item.run_id,
            }
        )
    screens = [
        {"screen": s.get("screen"), "index": "-", "order": None, **s}
        for s in d.get("screens") or []
    ]
    key = f"bench-build/{item.run_id}/{attempt['round']}/"
    calls = store.call_transcripts(key)  # the attempt's own (`_build._record` keys them so)
    solver_record = d.get("solver") or {}
    return {
        "question": task.get("question") or d.get("question"),
        "options": task.get("options") or {},
        "proposed": None,
        "answer_value": None,
        "gold": task.get("answer"),
        "solution": "",
        "plan": task.get("plan") or {"tool_path": d.get("path")},
        "meta": {
            k: d.get(k) for k in ("level", "format", "domain", "kind", "path", "stage") if k in d
        },
        "generator": None,
        "duplicate_of": None,
        "gates": gates,
        "screen_calls": screens,
        "solver": [solver_record] if solver_record else [],
        "transcript": [
            {"spec": c["spec"], "messages": c["messages"], "response": c["response"]} for c in calls
        ],
        "checks": [],
        "judge": d.get("judge"),
    }
