"""Candidate records, their content-hash ids, and the JSON encoding of stored columns."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, Field, model_validator


def dumps(value: Any) -> str:
    """Encode a JSON column: sorted keys, UTF-8 kept, unknown objects as `str`."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def dumps_or_null(value: Any) -> str | None:
    """Encode a nullable JSON column (None stays SQL NULL)."""
    return None if value is None else dumps(value)


def loads(text: str | None) -> Any:
    """Decode a JSON column (SQL NULL becomes None)."""
    return None if text is None else json.loads(text)


def candidate_id(question: str, options: dict[str, str]) -> str:
    """The content hash id of a candidate: 16 hex chars of sha256 of its canonical JSON.

    The canonical JSON is `{"options": {...sorted...}, "question": question.strip()}`
    with sorted keys, compact separators and UTF-8 kept, so the same question and
    options always give the same id, whatever the key order or surrounding white space.
    """
    canonical = json.dumps(
        {"question": question.strip(), "options": dict(sorted(options.items()))},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def question_key(question: str) -> str:
    """The question normalized for exact-duplicate detection: white space collapsed, lower case."""
    return " ".join(question.split()).lower()


class CandidateRecord(BaseModel):
    """One generated benchmark candidate as the run database keeps it."""

    id: str = ""  # computed from question and options when empty
    run_id: str = ""  # the run that first produced it ("" for none)
    question: str
    options: dict[str, str]
    answer: str  # the proposed option letter
    answer_value: str = ""
    solution: str = ""
    meta: dict[str, Any] = Field(default_factory=dict)
    family: str | None = None
    generator: str | None = None
    duplicate_of: str | None = None  # set by the store: earliest candidate, same question_key
    created_at: float = 0.0

    @model_validator(mode="after")
    def _fill_id(self) -> CandidateRecord:
        if not self.id:
            self.id = candidate_id(self.question, self.options)
        return self

    @property
    def question_key(self) -> str:
        """The normalized question used for exact-duplicate detection."""
        return question_key(self.question)
