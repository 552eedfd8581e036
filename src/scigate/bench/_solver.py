"""`bench build --solver`: a tool-using agent of this project must solve each built task.

The agent (a baseline method, ReAct by default) sees every library tool as known and
answers the task as `agent eval` would ask it; its answer is scored strictly by the rules
of `score_answer` against the executed answer, in the task's format. Only a solved task
goes on: a wrong answer rejects it, an answer the rules cannot decide is `unjudged` and a
failed model or tool call is `error`, neither of them ever accepted.
"""

from __future__ import annotations

from typing import Any

from scigate.agents import (
    BASELINES,
    AgentContext,
    ModelLike,
    Task,
    ToolSpace,
    library_tools,
    score_answer,
)
from scigate.bench._compose import Rejected
from scigate.bench._judge import Unjudged
from scigate.errors import BadInput

SOLVER_METHODS = tuple(BASELINES)  # every baseline; evo (which learns) is left out


def check_solver_method(method: str) -> str:
    """The method name, or BadInput listing the methods a solver may use."""
    if method not in SOLVER_METHODS:
        raise BadInput(
            f"unknown --solver-method {method!r}; expected one of {', '.join(SOLVER_METHODS)}"
        )
    return method


def solver_space() -> ToolSpace:
    """The solver's tools: the offline library, every tool known (it validates tasks, it
    is not the open-world evaluation)."""
    from scigate.tools import make_embedder

    tools = library_tools()
    return ToolSpace(tools, list(tools), embedder=make_embedder("hashing"))


def agent_task(task: dict[str, Any]) -> Task:
    """A built task as the agents see it (the executed answer is only for scoring)."""
    answer = task.get("answer")
    if answer is None:  # SciToolEval's answer files name it `final_answer`
        answer = task.get("final_answer")
    return Task(
        question=task["question"],
        tool_path=task["tool_path"],
        parameter=task.get("Parameter"),
        answer=None if answer is None else str(answer),
        options=task.get("options"),
        level=task.get("level"),
        domain=task.get("domain"),
        format=task.get("format"),
    )


async def solve_task(
    model: ModelLike, space: ToolSpace, task: dict[str, Any], method: str = "react"
) -> dict[str, Any]:
    """Run the solver on `task`: its record (answer, chain, calls) when it is solved;
    `Rejected` when the answer is wrong; `Unjudged` ("unjudged"/"error") otherwise. The
    exception carries the record as `.record`."""
    ctx = AgentContext(model=model, space=space, temperature=0.0)
    item = agent_task(task)
    record: dict[str, Any] = {"method": method, "answer": None, "chain": [], "calls": 0}
    try:
        traj = await BASELINES[check_solver_method(method)](ctx, item)
    except BadInput:
        raise
    except Exception as exc:  # a failed model or tool call decides nothing about the task
        record["calls"] = ctx.usage.calls
        raise _carrying(
            Unjudged("error", f"solver failed: {type(exc).__name__}: {exc}"), record
        ) from None
    record.update(answer=traj.answer, chain=traj.chain, calls=traj.usage.calls)
    if traj.error:
        raise _carrying(Unjudged("error", f"solver failed: {traj.error}"), record)
    verdict = score_answer(traj.answer, item.answer, item)
    record["verdict"] = verdict.model_dump()
    shown = (traj.answer or "")[:200]
    if verdict.outcome == "correct":
        return record
    if verdict.outcome == "wrong":
        raise _carrying(
            Rejected(f"wrong answer {shown!r} (executed: {item.answer!r}; {verdict.reason})"),
            record,
        )
    raise _carrying(
        Unjudged(
            "unjudged",
            f"the rules cannot decide answer {shown!r} against {item.answer!r} ({verdict.reason})",
        ),
        record,
    )


def _carrying(exc: Rejected, record: dict[str, Any]) -> Rejected:
    exc.record = record  # type: ignore[attr-defined]
    return exc


__all__ = ["SOLVER_METHODS", "agent_task", "check_solver_method", "solve_task", "solver_space"]
