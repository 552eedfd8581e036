"""The six baselines of Appendix H, under the same executor and summarizer as Evo.

Every baseline sees the same open-world split: known tools with their full ontology,
unknown tools only through their sparse attributes (and only when it looks for them).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from scigate.agents._context import AgentContext
from scigate.agents._executor import conclude, execute_chain, format_steps
from scigate.agents._prompts import GAPS, PLAN, PLAN_DIRECT, REACT_SYSTEM, REFLECT
from scigate.agents._records import Task, ToolStep, Trajectory

MAX_TOOLS = 5
REACT_MAX_STEPS = 10
REFLEXION_TRIALS = 3
SCITOOLAGENT_ATTEMPTS = 3
SCITOOLAGENT_HOPS = 3
SCITOOLAGENT_LIMIT = 10


def _lines(ctx: AgentContext, names: list[str]) -> str:
    return "\n".join(f"- {ctx.space.describe(n)}" for n in names) or "(none)"


def _chain(ctx: AgentContext, reply: dict[str, Any] | None) -> tuple[list[str], list[str] | None]:
    """(the planned tools that exist, in order, each once; the whole plan as written when
    it names tools that do not exist, else None): the first runs, the second is what Tool
    Accuracy scores (`Trajectory.proposed_chain`), so a made-up name counts against it."""
    raw = (reply or {}).get("tool_chain") or []
    names = list(dict.fromkeys(str(t).strip() for t in raw)) if isinstance(raw, list) else []
    runnable = [n for n in names if n in ctx.space.tools]
    return runnable, (names if len(runnable) < len(names) else None)


def _unknown_for(ctx: AgentContext, queries: list[str]) -> list[str]:
    found: list[str] = []
    for q in queries:
        found += [n for n, _ in ctx.space.retrieve(q, k=MAX_TOOLS, among="unknown")]
    return list(dict.fromkeys(found))


async def _finish(ctx: AgentContext, task: Task, traj: Trajectory, started: float) -> Trajectory:
    traj.steps, traj.executed_ok = await execute_chain(ctx, task, traj.chain)
    return await conclude(ctx, task, traj, started)


async def run_direct(ctx: AgentContext, task: Task) -> Trajectory:
    """Direct: pick the chain from the known set (+ retrieved unknown candidates), no reasoning."""
    started = time.perf_counter()
    known = sorted(ctx.space.known)
    unknown = _unknown_for(ctx, [task.question])
    ctx.emit("candidates", request=task.question, known_all=len(known), unknown=unknown)
    reply = await ctx.ask_json(
        PLAN_DIRECT.format(
            question=task.prompt_text(),
            known_tools=_lines(ctx, known),
            unknown_tools=_lines(ctx, unknown),
        ),
        purpose="plan",
    )
    chain, proposed = _chain(ctx, reply)
    traj = Trajectory(method="direct", question=task.question, chain=chain, proposed_chain=proposed)
    ctx.emit("chain", chain=traj.chain)
    return await _finish(ctx, task, traj, started)


async def _plan_with_gaps(
    ctx: AgentContext,
    task: Task,
    traj: Trajectory,
    known: list[str],
    merge: Callable[[list[str], list[str]], str],
    started: float,
) -> Trajectory:
    """Plan over the `known` tools; for the operations they leave open, retrieve unknown
    candidates and let the model merge a chain from the prompt `merge(chain, unknown)`."""
    first = await ctx.ask_json(
        GAPS.format(question=task.prompt_text(), known_tools=_lines(ctx, known)),
        purpose="plan-known",
    )
    chain, proposed = _chain(ctx, first)
    missing = [str(m) for m in (first or {}).get("missing") or [] if str(m).strip()]
    if missing:
        unknown = _unknown_for(ctx, missing)
        ctx.emit("candidates", request="; ".join(missing), unknown=unknown)
        reply = await ctx.ask_json(merge(chain, unknown), purpose="plan-merge")
        merged, merged_proposed = _chain(ctx, reply)
        if merged or merged_proposed:  # the merge's plan is the method's final proposal
            chain, proposed = merged or chain, merged_proposed
    traj.chain, traj.proposed_chain, traj.requests = chain, proposed, missing
    ctx.emit("chain", chain=traj.chain)
    return await _finish(ctx, task, traj, started)


async def run_cot(ctx: AgentContext, task: Task) -> Trajectory:
    """CoT: reason over the known set, then over unknown candidates for the gaps, merge a chain."""
    started = time.perf_counter()

    def merge(chain: list[str], unknown: list[str]) -> str:
        return PLAN.format(
            question=task.prompt_text(),
            experience_block="",
            known_tools=_lines(ctx, chain),
            unknown_tools=_lines(ctx, unknown),
            error_block="",
        )

    traj = Trajectory(method="cot", question=task.question)
    ctx.emit("candidates", request=task.question, known_all=len(ctx.space.known))
    return await _plan_with_gaps(ctx, task, traj, sorted(ctx.space.known), merge, started)


async def run_rag(ctx: AgentContext, task: Task) -> Trajectory:
    """RAG: retrieve known candidates for the question; retrieve unknown ones for the gaps."""
    started = time.perf_counter()
    known = [n for n, _ in ctx.space.retrieve(task.question, k=2 * MAX_TOOLS)]
    ctx.emit("candidates", request=task.question, known=known)

    def merge(chain: list[str], unknown: list[str]) -> str:
        return PLAN_DIRECT.format(
            question=task.prompt_text(),
            known_tools=_lines(ctx, known),
            unknown_tools=_lines(ctx, unknown),
        )

    traj = Trajectory(method="rag", question=task.question)
    return await _plan_with_gaps(ctx, task, traj, known, merge, started)


async def run_scitoolagent(ctx: AgentContext, task: Task) -> Trajectory:
    """SciToolAgent: KG retrieval (top 5, ≤3 I/O hops, ≤10 tools), plan, execute; ≤3 attempts."""
    started = time.perf_counter()
    known = [
        n
        for n, _ in ctx.space.retrieve(
            task.question, k=MAX_TOOLS, hops=SCITOOLAGENT_HOPS, limit=SCITOOLAGENT_LIMIT
        )
    ]
    unknown = _unknown_for(ctx, [task.question])
    ctx.emit("candidates", request=task.question, known=known, unknown=unknown)
    traj = Trajectory(method="scitoolagent", question=task.question)
    error_block = ""
    for attempt in range(1, SCITOOLAGENT_ATTEMPTS + 1):
        reply = await ctx.ask_json(
            PLAN.format(
                question=task.prompt_text(),
                experience_block="",
                known_tools=_lines(ctx, known),
                unknown_tools=_lines(ctx, unknown),
                error_block=error_block,
            ),
            purpose="plan",
        )
        (traj.chain, traj.proposed_chain), traj.attempts = _chain(ctx, reply), attempt
        ctx.emit("chain", chain=traj.chain, attempt=attempt)
        traj.steps, traj.executed_ok = await execute_chain(ctx, task, traj.chain)
        if traj.executed_ok:
            break
        failed = [s for s in traj.steps if not s.ok]
        why = failed[0].error if failed else "the plan was empty"
        error_block = f"A previous plan {json.dumps(traj.chain)} failed: {why}\nPlan again.\n"
    return await conclude(ctx, task, traj, started)


# -- ReAct / Reflexion ------------------------------------------------------------------------

SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": "search_tools",
        "description": "Search all tools (known ones and unknown ones with sparse descriptions) for a capability; found tools become callable.",
        "parameters": {
            "type": "object",
            "properties": {
                "capability": {"type": "string", "description": "the capability needed"}
            },
            "required": ["capability"],
        },
    },
}


def _schema(ctx: AgentContext, name: str) -> dict[str, Any]:
    tool = ctx.space.tools[name]
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": ctx.space.describe(name),
            "parameters": tool.spec.parameters,
        },
    }


async def _react_trial(
    ctx: AgentContext, task: Task, reflections: list[str]
) -> tuple[Trajectory, str | None]:
    """One ReAct episode; returns the trajectory and a problem description (None if fine)."""
    # Bounded exposure: a retrieved top-k of the known tools (never more than the provider
    # accepts) plus search_tools, which brings in more on demand.
    limit = ctx.tool_limit()
    callable_names = [n for n, _ in ctx.space.retrieve(task.question, k=limit, among="known")]
    if not callable_names:
        callable_names = sorted(ctx.space.known)[:limit]
    system = REACT_SYSTEM
    if reflections:
        system += "\nReflections on earlier attempts:\n" + "\n".join(f"- {r}" for r in reflections)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": task.prompt_text()},
    ]
    steps: list[ToolStep] = []
    traj = Trajectory(method="react", question=task.question)
    ctx.emit("candidates", request=task.question, known=list(callable_names))
    finished = False
    attempted: list[str] = []  # every tool name the model called, made-up ones included
    for _ in range(REACT_MAX_STEPS):
        schemas = [_schema(ctx, n) for n in callable_names] + [SEARCH_TOOL]
        out = await ctx.chat(messages, purpose="react", tools=schemas)
        messages.append(out.message())
        if not out.tool_calls:
            finished = True
            break
        turn_steps: dict[str, ToolStep] = {}
        for call in out.tool_calls:
            if call.name != "search_tools":
                attempted.append(call.name)
            if call.name == "search_tools":
                capability = str(call.arguments.get("capability", task.question))
                found = [n for n, _ in ctx.space.retrieve(capability, k=MAX_TOOLS, among="known")]
                found += _unknown_for(ctx, [capability])
                # newest finds first; the oldest offered tools make room when over the limit
                callable_names = list(dict.fromkeys(found + callable_names))[:limit]
                content = "\n".join(ctx.space.describe(n) for n in found) or "no tools found"
                ctx.emit("candidates", request=call.arguments.get("capability"), unknown=found)
            elif call.name in ctx.space.tools and call.name in callable_names:
                result = ctx.space.tools[call.name].call(call.arguments)
                known = ctx.space.is_known(call.name)
                step = turn_steps.get(call.name)
                if step is None:  # calls of one tool in one turn are one step (one per entity)
                    step = turn_steps[call.name] = ToolStep(
                        tool=call.name,
                        ok=True,
                        attempts=1,
                        known=known,
                        output_types=ctx.space.io_types(call.name)[1],
                    )
                    steps.append(step)
                step.arguments.append(call.arguments)
                step.outputs.append(result.value if result.ok else {"error": result.error})
                step.displays.append(
                    result.display or "" if result.ok else f"error: {result.error}"
                )
                step.ok = step.ok and result.ok
                if not result.ok:
                    step.error = "; ".join(e for e in (step.error, result.error) if e)
                ctx.emit(
                    "tool",
                    tool=call.name,
                    arguments=call.arguments,
                    ok=result.ok,
                    output=result.display,
                    error=result.error,
                    known=known,
                    called=True,
                )
                content = json.dumps(result.as_dict(), default=str)
            else:
                error = f"no callable tool named {call.name!r}"
                ctx.emit(
                    "tool",
                    tool=call.name,
                    arguments=call.arguments,
                    ok=False,
                    called=False,
                    error=error,
                )
                content = json.dumps({"ok": False, "error": error})
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    traj.steps = steps
    # the chain scored against the reference: tools in order of first use (the reference
    # lists a tool once however many entities it processes)
    traj.chain = list(dict.fromkeys(s.tool for s in steps))
    if any(name not in ctx.space.tools for name in attempted):  # a made-up name counts
        traj.proposed_chain = list(dict.fromkeys(attempted))
    traj.executed_ok = bool(steps) and steps[-1].ok
    problem = None
    if not finished:
        problem = f"no final answer within {REACT_MAX_STEPS} steps"
    elif not steps:
        problem = "no tool was used"
    elif not steps[-1].ok:
        problem = f"the last tool call failed: {steps[-1].error}"
    return traj, problem


async def run_react(ctx: AgentContext, task: Task) -> Trajectory:
    """ReAct: Thought–Action–Observation with the library tools as function tools."""
    started = time.perf_counter()
    traj, _ = await _react_trial(ctx, task, [])
    return await conclude(ctx, task, traj, started)


async def run_reflexion(ctx: AgentContext, task: Task) -> Trajectory:
    """Reflexion: ReAct trials with a verbal self-reflection between them (≤3 trials)."""
    started = time.perf_counter()
    reflections: list[str] = []
    traj = Trajectory(method="reflexion", question=task.question)
    for trial in range(1, REFLEXION_TRIALS + 1):
        traj, problem = await _react_trial(ctx, task, reflections)
        traj.attempts = trial
        if problem is None or trial == REFLEXION_TRIALS:
            break
        out = await ctx.chat(
            REFLECT.format(
                question=task.prompt_text(),
                trajectory=f"Tools: {json.dumps(traj.chain)}\n{format_steps(traj.steps)}",
                problem=problem,
            ),
            purpose="reflect",
        )
        reflections.append((out.text or "").strip())
        ctx.emit("reflection", text=reflections[-1])
    traj.method = "reflexion"
    return await conclude(ctx, task, traj, started)


BASELINES = {
    "direct": run_direct,
    "cot": run_cot,
    "rag": run_rag,
    "react": run_react,
    "reflexion": run_reflexion,
    "scitoolagent": run_scitoolagent,
}
