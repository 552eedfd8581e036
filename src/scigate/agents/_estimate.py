"""What an evaluation is expected to cost before it runs (`agent eval --estimate`).

Calls = tasks x runs x calls per task (plus, for Evo with a training set, the accumulation's
tasks x runs x calls per task), tokens = calls x mean tokens per call, cost = those tokens
at the model's list price. Each figure says where it comes from: measured from the run
database given (the earlier evaluations of the same method: their calls per task and
mean tokens per call), else the defaults below. The defaults are assumptions stated for
planning, not measurements: Evo's 11 calls per task is the SciToolAgent-Evo paper's
figure; the other methods' follow from their loops (one call for the single-shot methods,
a few tool rounds for the tool-using ones). A judge's calls are not included (it is asked
only for the answers the rules cannot decide).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

#: calls per task by method, when no earlier evaluation of the method is measured
DEFAULT_CALLS_PER_TASK = {
    "direct": 1.0,
    "cot": 1.0,
    "rag": 1.0,
    "react": 6.0,
    "reflexion": 10.0,
    "scitoolagent": 6.0,
    "evo": 11.0,
}
#: tokens per call when none is measured: a system prompt, the task, tool schemas and a
#: few tool results in, a short reasoning and answer out
DEFAULT_INPUT_TOKENS = 3_000
DEFAULT_OUTPUT_TOKENS = 400


@dataclass
class Estimate:
    """The expected calls, tokens and USD of an evaluation, with the source of each."""

    model: str
    method: str
    tasks: int
    runs: int
    train_tasks: int
    calls_per_task: float
    input_tokens_per_call: float
    output_tokens_per_call: float
    source: str  # "measured: ..." or "defaults"
    calls: float
    input_tokens: float
    output_tokens: float
    cost: float | None  # None: the model has no price

    def record(self) -> dict[str, Any]:
        """As JSON-ready data."""
        return asdict(self)


def measured_calls(db: Path | None, method: str) -> dict[str, Any] | None:
    """Calls, tokens and tasks of the earlier evaluations of `method` in the run database
    `db` (read only; None when it does not exist or holds none)."""
    if db is None or not Path(db).exists():
        return None
    from scigate.store import Store

    with Store(db, create=False, readonly=True) as store:
        return store.method_calls(method)


def estimate_eval(
    model: str,
    method: str,
    tasks: int,
    runs: int,
    train_tasks: int = 0,
    measured: dict[str, Any] | None = None,
) -> Estimate:
    """The estimate for `method` over `tasks` x `runs` (plus `train_tasks` x `runs`
    accumulation tasks for Evo); `measured` (calls_per_task, input/output tokens per call,
    calls, tasks) from earlier evaluations replaces the defaults."""
    from scigate.llm import Usage as TokenUsage
    from scigate.llm import estimate_cost, parse_spec

    if measured and measured.get("tasks"):
        per_task = float(measured["calls"]) / measured["tasks"]
        calls_n = max(1, int(measured["calls"]))
        tokens_in = float(measured["input_tokens"]) / calls_n
        tokens_out = float(measured["output_tokens"]) / calls_n
        source = (
            f"measured: {measured['calls']} calls over {measured['tasks']} earlier {method} "
            "tasks in the run database"
        )
    else:
        per_task = DEFAULT_CALLS_PER_TASK.get(method, 6.0)
        tokens_in, tokens_out = float(DEFAULT_INPUT_TOKENS), float(DEFAULT_OUTPUT_TOKENS)
        source = "defaults (no earlier evaluation of this method measured)"
    units = tasks * runs + (train_tasks * runs if method == "evo" else 0)
    calls = units * per_task
    spec = parse_spec(model)
    unit_cost = estimate_cost(
        f"{spec.provider}/{spec.model}",
        TokenUsage(input_tokens=round(tokens_in), output_tokens=round(tokens_out)),
    )
    return Estimate(
        model=model,
        method=method,
        tasks=tasks,
        runs=runs,
        train_tasks=train_tasks,
        calls_per_task=per_task,
        input_tokens_per_call=tokens_in,
        output_tokens_per_call=tokens_out,
        source=source,
        calls=calls,
        input_tokens=calls * tokens_in,
        output_tokens=calls * tokens_out,
        cost=None if unit_cost is None else unit_cost * calls,
    )
