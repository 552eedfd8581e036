"""The cost view's reads: what each stage of a run cost, from its recorded model calls.

`CostReads` is a mixin of `Store` (which provides `query`). Every figure is a sum over the
rows of `model_calls`, so the view's totals are those of the calls recorded, never an
estimate: dollars from each call's recorded cost (an unpriced call adds nothing and is
counted in `unpriced_calls`), agent-hours as the sum of the calls' own durations (latency
less the wait for a free slot of the endpoint's concurrency limit, the ToolGate paper's
measure), wall-hours as the span from a stage's first call's start to its last call's end.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

__all__ = ["CostReads"]

_STAGE_SQL = """
SELECT role AS stage, spec AS model,
       COUNT(*) AS calls,
       SUM(cached) AS cached_calls,
       SUM(error IS NOT NULL) AS failed_calls,
       SUM(input_tokens) AS input_tokens,
       SUM(output_tokens) AS output_tokens,
       SUM(cost) AS cost,
       SUM(cost IS NULL AND error IS NULL AND cached = 0) AS unpriced_calls,
       SUM(MAX(latency - COALESCE(json_extract(response, '$.queued'), 0), 0)) AS call_seconds,
       SUM(COALESCE(json_extract(response, '$.queued'), 0)) AS queued_seconds,
       MIN(COALESCE(started_at, created_at)) AS first_start,
       MAX(created_at) AS last_end
FROM model_calls WHERE run_id = ?
GROUP BY role, spec ORDER BY role, spec
"""


class CostReads:
    """Reads for `scigate runs cost` and the reports' cost sections (mixed into `Store`)."""

    def query(
        self,
        sql: str,
        params: Sequence[Any] | dict[str, Any] = (),
        *,
        texts: Collection[str] = (),
    ) -> list[dict[str, Any]]:  # pragma: no cover - Store's own
        raise NotImplementedError

    def method_calls(self, role: str) -> dict[str, Any] | None:
        """Calls, tokens and evaluated tasks of the earlier evaluations whose calls have
        `role` (an agent method): paid, successful calls only; None when there are none."""
        row = self.query(
            "SELECT COUNT(*) AS calls, SUM(input_tokens) AS input_tokens,"
            " SUM(output_tokens) AS output_tokens FROM model_calls"
            " WHERE role = ? AND cached = 0 AND error IS NULL",
            (role,),
        )[0]
        tasks = self.query(
            "SELECT COUNT(*) AS n FROM events WHERE kind = 'agent-task' AND run_id IN"
            " (SELECT DISTINCT run_id FROM model_calls WHERE role = ?)",
            (role,),
        )[0]["n"]
        if not row["calls"] or not tasks:
            return None
        return {**row, "tasks": tasks}

    def run_cost(self, run_id: str) -> dict[str, Any]:
        """Per stage (the calls' role) and model: calls, cached and failed calls, tokens,
        USD, agent-hours and wall-hours; the run's totals; and per accepted item (a gate
        run) or per task (an agent evaluation)."""
        rows = self.query(_STAGE_SQL, (run_id,))
        stages = [_stage(r) for r in rows]
        total = _stage(
            {
                "stage": "total",
                "model": "",
                **{k: sum(r[k] or 0 for r in rows) for k in _SUMMED},
                "cost": sum(r["cost"] for r in rows if r["cost"] is not None)
                if any(r["cost"] is not None for r in rows)
                else None,
                "first_start": min((r["first_start"] for r in rows), default=None),
                "last_end": max((r["last_end"] for r in rows), default=None),
            }
        )
        run = self.query("SELECT kind, status FROM runs WHERE id = ?", (run_id,))
        kind = run[0]["kind"] if run else None
        per: dict[str, Any] = {}
        if kind in ("gate", "rescreen"):
            accepted = self.query(
                "SELECT COUNT(*) AS n FROM v_candidate_status WHERE run_id = ? "
                "AND status = 'accepted'",
                (run_id,),
            )[0]["n"]
            per = _per("accepted_item", accepted, total)
        elif kind == "agent-eval":
            tasks = self.query(
                "SELECT COUNT(*) AS n FROM events WHERE run_id = ? AND kind = 'agent-task'",
                (run_id,),
            )[0]["n"]
            per = _per("task", tasks, total)
        return {
            "run_id": run_id,
            "kind": kind,
            "status": run[0]["status"] if run else None,
            "stages": stages,
            "total": total,
            "per": per,
        }


_SUMMED = (
    "calls",
    "cached_calls",
    "failed_calls",
    "input_tokens",
    "output_tokens",
    "unpriced_calls",
    "call_seconds",
    "queued_seconds",
)


def _stage(row: dict[str, Any]) -> dict[str, Any]:
    first, last = row.get("first_start"), row.get("last_end")
    return {
        "stage": row["stage"] or "(none)",
        "model": row["model"],
        "calls": int(row["calls"] or 0),
        "cached_calls": int(row["cached_calls"] or 0),
        "failed_calls": int(row["failed_calls"] or 0),
        "input_tokens": int(row["input_tokens"] or 0),
        "output_tokens": int(row["output_tokens"] or 0),
        "cost": row["cost"],
        "unpriced_calls": int(row["unpriced_calls"] or 0),
        "agent_hours": (row["call_seconds"] or 0) / 3600,
        "queued_hours": (row["queued_seconds"] or 0) / 3600,
        "wall_hours": (last - first) / 3600 if first is not None and last is not None else 0.0,
    }


def _per(unit: str, count: int, total: dict[str, Any]) -> dict[str, Any]:
    """The run's totals divided by `count` units (None when there are none)."""
    if not count:
        return {"unit": unit, "count": 0, "cost": None, "agent_hours": None, "calls": None}
    return {
        "unit": unit,
        "count": count,
        "cost": total["cost"] / count if total["cost"] is not None else None,
        "agent_hours": total["agent_hours"] / count,
        "calls": total["calls"] / count,
        "tokens": (total["input_tokens"] + total["output_tokens"]) / count,
    }
