"""Executing a benchmark task's reference tool path into its answer.

A task's `tool_path` runs as a typed plan (`scigate.tools.make_plan`) on each entity of
its `Parameter`. One entity: the answer is the plan's outputs. Several entities: the
task's `plan.rule` says how the answer follows from the executed values (the entity with
the largest/smallest output among those meeting constraints, or how many meet them); a
task without a rule cannot be derived. The format then turns that core answer into the
stored one: the option letter for multiple choice, True/False against `plan.claim` for a
true/false statement, the core answer itself otherwise.
"""

from __future__ import annotations

import json
import math
import operator
import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from scigate.bench._config import FORMATS  # declared with the build config
from scigate.errors import BadInput
from scigate.tools import PlanRun, ToolResult, format_value, get_tool, make_plan, run_plan

_CMP: dict[str, Callable[[Any, Any], bool]] = {
    ">": operator.gt,
    ">=": operator.ge,
    "<": operator.lt,
    "<=": operator.le,
    "==": lambda a, b: math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12),
    "!=": lambda a, b: not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12),
}
_MAX_STORED_CHARS = 4000


class Underivable(Exception):
    """The task's answer cannot be executed; the message is the one-line reason."""


class Execution(BaseModel):
    """An executed task: its stored-form answer, the core answer and the plan record."""

    answer: str
    core: str
    plan: dict[str, Any]


def task_path(raw: dict[str, Any]) -> list[str]:
    """The reference tool path of a task (`tool_path` or SciToolEval's `Standard_Toolpath`)."""
    value = raw.get("tool_path", raw.get("Standard_Toolpath"))
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",")]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise Underivable("no tool_path")
    return [v.strip() for v in value if v.strip()]


def task_entities(raw: dict[str, Any]) -> list[Any]:
    """The entities of a task's `Parameter` (an empty list when it has none)."""
    value = raw.get("Parameter", raw.get("parameter"))
    if value is None:
        return []
    if isinstance(value, list):
        return [v for v in value if v is not None and str(v).strip().lower() not in ("", "none")]
    if isinstance(value, str) and value.strip().lower() in ("", "none"):
        return []
    return [value]


def task_format(raw: dict[str, Any]) -> str:
    """The task's format (one of FORMATS); no format means multiple choice when it has
    options, else question & answer."""
    fmt = raw.get("format")
    if fmt is None:
        return "multiple choice" if raw.get("options") else "question & answer"
    text = " ".join(str(fmt).lower().replace("-", " ").split())
    aliases = {"q&a": "question & answer", "mcq": "multiple choice", "t/f": "true/false"}
    text = aliases.get(text, text)
    if text not in FORMATS:
        raise Underivable(f"unknown format {fmt!r}")
    return text


def offline_problem(path: list[str]) -> str | None:
    """Why the path cannot run here (an unknown tool, one that needs the network or a
    package that is missing), or None."""
    for name in path:
        try:
            t = get_tool(name)
        except BadInput:
            return f"unknown tool {name!r}"
        if t.spec.network:
            return f"{name} needs the network"
        if not t.available():
            return f"{name} needs {', '.join(t.spec.requires)}, which is not installed"
    return None


def same_answer(a: Any, b: Any, rel_tol: float = 1e-5) -> bool:
    """True when two answers agree: the same '; '-separated items, numbers within `rel_tol`,
    text case- and space-insensitively."""
    left, right = _items(a), _items(b)
    return len(left) == len(right) and all(
        _same_item(x, y, rel_tol) for x, y in zip(left, right, strict=True)
    )


def _items(text: Any) -> list[str]:
    return [" ".join(i.split()) for i in str(text).split(";")]


_FORMULA = re.compile(r"(?:[A-Z][a-z]?\d*)+")


def _same_item(a: str, b: str, rel_tol: float) -> bool:
    try:
        x, y = float(a), float(b)
    except ValueError:
        if a.lower() != b.lower():
            return False
        # two formulas differing in case differ: CO (carbon monoxide) is not Co (cobalt)
        return a == b or not all(_FORMULA.fullmatch(t) for t in (a, b))
    if x == 0 or y == 0:  # a computed zero may come out as float noise
        return math.isclose(x, y, rel_tol=rel_tol, abs_tol=1e-9)
    return math.isclose(x, y, rel_tol=rel_tol)


def _number(value: Any, tool: object, entity: Any) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    raise Underivable(
        f"{tool} of {str(entity)[:40]!r} is not a number ({format_value(value)[:40]})"
    )


def _output(run: PlanRun, tool: object) -> Any:
    if not isinstance(tool, str) or tool not in run.values:
        raise Underivable(f"the rule uses {tool}, which is not an output of the plan")
    return run.values[tool]


