"""The audit's, the report's and the review queue's named reads of the run database: their
SQL lives here, not in `scigate.gate` or `scigate.review`.

`AuditReads` is a mixin of `Store` (which provides `query`): each method is one read
`gate audit`, `gate report` or the review queue needs, named by what it returns. Every
query is read-only (`Store.query`); the bulk reads page (`candidate_pages`,
`gate_result_pages`) or take the ids of one block (`candidates_with_rowid`,
`gate_results_of_candidates`), so no caller has to hold a whole table at once.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from typing import Any

__all__ = ["AuditReads"]

#: Every column of `gate_results`, in table order (what the audit and the report read).
_GATE_COLUMNS = (
    "id, run_id, candidate_id, gate, screen, outcome, reason, detail, seconds, created_at"
)
#: The columns of `candidates` the audit reads (no meta, no solution: the bulk of a row).
_CANDIDATE_COLUMNS = "id, run_id, question, options, answer, family, duplicate_of, created_at"
#: What the report's item browser reads on top of `_CANDIDATE_COLUMNS`.
_SOLUTION_COLUMNS = ", solution, generator, answer_value"
#: The generation runs (a rescreen's rows are not a generation round's).
_GATE_RUNS = "SELECT id FROM runs WHERE kind = 'gate'"


def _by_id(row: dict[str, Any]) -> Any:
    return row["id"]


class AuditReads:
    """Reads for the audit, the report and the review queue, by name (mixed into `Store`)."""

    def query(
        self,
        sql: str,
        params: Sequence[Any] | dict[str, Any] = (),
        *,
        texts: Collection[str] = (),
    ) -> list[dict[str, Any]]:  # pragma: no cover - Store's own
        raise NotImplementedError

    def _keyset_pages(self, sql: str, key: str, size: int) -> Iterator[list[dict[str, Any]]]:
        """The rows of `sql` (whose parameters are the last `key` seen and `size`, rows in
        increasing `key`), `size` per query, until a query returns none."""
        last = -1
        while page := self.query(sql, (last, size)):
            last = page[-1][key]  # before the caller sees (and may change) the rows
            yield page

    # -- candidates --------------------------------------------------------------------

    def candidate_pages(
        self, size: int, *, solutions: bool = False
    ) -> Iterator[list[dict[str, Any]]]:
        """Every candidate in rowid (insertion) order, `size` rows per query (keyset
        paging): `id`, `run_id`, `question`, decoded `options`, `answer`, `family`,
        `duplicate_of` and `created_at` (no meta, no solution); `solutions` adds
        `solution`, `generator` and `answer_value`."""
        extra = _SOLUTION_COLUMNS if solutions else ""
        sql = (
            f"SELECT rowid AS k, {_CANDIDATE_COLUMNS}{extra} FROM candidates"
            " WHERE rowid > ? ORDER BY rowid LIMIT ?"
        )
        for page in self._keyset_pages(sql, "k", size):
            for row in page:
                del row["k"]
            yield page

    def candidate_ids_by_age(self) -> list[str]:
        """Every candidate id, oldest first (`created_at`, ties by id)."""
        return [r["id"] for r in self.query("SELECT id FROM candidates ORDER BY created_at, id")]

    def candidates_with_rowid(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        """The candidates of `ids` (one query: pass at most a few thousand), in no set
        order: `rowid`, the columns `candidate_pages(solutions=True)` reads."""
        marks = ",".join("?" * len(ids))
        return self.query(
            f"SELECT rowid AS rowid, {_CANDIDATE_COLUMNS}{_SOLUTION_COLUMNS} FROM candidates"
            f" WHERE id IN ({marks})",
            list(ids),
        )

    def candidate_run_domains(self) -> dict[str, str]:
        """candidate id -> the domain of the run that produced it ("" when none is
        recorded), in the candidates' table order."""
        return {
            r["id"]: r["domain"]
            for r in self.query(
                "SELECT c.id AS id, COALESCE(r.domain, '') AS domain FROM candidates c"
                " LEFT JOIN runs r ON r.id = c.run_id"
            )
        }

    # -- gate results ------------------------------------------------------------------

    def gate_result_rows(self) -> list[dict[str, Any]]:
        """Every gate result (all columns, detail decoded), in id (insertion) order."""
        return self.query(f"SELECT {_GATE_COLUMNS} FROM gate_results ORDER BY id")

    def gate_result_pages(self, size: int) -> Iterator[list[dict[str, Any]]]:
        """`gate_result_rows`, `size` rows per query (keyset paging on the id)."""
        sql = f"SELECT {_GATE_COLUMNS} FROM gate_results WHERE id > ? ORDER BY id LIMIT ?"
        return self._keyset_pages(sql, "id", size)

    def gate_results_of_candidates(
        self, ids: Sequence[str], *, texts: bool = False
    ) -> list[dict[str, Any]]:
        """The gate results of the candidates `ids` (one query: pass at most a few
        thousand), in id order, as `gate_result_rows` has them; `texts` adds
        `detail_text`, the detail's JSON text as stored (for a caller that writes the
        detail out again as JSON: it need not encode it anew)."""
        marks = ",".join("?" * len(ids))
        rows = self.query(
            f"SELECT {_GATE_COLUMNS} FROM gate_results WHERE candidate_id IN ({marks})",
            list(ids),
            texts=("detail",) if texts else (),
        )
        # sorted here, not by SQLite: its ORDER BY sorts whole rows (details included)
        # in a temporary b-tree, about a third of the query's time
        rows.sort(key=_by_id)
        return rows

    def gate_results_without_candidate(self) -> list[dict[str, Any]]:
        """The gate results whose candidate is not stored, in id order, as
        `gate_result_rows` has them."""
        return self.query(
            f"SELECT {_GATE_COLUMNS} FROM gate_results"
            " WHERE candidate_id NOT IN (SELECT id FROM candidates) ORDER BY id"
        )

    def candidate_ids_by_first_result(self) -> list[str]:
        """The candidate id of every gate result, once, in the order of its first result."""
        return [
            r["candidate_id"]
            for r in self.query(
                "SELECT candidate_id FROM gate_results GROUP BY candidate_id ORDER BY MIN(id)"
            )
        ]

    def screens_by_first_result(self) -> list[str]:
        """The screens with a gate result, in the order of their first result."""
        return [
            r["screen"]
            for r in self.query(
                "SELECT screen FROM gate_results WHERE gate = 'screen'"
                " GROUP BY screen ORDER BY MIN(id)"
            )
        ]

    def gate_result_totals(self) -> list[dict[str, Any]]:
        """Per (gate, screen), in the order of their first result: `n` results and the
        sum of their `seconds` (None when there is none to sum)."""
        return self.query(
            "SELECT gate, screen, COUNT(*) AS n, SUM(seconds) AS seconds FROM gate_results"
            " GROUP BY gate, screen ORDER BY MIN(id)"
        )

    def non_gate_run_result_count(self) -> int:
        """How many gate results runs other than generation runs (`kind = 'gate'`), such
        as rescreens, recorded."""
        return int(
            self.query(
                f"SELECT COUNT(*) AS n FROM gate_results WHERE run_id NOT IN ({_GATE_RUNS})"
            )[0]["n"]
        )

    # -- attempts of the generation runs -----------------------------------------------

    def gate_run_attempt_outcomes(self) -> list[dict[str, Any]]:
        """`candidate_id`, `status` and `reason` of every attempt of a generation run
        (`kind = 'gate'`; not a rescreen's), in id order."""
        return self.query(
            "SELECT candidate_id, status, reason FROM attempts"
            f" WHERE run_id IN ({_GATE_RUNS}) ORDER BY id"
        )

    def gate_run_attempt_counts(self) -> dict[str, Any]:
        """The generation runs' attempts (rounds, not rescreens): `n` of them, `failed`
        (status generator-failed) and `near` (rejected-duplicate); the last two are None
        when there is no attempt."""
        return self.query(
            "SELECT COUNT(*) AS n, SUM(status = 'generator-failed') AS failed,"
            " SUM(status = 'rejected-duplicate') AS near FROM attempts"
            f" WHERE run_id IN ({_GATE_RUNS})"
        )[0]

    def gate_run_generation_time(self) -> dict[str, Any]:
        """The generation runs' attempts: `n` of them and `seconds`, the sum of the
        generator's own working time (`gen_seconds`; None when there is none)."""
        return self.query(
            "SELECT COUNT(*) AS n, SUM(gen_seconds) AS seconds FROM attempts"
            f" WHERE run_id IN ({_GATE_RUNS})"
        )[0]

    # -- model calls -------------------------------------------------------------------

    def model_call_totals(self) -> list[dict[str, Any]]:
        """Per (role, spec), in the order first used: `calls`, `input_tokens`,
        `output_tokens`, `cost` (of the priced calls), `unpriced` (calls without a
        price) and `latency` (seconds); sums are None when there is nothing to sum."""
        return self.query(
            "SELECT role, spec, COUNT(*) AS calls, SUM(input_tokens) AS input_tokens,"
            " SUM(output_tokens) AS output_tokens, SUM(cost) AS cost,"
            " SUM(CASE WHEN cost IS NULL THEN 1 ELSE 0 END) AS unpriced,"
            " SUM(latency) AS latency FROM model_calls GROUP BY role, spec ORDER BY MIN(id)"
        )

    def call_transcripts(self, key_prefix: str) -> list[dict[str, Any]]:
        """`spec`, decoded `messages` and `response` of the model calls whose call key
        starts with `key_prefix` (compared exactly, no pattern), in id order."""
        return self.query(
            "SELECT spec, messages, response FROM model_calls"
            " WHERE substr(call_key, 1, ?) = ? ORDER BY id",
            (len(key_prefix), key_prefix),
        )

    # -- the review queue --------------------------------------------------------------

    def candidate_statuses_with_questions(self) -> list[dict[str, Any]]:
        """Each candidate's row of `v_candidate_status` (`candidate_id`, `status`,
        `solve`, `run_id`, `family`) with its `question`, decoded `meta` and
        `created_at`."""
        return self.query(
            "SELECT s.candidate_id, s.status, s.solve, s.run_id, s.family, c.question, c.meta,"
            " c.created_at"
            " FROM v_candidate_status s JOIN candidates c ON c.id = s.candidate_id"
        )

    def has_candidate(self, candidate_id: str) -> bool:
        """Whether the database holds the candidate `candidate_id`."""
        return bool(self.query("SELECT 1 FROM candidates WHERE id = ?", (candidate_id,)))

    def has_bench_attempt(self, run_id: str, round_: int) -> bool:
        """Whether bench-build run `run_id` has an attempt in round `round_` that reached
        a question."""
        return bool(
            self.query(
                "SELECT 1 FROM attempts a JOIN runs r ON r.id = a.run_id WHERE r.kind ="
                " 'bench-build' AND a.run_id = ? AND a.round = ?"
                " AND json_extract(a.detail, '$.question') IS NOT NULL",
                (run_id, round_),
            )
        )

    def has_bench_task(self, task_id: str) -> bool:
        """Whether an attempt of a bench-build run produced the task `task_id`."""
        return bool(
            self.query(
                "SELECT 1 FROM attempts a JOIN runs r ON r.id = a.run_id WHERE r.kind ="
                " 'bench-build' AND json_extract(a.detail, '$.task_id') = ?",
                (task_id,),
            )
        )
