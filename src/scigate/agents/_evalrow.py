"""`EvalRow`: the record of one evaluated task, as the harness writes it to rows.jsonl.

The harness builds one per (run, task) (`_taskscore`), appends its `record()` to
rows.jsonl, summarises a list of them (`_eval.summarize_rows`) and hands each to the
CLI's progress. Rows read back from an older rows.jsonl (before statuses, unpriced calls or
the reranker existed) load too: what they lack is unset, their `record()` is what they held,
and `answer_status` / `unpriced` / `tool_value` read them as the harness always has.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["AnswerStatus", "EvalRow"]

AnswerStatus = Literal["correct", "wrong", "unjudged", "no-reference", "error"]
ToolScore = Literal["tool_exact", "tool_set_f1", "tool_lcs"]


class EvalRow(BaseModel):
    """One task of one run: both chains as scored, the answer's verdict, its cost."""

    model_config = ConfigDict(extra="allow")  # keys of newer or older harnesses survive

    run: int
    index: int
    epoch: int = 0  # the repetition of the task within its run (--epochs)
    line: int | None = None
    level: int | None = None
    domain: str | None = None
    question: str = ""
    predicted_chain: list[str] = []
    executed_chain: list[str] = []
    reference_chain: list[str] = []
    #: tool scores; None (n/a) when the task has no reference path
    tool_exact: float | None = None
    tool_set_f1: float | None = None
    tool_lcs: float | None = None
    answer: str | None = None
    reference_answer: str | None = None
    status: str | None = None  # an AnswerStatus; None in rows written before statuses
    answer_correct: float | None = None
    judged_by: str | None = None
    verdict: dict[str, Any] | None = None
    judge_reply: str | None = None
    learned: dict[str, Any] | None = None  # Evo: the reward it learned from, what it added
    route: str | None = None
    executed_ok: bool | None = None
    error: str | None = None
    calls: int = 0
    unpriced_calls: int | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    latency: float = 0.0
    cost: float | None = None
    estimated_tokens: bool = False
    wall_seconds: float = 0.0
    model_free_seconds: float | None = None
    reranker_calls: int = 0
    reranker_input_tokens: int = 0
    reranker_output_tokens: int = 0

    @classmethod
    def of(cls, row: EvalRow | Mapping[str, Any]) -> EvalRow:
        """`row` itself, or the row a rows.jsonl object (a mapping) holds."""
        return row if isinstance(row, EvalRow) else cls.model_validate(dict(row))

    def record(self) -> dict[str, Any]:
        """The row as rows.jsonl and results hold it: the keys it was given, in order."""
        return self.model_dump(exclude_unset=True)

    @property
    def answer_status(self) -> str:
        """The answer's status (rows written before statuses existed: from answer_correct)."""
        if self.status:
            return self.status
        if "reference_answer" in self.model_fields_set and self.reference_answer is None:
            return "no-reference"
        return "correct" if self.answer_correct else "wrong"

    def tool_value(self, key: ToolScore) -> float | None:
        """A tool score, None when the task has no reference path (rows written before
        n/a existed scored an empty path too)."""
        value = getattr(self, key)
        if value is None or not self.reference_chain:
            return None
        return float(value)

    @property
    def unpriced(self) -> int:
        """Model calls without a price (older rows: all of them when the row has no cost)."""
        if self.unpriced_calls is not None:
            return int(self.unpriced_calls)
        return int(self.calls) if self.cost is None else 0

    def __getitem__(self, key: str) -> Any:
        """A field by its rows.jsonl key (`row["status"]`), as callers that read the JSON do."""
        try:
            return getattr(self, key)
        except AttributeError:
            raise KeyError(key) from None

    def get(self, key: str, default: Any = None) -> Any:
        """A field by its rows.jsonl key, `default` when the row does not hold it."""
        if key in self.model_fields_set or key in (self.model_extra or {}):
            return getattr(self, key)
        return default
