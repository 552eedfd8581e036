"""The shared executor and summarizer every method uses.

The executor runs a tool chain step by step: for each tool the model extracts the
arguments (the task, the tool's schema and every earlier output in view), the tool runs
for real, and a failing step is retried with the error shown, up to `max_retries` times.
The summarizer answers the question from the tool results.
"""

from __future__ import annotations

import json
import time
from typing import Any

from scigate.agents._context import AgentContext
from scigate.agents._parse import final_answer
from scigate.agents._prompts import ARGUMENTS, SUMMARY
from scigate.agents._records import Task, ToolStep, Trajectory
from scigate.agents._toolrun import LOCAL

MAX_RETRIES = 2
_VALUE_CHARS = 1500


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= _VALUE_CHARS else text[:_VALUE_CHARS] + " ...(truncated)"


def format_steps(steps: list[ToolStep]) -> str:
    """Earlier steps as prompt lines: tool, output types, arguments and outputs."""
    if not steps:
        return "(none)"
    lines = []
    for i, s in enumerate(steps, 1):
        if not s.ok and not s.outputs:
            lines.append(f"{i}. {s.tool} failed: {s.error}")
            continue
        pairs = [
            f"{json.dumps(a, default=str)} -> {_short(o)}"
            for a, o in zip(s.arguments, s.outputs, strict=False)
        ]
        kind = f" (output: {', '.join(s.output_types)})" if s.output_types else ""
        lines.append(f"{i}. {s.tool}{kind}: " + " ; ".join(pairs))
    return "\n".join(lines)


def _calls_from(reply: dict[str, Any] | None) -> list[dict[str, Any]]:
    if not reply:
        return []
    calls = reply.get("calls")
    if isinstance(calls, list):
        return [c for c in calls if isinstance(c, dict)]
    if isinstance(calls, dict):
        return [calls]
    args = reply.get("arguments")
    if isinstance(args, dict):
        return [args]
    return [reply]


async def run_step(
    ctx: AgentContext,
    task: Task,
    name: str,
    previous: list[ToolStep],
    *,
    max_retries: int = MAX_RETRIES,
) -> ToolStep:
    """Run one tool of a chain with model-extracted arguments; retries failed calls."""
    space = ctx.space
    known = space.is_known(name)
    if name not in space.tools:
        step = ToolStep(tool=name, ok=False, error=f"no tool named {name!r}", known=known)
        ctx.emit("tool", tool=name, ok=False, called=False, error=step.error, known=known)
        return step
    tool = space.tools[name]
    inputs, outputs = space.io_types(name)
    error_block = ""
    step = ToolStep(tool=name, known=known, output_types=outputs)
    for attempt in range(max_retries + 1):
        prompt = ARGUMENTS.format(
            question=task.prompt_text(),
            tool=name,
            description=space.describe(name),
            inputs=", ".join(inputs),
            schema=json.dumps(tool.spec.parameters),
            previous=format_steps(previous),
            error_block=error_block,
        )
        reply = await ctx.ask_json(prompt, purpose=f"arguments:{name}")
        calls = _calls_from(reply)
        step.attempts = attempt + 1
        if not calls:
            step.error = "argument extraction failed: the model gave no usable arguments"
            ctx.emit(
                "tool",
                tool=name,
                ok=False,
                called=False,
                error=step.error,
                known=known,
                attempt=attempt + 1,
            )
        else:
            results = await (ctx.tool_runner or LOCAL).run(tool, calls)
            errors = [r.error for r in results if not r.ok]
            step.arguments = calls
            step.outputs = [r.value if r.ok else {"error": r.error} for r in results]
            step.displays = [r.display or "" if r.ok else f"error: {r.error}" for r in results]
            step.ok = not errors
            step.error = "; ".join(e or "" for e in errors) or None
            for c, r in zip(calls, results, strict=True):
                ctx.emit(
                    "tool",
                    tool=name,
                    arguments=c,
                    ok=r.ok,
                    output=r.display if r.ok else None,
                    error=r.error,
                    known=known,
                    called=True,
                    attempt=attempt + 1,
                )
        if step.ok:
            return step
        error_block = f"Previous attempt failed: {step.error}\nFix the arguments.\n"
    return step


async def execute_chain(
    ctx: AgentContext, task: Task, chain: list[str], *, max_retries: int = MAX_RETRIES
) -> tuple[list[ToolStep], bool]:
    """Run the chain in order; returns the steps and whether every step succeeded."""
    steps: list[ToolStep] = []
    for name in chain:
        steps.append(await run_step(ctx, task, name, steps, max_retries=max_retries))
    return steps, bool(steps) and all(s.ok for s in steps)


async def summarize(ctx: AgentContext, task: Task, steps: list[ToolStep]) -> str | None:
    """The final answer from the tool results (one model call)."""
    out = await ctx.chat(
        SUMMARY.format(question=task.prompt_text(), results=format_steps(steps)),
        purpose="summary",
    )
    answer = final_answer(out.text)
    ctx.emit("answer", answer=answer)
    return answer


async def conclude(ctx: AgentContext, task: Task, traj: Trajectory, started: float) -> Trajectory:
    """Answer from the trajectory's steps, then record its usage, events and wall time."""
    traj.answer = await summarize(ctx, task, traj.steps)
    traj.usage, traj.events = ctx.usage, ctx.events
    traj.wall_seconds = time.perf_counter() - started
    return traj
