"""A tool path run as a typed plan: a small DAG bound by the ontology's I/O types.

`make_plan(["NameToSMILES", "GetMolFormula", "GetHeavyAtomsNum"])` binds every required,
typed input of every step either to the latest earlier step that outputs that type or to
the entity (the task's `Parameter`), whose type is the first step's input type. So a path
that applies several tools to one molecule fans out from the entity (or from the step
that made the SMILES) instead of piping a formula into a SMILES argument, and a path
whose types do not connect fails before anything runs, with a message naming the step
and the types. `run_plan` executes the steps in order; steps whose outputs no later step
consumes are the plan's outputs (its answer).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field

from scigate.errors import BadInput
from scigate.tools._chain import parse_chain, pick_field
from scigate.tools._tool import Tool, ToolResult, format_value
from scigate.tools._vocabulary import VOCABULARY, canonical_type, parameter_types

ENTITY = "entity"

# A consumer type -> the narrower producer types it also accepts.
_ACCEPTS: dict[str, set[str]] = {
    "DNA/RNA sequence": {"DNA sequence", "RNA sequence"},
    "One or more sequences": {"DNA sequence", "RNA sequence", "DNA/RNA sequence"},
}


def type_accepts(consumer: str, producer: str) -> bool:
    """True when a value of type `producer` can fill an input of type `consumer`."""
    want, have = canonical_type(consumer), canonical_type(producer)
    return want == have or have in {canonical_type(t) for t in _ACCEPTS.get(want, ())}


class Binding(BaseModel):
    """Where one argument of a step comes from: the entity, an earlier step, or a constant."""

    parameter: str
    type: str | None = None
    source: str  # "entity", "step N" or "given"
    value: Any = None  # the constant, for source "given"

    def describe(self) -> str:
        """'smiles (SMILES) <- step 1' style text."""
        kind = f" ({self.type})" if self.type else ""
        return f"{self.parameter}{kind} <- {self.source}"


class PlanStep(BaseModel):
    """One planned step: the tool (as asked and as resolved) and its argument bindings."""

    index: int
    tool: str
    requested: str
    inputs: list[str]
    outputs: list[str]
    bindings: list[Binding] = Field(default_factory=list)


class Plan(BaseModel):
    """A typed tool path: its steps, the entity type and the output (sink) steps."""

    entity_type: str | None
    steps: list[PlanStep]
    outputs: list[int]  # indexes of the steps no later step consumes

    def edges(self) -> list[tuple[str, str]]:
        """(source, 'step N') pairs of the DAG; the source is 'entity' or 'step M'."""
        return [
            (b.source, f"step {s.index}")
            for s in self.steps
            for b in s.bindings
            if b.source != "given"
        ]

    def describe(self) -> list[str]:
        """One line per step: tool and where each argument comes from."""
        lines = []
        for s in self.steps:
            bound = ", ".join(b.describe() for b in s.bindings) or "no arguments"
            mark = " [output]" if s.index in self.outputs else ""
            lines.append(f"{s.index}. {s.tool}({bound}){mark}")
        return lines


class StepRun(BaseModel):
    """One executed step."""

    index: int
    tool: str
    arguments: dict[str, Any]
    result: ToolResult


class PlanRun(BaseModel):
    """The executed plan: every step's result and the output values (None when it failed)."""

    ok: bool
    entity: Any = None
    plan: Plan
    steps: list[StepRun] = Field(default_factory=list)
    values: dict[str, Any] = Field(default_factory=dict)  # output tool -> value
    failed_step: int | None = None
    error: str | None = None

    @property
    def value(self) -> Any:
        """The single output's value, or a tool -> value dict when several steps are outputs."""
        if not self.ok:
            return None
        return next(iter(self.values.values())) if len(self.values) == 1 else dict(self.values)

    def answer(self) -> str | None:
        """The outputs as answer text: each output's display, joined by '; ' (None if failed)."""
        if not self.ok:
            return None
        return "; ".join(format_value(v) for v in self.values.values())

    def as_dict(self) -> dict[str, Any]:
        """JSON shape: ok, answer, value, error, the plan's edges and every step's result."""
        return {
            "ok": self.ok,
            "entity": self.entity,
            "answer": self.answer(),
            "value": self.value,
            "error": self.error,
            "failed_step": self.failed_step,
            "entity_type": self.plan.entity_type,
            "outputs": [self.plan.steps[i - 1].tool for i in self.plan.outputs],
            "steps": [
                {
                    "index": s.index,
                    "tool": s.tool,
                    "bindings": {
                        b.parameter: b.source for b in self.plan.steps[s.index - 1].bindings
                    },
                    "arguments": s.arguments,
                    "result": s.result.as_dict(),
                }
                for s in self.steps
            ],
        }


def _resolve(names: list[str], tools: dict[str, Tool] | None) -> list[Tool]:
    if tools is None:
        from scigate.tools._library import get_tool

        return [get_tool(n) for n in names]
    missing = [n for n in names if n not in tools]
    if missing:
        raise BadInput(f"unknown tool(s) in plan: {', '.join(missing)}")
    return [tools[n] for n in names]


def _typed_parameters(t: Tool) -> list[tuple[str, str | None]]:
    """(parameter, declared type) of every required parameter, in order."""
    types = parameter_types(t)
    required = t.required_parameters
    return [(p, types.get(p)) for p in required]


def _latest_producer(steps: list[PlanStep], type_name: str) -> PlanStep | None:
    for step in reversed(steps):
        if any(type_accepts(type_name, out) for out in step.outputs):
            return step
    return None