def _meets(run: PlanRun, entity: Any, constraints: list[dict[str, Any]]) -> bool:
    for c in constraints:
        cmp = _CMP.get(str(c.get("cmp")))
        if cmp is None or "output" not in c or "value" not in c:
            raise Underivable(f"malformed constraint {json.dumps(c)[:60]}")
        value = _number(_output(run, c["output"]), c["output"], entity)
        if not cmp(value, float(c["value"])):
            return False
    return True


def core_answer(entities: list[Any], runs: list[PlanRun], rule: dict[str, Any] | None) -> str:
    """The answer the executed runs give under `rule` (see the module docstring)."""
    if rule is None:
        if len(runs) != 1:
            raise Underivable(
                f"{len(entities)} parameters and no rule saying how the answer compares them"
            )
        return runs[0].answer() or ""
    op = rule.get("op")
    constraints = rule.get("constraints") or []
    meeting = [(e, r) for e, r in zip(entities, runs, strict=True) if _meets(r, e, constraints)]
    if op == "count":
        return str(len(meeting))
    if op in ("max", "min"):
        if not meeting:
            raise Underivable("no parameter meets the constraints")
        tool = rule.get("output")
        scored = [(_number(_output(r, tool), tool, e), str(e)) for e, r in meeting]
        best = max(v for v, _ in scored) if op == "max" else min(v for v, _ in scored)
        winners = [e for v, e in scored if math.isclose(v, best, rel_tol=1e-9, abs_tol=1e-12)]
        if len(winners) != 1:
            raise Underivable(f"{len(winners)} parameters tie for the {op} of {tool}")
        return winners[0]
    if op == "value":
        if len(runs) != 1:
            raise Underivable("a 'value' rule needs exactly one parameter")
        return format_value(_output(runs[0], rule.get("output")))
    raise Underivable(f"unknown rule op {op!r}")


def formatted_answer(raw: dict[str, Any], core: str, claim: Any) -> str:
    """The core answer in the task's format: option letter, True/False or itself."""
    fmt = task_format(raw)
    if fmt == "multiple choice":
        options = raw.get("options")
        if not isinstance(options, dict) or not options:
            raise Underivable("a multiple-choice task without options")
        letters = [k for k, v in options.items() if same_answer(v, core)]
        if len(letters) != 1:
            shown = core[:40]
            raise Underivable(f"{len(letters)} options equal the executed answer {shown!r}")
        return str(letters[0])
    if fmt == "true/false":
        if claim is None:
            raise Underivable("a true/false task without the claimed value (plan.claim)")
        return "True" if same_answer(claim, core) else "False"
    return core


def _stored(value: Any) -> Any:
    text = json.dumps(value, default=str)
    return value if len(text) <= _MAX_STORED_CHARS else {"truncated": format_value(value)[:200]}


def execute_task(
    raw: dict[str, Any], cache: dict[str, ToolResult] | None = None, offline_only: bool = True
) -> Execution:
    """Execute a task's reference path into its answer and executed-plan record;
    `Underivable` (one-line reason) when it cannot."""
    path = task_path(raw)
    if offline_only:
        problem = offline_problem(path)
        if problem:
            raise Underivable(problem)
    record = field if isinstance(field := raw.get("plan"), dict) else {}
    given = record.get("given") or {}
    rule = record.get("rule")
    try:
        plan = make_plan(path, given=given)
    except BadInput as exc:
        raise Underivable(str(exc)) from None
    entities = task_entities(raw)
    if not entities and any(b.source == "entity" for s in plan.steps for b in s.bindings):
        raise Underivable(f"no Parameter, but step 1 ({plan.steps[0].tool}) needs an input")
    runs = [run_plan(plan, e, cache=cache) for e in (entities or [None])]
    for entity, run in zip(entities or [None], runs, strict=True):
        if not run.ok:
            raise Underivable(f"{str(entity)[:40]!r}: {run.error}")
    core = core_answer(entities, runs, rule)
    answer = formatted_answer(raw, core, record.get("claim"))
    executed = {
        "tool_path": path,
        "tools": [s.tool for s in plan.steps],
        "entity_type": plan.entity_type,
        "edges": [list(e) for e in plan.edges()],
        "outputs": [plan.steps[i - 1].tool for i in plan.outputs],
        "given": given,
        "rule": rule,
        "runs": [
            {
                "entity": run.entity,
                "values": {k: _stored(v) for k, v in run.values.items()},
                "steps": [
                    {"tool": s.tool, "display": (s.result.display or "")[:200]} for s in run.steps
                ],
            }
            for run in runs
        ],
    }
    if "claim" in record:
        executed["claim"] = record["claim"]
    return Execution(answer=answer, core=core, plan=executed)
