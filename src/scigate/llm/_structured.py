"""Structured answers: a JSON reply validated against a pydantic type, with one re-ask."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from scigate.llm._model import Model
from scigate.llm._types import ModelOutput, Usage

_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)
_MAX_ERRORS = 5


class StructuredResult[T](BaseModel):
    """The parsed value (or None), every model output it took, and what went wrong."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    value: T | None = None
    outputs: list[ModelOutput] = Field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def usage(self) -> Usage:
        total = Usage()
        for output in self.outputs:
            total = total + output.usage
        return total

    @property
    def cost(self) -> float | None:
        costs = [o.cost for o in self.outputs]
        return None if any(c is None for c in costs) else sum(c for c in costs if c is not None)


def extract_json(text: str) -> Any:
    """The JSON value in `text`: the whole text, a fenced block, or the first object/array
    in surrounding prose. Raises ValueError if there is none."""
    stripped = text.strip()
    try:
        return json.loads(stripped)
    except json.JSONDecodeError:
        pass
    for block in _FENCE.findall(text):
        try:
            return json.loads(block.strip())
        except json.JSONDecodeError:
            continue
    decoder = json.JSONDecoder()
    for i, char in enumerate(text):
        if char in "{[":
            try:
                value, _ = decoder.raw_decode(text, i)
            except json.JSONDecodeError:
                continue
            return value
    raise ValueError("the answer contains no JSON value")


def _describe(error: ValidationError) -> str:
    problems = []
    for item in error.errors()[:_MAX_ERRORS]:
        where = ".".join(str(part) for part in item["loc"]) or "the value"
        problems.append(f"{where}: {item['msg']}")
    more = error.error_count() - _MAX_ERRORS
    if more > 0:
        problems.append(f"and {more} more")
    return "; ".join(problems)


def parse_structured(text: str | None, adapter: TypeAdapter) -> tuple[Any, str | None]:
    """(value, None) if `text` holds JSON valid for `adapter`, else (None, the problem)."""
    if not text or not text.strip():
        return None, "the answer was empty (expected a JSON value)"
    try:
        data = extract_json(text)
    except ValueError as exc:
        return None, str(exc)
    try:
        return adapter.validate_python(data), None
    except ValidationError as exc:
        return None, f"the JSON does not match the schema: {_describe(exc)}"


def _instruction(adapter: TypeAdapter) -> str:
    schema = json.dumps(adapter.json_schema(), separators=(",", ":"))
    return (
        "Answer with a single JSON value that matches this JSON Schema "
        f"(no other text is needed): {schema}"
    )


def _with_instruction(messages: list[dict[str, Any]], instruction: str) -> list[dict[str, Any]]:
    messages = list(messages)
    if (
        messages
        and messages[0].get("role") == "system"
        and isinstance(messages[0].get("content"), str)
    ):
        first = messages[0]
        messages[0] = {**first, "content": f"{first['content']}\n\n{instruction}"}
    else:
        messages.insert(0, {"role": "system", "content": instruction})
    return messages


async def generate_structured[T](
    model: Model, messages: list[dict[str, Any]], schema: type[T], **settings: Any
) -> StructuredResult[T]:
    """Ask `model` for a JSON answer valid against `schema` (a pydantic model or any type
    pydantic can validate). On a malformed answer, ask again once, saying what was wrong."""
    adapter = TypeAdapter(schema)
    result: Any = StructuredResult[schema]  # type: ignore[valid-type]  # parametrised at run time
    conversation = _with_instruction(messages, _instruction(adapter))
    outputs: list[ModelOutput] = []

    output = await model.generate(conversation, **settings)
    outputs.append(output)
    value, problem = parse_structured(output.text, adapter)
    if problem is None:
        return result(value=value, outputs=outputs)

    conversation = [
        *conversation,
        {"role": "assistant", "content": output.text or ""},
        {
            "role": "user",
            "content": f"Your answer could not be used: {problem}. "
            "Reply again with only the JSON value, matching the schema.",
        },
    ]
    output = await model.generate(conversation, **settings)
    outputs.append(output)
    value, second = parse_structured(output.text, adapter)
    if second is None:
        return result(value=value, outputs=outputs)
    return result(value=None, outputs=outputs, error=f"no valid answer after one re-ask: {second}")