def make_plan(
    path: str | list[str],
    tools: dict[str, Tool] | None = None,
    entity_type: str | None = None,
    given: dict[str, dict[str, Any]] | None = None,
) -> Plan:
    """Bind a tool path into a typed plan; `BadInput` naming the step and types if it cannot.

    `entity_type` defaults to the first step's first input type; `given` holds constant
    arguments per tool name (e.g. a SMARTS pattern), which are bound before any type.
    """
    names = parse_chain(path)
    resolved = _resolve(names, tools)
    given = given or {}
    first_params = _typed_parameters(resolved[0])
    if entity_type is None and first_params:
        entity_type = first_params[0][1]
    steps: list[PlanStep] = []
    for index, (requested, t) in enumerate(zip(names, resolved, strict=True), start=1):
        step = PlanStep(
            index=index,
            tool=t.name,
            requested=requested,
            inputs=list(t.spec.inputs),
            outputs=list(t.spec.outputs),
        )
        constants = {**given.get(requested, {}), **given.get(t.name, {})}
        entity_used = False
        for param, type_name in _typed_parameters(t):
            if param in constants:
                step.bindings.append(
                    Binding(parameter=param, type=type_name, source="given", value=constants[param])
                )
                continue
            producer = _latest_producer(steps, type_name) if type_name else None
            if producer is not None:
                source = f"step {producer.index}"
            elif not entity_used and (
                type_name is None or entity_type is None or type_accepts(type_name, entity_type)
            ):
                source, entity_used = ENTITY, True
            else:
                raise BadInput(_mismatch(step, param, type_name, entity_type, steps))
            step.bindings.append(Binding(parameter=param, type=type_name, source=source))
        for param, value in constants.items():
            if all(b.parameter != param for b in step.bindings):
                step.bindings.append(Binding(parameter=param, source="given", value=value))
        steps.append(step)
    consumed = {
        int(b.source.split()[1]) for s in steps for b in s.bindings if b.source[:5] == "step "
    }
    outputs = [s.index for s in steps if s.index not in consumed]
    return Plan(entity_type=entity_type, steps=steps, outputs=outputs)


def _mismatch(
    step: PlanStep,
    param: str,
    type_name: str | None,
    entity_type: str | None,
    earlier: list[PlanStep],
) -> str:
    made = "; ".join(f"step {s.index} {s.tool} -> {', '.join(s.outputs)}" for s in earlier)
    return (
        f"step {step.index} ({step.tool}) needs {param!r} of type {type_name}, but the entity "
        f"is {entity_type or 'untyped'} and no earlier step outputs {type_name}"
        + (f" ({made})" if made else "")
    )


def _check_entity(plan: Plan, entity: Any) -> str | None:
    if plan.entity_type is None:
        return None
    term = VOCABULARY.get(plan.entity_type)
    if term is None or entity is None:
        return None
    problem = term.validate(entity)
    if problem is None:
        return None
    users = [s for s in plan.steps if any(b.source == ENTITY for b in s.bindings)]
    first = users[0] if users else plan.steps[0]
    return (
        f"step {first.index} ({first.tool}) takes the entity as {plan.entity_type}, "
        f"but {str(entity)[:60]!r} is not one: {problem}"
    )


def _cache_key(tool: str, arguments: dict[str, Any]) -> str:
    return tool + "\x00" + json.dumps(arguments, sort_keys=True, default=str)


def run_plan(
    plan: Plan,
    entity: Any,
    tools: dict[str, Tool] | None = None,
    cache: dict[str, ToolResult] | None = None,
) -> PlanRun:
    """Execute `plan` on `entity`, step by step; stop at the first failing step.

    `cache` (tool + arguments -> result) lets many tasks share identical calls; leave it
    out when every call must really run (e.g. to check an answer is reproducible).
    """
    resolved = _resolve([s.tool for s in plan.steps], tools)
    run = PlanRun(ok=True, entity=entity, plan=plan)
    problem = _check_entity(plan, entity)
    if problem:
        first = next((s for s in plan.steps if any(b.source == ENTITY for b in s.bindings)), None)
        run.failed_step = first.index if first else 1
        return run.model_copy(update={"ok": False, "error": problem})
    produced: dict[int, Any] = {}
    for step, t in zip(plan.steps, resolved, strict=True):
        arguments: dict[str, Any] = {}
        for b in step.bindings:
            if b.source == ENTITY:
                arguments[b.parameter] = entity
            elif b.source == "given":
                arguments[b.parameter] = b.value
            else:
                upstream = produced[int(b.source.split()[1])]
                try:
                    arguments[b.parameter] = pick_field(upstream, b.parameter, b.type, t.name)
                except BadInput as exc:
                    return _failed(run, step, {}, ToolResult(ok=False, error=str(exc)))
        key = _cache_key(t.name, arguments)
        outcome = cache.get(key) if cache is not None else None
        if outcome is None:
            outcome = t.call(arguments)
            if cache is not None:
                cache[key] = outcome
        if not outcome.ok:
            return _failed(run, step, arguments, outcome)
        run.steps.append(
            StepRun(index=step.index, tool=t.name, arguments=arguments, result=outcome)
        )
        produced[step.index] = outcome.value
    run.values = {_output_key(plan, i): produced[i] for i in plan.outputs}
    return run


def _output_key(plan: Plan, index: int) -> str:
    tool = plan.steps[index - 1].tool
    repeats = sum(1 for s in plan.steps if s.tool == tool)
    return tool if repeats == 1 else f"{tool}#{index}"


def _failed(
    run: PlanRun, step: PlanStep, arguments: dict[str, Any], outcome: ToolResult
) -> PlanRun:
    run.steps.append(StepRun(index=step.index, tool=step.tool, arguments=arguments, result=outcome))
    return run.model_copy(
        update={
            "ok": False,
            "failed_step": step.index,
            "error": f"step {step.index} ({step.tool}): {outcome.error}",
        }
    )
