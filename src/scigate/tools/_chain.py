"""Running a tool chain: each step's value becomes the next tool's first required input."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from scigate.errors import BadInput
from scigate.tools._tool import Tool, ToolResult
from scigate.tools._vocabulary import canonical_type, normalise


class ChainStep(BaseModel):
    """One executed step: the tool, the arguments it got and its result."""

    tool: str
    arguments: dict[str, Any]
    result: ToolResult


class ChainResult(BaseModel):
    """Every step's result; `failed_step` names the first failing tool (None when all ran)."""

    ok: bool
    value: Any = None
    steps: list[ChainStep] = Field(default_factory=list)
    failed_step: str | None = None
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON shape: ok, value/error, failed_step and each step's uniform result."""
        return {
            "ok": self.ok,
            "value": self.value,
            "error": self.error,
            "failed_step": self.failed_step,
            "steps": [
                {"tool": s.tool, "arguments": s.arguments, "result": s.result.as_dict()}
                for s in self.steps
            ],
        }


def _first_input(t: Tool) -> tuple[str | None, str | None]:
    """(parameter name, its declared type) of the tool's first required input."""
    names = t.required_parameters or t.parameter_names
    if not names:
        return None, None
    name = names[0]
    index = t.parameter_names.index(name)
    inputs = t.spec.inputs
    type_name = inputs[index] if index < len(inputs) else (inputs[0] if inputs else None)
    return name, type_name


def pipe_value(value: Any, t: Tool) -> dict[str, Any]:
    """The arguments that feed `value` into tool `t`; a dict value contributes the field that
    matches the tool's input type (or parameter name), else its only field or 'value'."""
    param, type_name = _first_input(t)
    if param is None:
        return {}
    return {param: pick_field(value, param, type_name, t.name)}


def pick_field(value: Any, param: str, type_name: str | None, tool_name: str) -> Any:
    """The part of an upstream `value` that fills `param` (of `type_name`) of `tool_name`:
    the value itself, or the field of a dict value that matches the type or parameter name
    (else its only field or 'value'); `BadInput` when no field fits."""
    if not isinstance(value, dict):
        return value
    wanted = {normalise(param)}
    if type_name:
        wanted |= {normalise(type_name), normalise(canonical_type(type_name))}
    for key, field in value.items():
        if normalise(str(key)) in wanted or normalise(canonical_type(str(key))) in wanted:
            return field
    if len(value) == 1:
        return next(iter(value.values()))
    if "value" in value:
        return value["value"]
    raise BadInput(
        f"cannot pipe a result with fields {', '.join(map(str, value))} into {tool_name}: "
        f"none matches its input {param!r} ({type_name})"
    )


def parse_chain(spec: str | list[str]) -> list[str]:
    """Tool names from 'A,B,C' (or a list); `BadInput` when empty."""
    names = [n.strip() for n in (spec.split(",") if isinstance(spec, str) else spec)]
    names = [n for n in names if n]
    if not names:
        raise BadInput("empty tool chain; give tool names separated by commas")
    return names


def run_chain(
    chain: str | list[str],
    value: Any,
    tools: dict[str, Tool] | None = None,
    first_arguments: dict[str, Any] | None = None,
) -> ChainResult:
    """Run the tools of `chain` in order on `value`; stop at the first failure.

    `first_arguments` are extra arguments of the first step. Unknown tool names raise
    `BadInput` before anything runs.
    """
    names = parse_chain(chain)
    if tools is None:
        from scigate.tools._library import get_tool

        resolved = [get_tool(n) for n in names]
    else:
        missing = [n for n in names if n not in tools]
        if missing:
            raise BadInput(f"unknown tool(s) in chain: {', '.join(missing)}")
        resolved = [tools[n] for n in names]
    result = ChainResult(ok=True)
    current = value
    for position, t in enumerate(resolved, start=1):
        label = f"step {position} ({t.name})"
        try:
            arguments = pipe_value(current, t)
        except BadInput as exc:
            failed = ToolResult(ok=False, error=str(exc))
            result.steps.append(ChainStep(tool=t.name, arguments={}, result=failed))
            return result.model_copy(
                update={"ok": False, "failed_step": t.name, "error": f"{label}: {exc}"}
            )
        if position == 1 and first_arguments:
            arguments = {**arguments, **first_arguments}
        outcome = t.call(arguments)
        result.steps.append(ChainStep(tool=t.name, arguments=arguments, result=outcome))
        if not outcome.ok:
            return result.model_copy(
                update={"ok": False, "failed_step": t.name, "error": f"{label}: {outcome.error}"}
            )
        current = outcome.value
    result.value = current
    return result
