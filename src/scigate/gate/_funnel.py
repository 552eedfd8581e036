"""The funnel of a ToolGate run: counts along the gates, in order, from the database.

A generation run's funnel holds its in-loop outcomes only (the paper's Figure 2); each
rescreen run has a funnel of its own (Table 4), listed by `rescreen_funnels`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from scigate.store import Store


class Funnel(BaseModel):
    """Counts along the gates, in order."""

    generated: int = 0
    generator_failed: int = 0
    near_duplicates: int = 0  # rejected before gate 1: nearly repeats a surviving question
    verified: int = 0
    invariant: int = 0  # passed gate 1b (counted only when `invariance`)
    screens: dict[str, int] = Field(default_factory=dict)
    solved: int = 0
    unsolved: int = 0
    accepted: int = 0
    unique: int = 0
    duplicates: int = 0
    errors: int = 0
    tool_gate: bool = True  # False: no solver configured, nothing can be "solved"
    invariance: bool = False  # True: gate 1b ran, `invariant` is a stage of the funnel

    def line(self) -> str:
        """One line for the progress bar."""
        parts = [f"gen {self.generated}"]
        if self.near_duplicates:
            parts.append(f"near-dup {self.near_duplicates}")
        parts.append(f"verified {self.verified}")
        if self.invariance:
            parts.append(f"invariant {self.invariant}")
        parts += [f"{_short(s)} {n}" for s, n in self.screens.items()]
        if self.tool_gate:
            parts.append(f"solved {self.solved}")
        parts.append(f"unique {self.unique}")
        return " · ".join(parts)


def funnel_of_run(
    store: Store,
    run_id: str,
    screens: list[str],
    *,
    tool_gate: bool = True,
    invariance: bool | None = None,
) -> Funnel:
    """The funnel of one run, from the database; gate 1b is a stage when `invariance`
    (default: when the run recorded any invariance result)."""
    f = Funnel(screens={s: 0 for s in screens}, tool_gate=tool_gate)
    attempts = store.attempts(run_id)
    results = store.gate_results(run_id=run_id)
    f.invariance = (
        any(g["gate"] == "invariance" for g in results) if invariance is None else invariance
    )
    by_cand: dict[str, dict[tuple[str, str], str]] = {}
    for g in results:
        by_cand.setdefault(g["candidate_id"], {})[(g["gate"], g["screen"])] = g["outcome"]
    questions = {c.id: c.question_key for c in store.candidates(run_id)}
    accepted_questions: set[str] = set()
    for a in attempts:
        if a["status"] == "error":
            f.errors += 1
        cid = a.get("candidate_id")
        if not cid:
            if a["status"] == "generator-failed":
                f.generator_failed += 1
            continue
        f.generated += 1
        if a["status"] == "rejected-duplicate":
            f.near_duplicates += 1
            continue
        out = by_cand.get(cid, {})
        if out.get(("verify", "")) != "pass":
            continue
        f.verified += 1
        if f.invariance:
            if out.get(("invariance", "")) != "pass":
                continue
            f.invariant += 1
        alive = True
        for s in screens:
            if alive and out.get(("screen", s)) == "pass":
                f.screens[s] += 1
            else:
                alive = False
        if not alive:
            continue
        solve = [v for (g, _), v in out.items() if g == "solve"]
        if solve:
            if "pass" in solve:
                f.solved += 1
            else:
                f.unsolved += 1
        # Accepted: solved by the tool gate, or through every screen of a run without one
        # (the rule v_funnel counts by; docs/outcomes.md).
        if "pass" in solve or (not solve and not f.tool_gate):
            f.accepted += 1
            # Exact duplicates are counted among the accepted items (as the audit and
            # v_funnel do): a copy of a rejected question still adds a unique item.
            key = questions.get(cid, cid)
            if key in accepted_questions:
                f.duplicates += 1
            else:
                f.unique += 1
                accepted_questions.add(key)
    return f


def funnel_of_run_rescreen(
    store: Store, run_id: str, screens: list[str], verified: int, *, tool_gate: bool = True
) -> Funnel:
    """A rescreen run's funnel: every candidate entered already verified."""
    view = cast("Store", _AssumeVerified(store))  # a Store whose attempts count all verified
    f = funnel_of_run(view, run_id, screens, tool_gate=tool_gate)
    f.generated = f.verified = verified
    return f


def rescreen_funnels(store: Store) -> list[dict[str, Any]]:
    """One funnel per rescreen run (post-generation, apart from the in-loop funnel)."""
    out = []
    for run in store.runs():
        if run["kind"] != "rescreen":
            continue
        cfg = run.get("config") or {}
        screens = list(cfg.get("screens") or [])
        entered = _AssumeVerified(store).attempts(run["id"])
        tool_gate = bool(cfg.get("solver") or cfg.get("solver_cmd"))
        f = funnel_of_run_rescreen(store, run["id"], screens, len(entered), tool_gate=tool_gate)
        out.append(
            {
                "run_id": run["id"],
                "status": run["status"],
                "input": "all verified" if cfg.get("all_verified") else "screen survivors",
                "solver": cfg.get("solver") or cfg.get("solver_cmd"),
                **f.model_dump(),
            }
        )
    return out


class _AssumeVerified:
    """A store view in which every candidate of the run counts as verified.

    A candidate with results in the run but no attempt row yet (a rescreen still going,
    or one written by other tools) counts too, with the status its results give.
    """

    def __init__(self, store: Store):
        self._store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def attempts(self, run_id: str) -> list[dict[str, Any]]:
        rows = self._store.attempts(run_id)
        have = {a["candidate_id"] for a in rows}
        outcomes: dict[str, list[tuple[str, str]]] = {}
        for g in self._store.gate_results(run_id=run_id):
            if g["candidate_id"] not in have:
                outcomes.setdefault(g["candidate_id"], []).append((g["gate"], g["outcome"]))
        for cid, outs in outcomes.items():
            solved = ("solve", "pass") in outs
            screened = all(o == "pass" for g, o in outs if g == "screen")
            status = "accepted" if solved else "screened" if screened else "rejected-screen"
            rows.append({"candidate_id": cid, "status": status})
        return rows

    def gate_results(self, *, run_id: str) -> list[dict[str, Any]]:
        rows = self._store.gate_results(run_id=run_id)
        cands = {a["candidate_id"] for a in self.attempts(run_id) if a.get("candidate_id")}
        return rows + [
            {"candidate_id": c, "gate": "verify", "screen": "", "outcome": "pass"} for c in cands
        ]


def _short(spec: str) -> str:
    return spec if len(spec) <= 24 else spec[:21] + "..."
