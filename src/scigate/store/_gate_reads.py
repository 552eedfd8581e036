"""The gate's named reads of the run database: its SQL lives here, not in `scigate.gate`.

`GateReads` is a mixin of `Store` (which provides `query`): each method is one read the
ToolGate loop, its generator, its near-duplicate check or its export needs, named by
what it returns. Every query is read-only (`Store.query`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["GateReads"]

_SURVIVOR_QUESTIONS = """
WITH g AS (
    SELECT g.candidate_id, g.gate, g.outcome FROM gate_results g
    JOIN runs r ON r.id = g.run_id WHERE r.kind = 'gate'
)
SELECT c.id, c.question, c.options AS options_json FROM candidates c
WHERE c.id IN (SELECT candidate_id FROM g WHERE gate = 'verify' AND outcome = 'pass')
  AND c.id NOT IN (SELECT candidate_id FROM g WHERE gate != 'verify' AND outcome = 'fail')
"""


class GateReads:
    """Reads of the gate's tables, by name (mixed into `Store`)."""

    def query(
        self, sql: str, params: Sequence[Any] | dict[str, Any] = ()
    ) -> list[dict[str, Any]]:  # pragma: no cover - Store's own
        raise NotImplementedError

    def generated_candidates(self, run_id: str) -> list[dict[str, Any]]:
        """`id`, `answer` and decoded `options` of each candidate run `run_id` generated
        (its `generated` events)."""
        return self.query(
            "SELECT id, answer, options FROM candidates WHERE id IN (SELECT json_extract(data,"
            " '$.candidate_id') FROM events WHERE run_id = ? AND kind = 'generated')",
            (run_id,),
        )

    def survivor_questions(self) -> list[dict[str, Any]]:
        """Candidates of generation runs that passed verification and that no later gate
        of a generation run failed: `id`, `question` and `options_json` (the raw JSON)."""
        return self.query(_SURVIVOR_QUESTIONS)

    def verified_candidate_ids(self) -> set[str]:
        """Ids of the candidates with any passing verification (gate 1) result."""
        return {
            r["candidate_id"]
            for r in self.query(
                "SELECT DISTINCT candidate_id FROM gate_results"
                " WHERE gate = 'verify' AND outcome = 'pass'"
            )
        }

    def latest_not_passed_ids(self, gate: str) -> set[str]:
        """Candidates whose latest result of `gate` (per screen: `v_gate_latest`) is not a
        pass."""
        return {
            r["candidate_id"]
            for r in self.query(
                "SELECT candidate_id, outcome FROM v_gate_latest WHERE gate = ?", (gate,)
            )
            if r["outcome"] != "pass"
        }

    def screened_out_ids(self, *, excluding_run: str | None = None) -> set[str]:
        """Candidates whose latest result of some screen is a fail (a screen answered
        them), leaving out the results of run `excluding_run`."""
        return {
            r["candidate_id"]
            for r in self.query(
                "SELECT candidate_id FROM (SELECT candidate_id, outcome, ROW_NUMBER() OVER ("
                " PARTITION BY candidate_id, screen ORDER BY created_at DESC, id DESC) AS rn"
                " FROM gate_results WHERE gate = 'screen' AND run_id != ?)"
                " WHERE rn = 1 AND outcome = 'fail'",
                (excluding_run or "",),
            )
        }

    def all_gate_results(self) -> list[dict[str, Any]]:
        """Every gate result, oldest first, JSON columns decoded."""
        return self.query("SELECT * FROM gate_results ORDER BY id")

    def candidate_model_usage(self) -> list[dict[str, Any]]:
        """Model calls made for a candidate, per (candidate, run, role, spec): `calls`,
        `input_tokens`, `output_tokens` and `first_id` (the first call's id)."""
        return self.query(
            "SELECT candidate_id, run_id, role, spec, COUNT(*) AS calls,"
            " SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,"
            " MIN(id) AS first_id FROM model_calls WHERE candidate_id IS NOT NULL"
            " GROUP BY candidate_id, run_id, role, spec"
        )

    def model_call_settings(self, ids: Iterable[int]) -> dict[int, Any]:
        """Model call id -> its recorded settings (decoded), for the given ids."""
        wanted = list(ids)
        out: dict[int, Any] = {}
        for i in range(0, len(wanted), 500):  # below SQLite's bound-parameter limit
            chunk = wanted[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for s in self.query(
                f"SELECT id, settings FROM model_calls WHERE id IN ({marks})", chunk
            ):
                out[s["id"]] = s["settings"]
        return out

    def models_by_run(self) -> list[dict[str, Any]]:
        """Each (run, role, spec, settings) the model calls used, with its `calls` count,
        in the order first used."""
        return self.query(
            "SELECT run_id, role, spec, settings, COUNT(*) AS calls FROM model_calls"
            " GROUP BY run_id, role, spec, settings ORDER BY MIN(id)"
        )
