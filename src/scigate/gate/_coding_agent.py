"""The built-in coding agent: a model with `run_python`, `run_bash` and `submit`.

Used by the ToolGate generator and the tool-enabled solver. Every tool call runs in the
sandbox, in the episode's workspace (files persist between calls); the whole episode has
a wall-clock limit, a step limit and a token limit.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from scigate.llm import Usage

TOOL_SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "run_python",
            "description": (
                "Run Python code in a fresh process in the workspace, with the domain's "
                "software installed. Returns the exit code, stdout and stderr. Files you "
                "write persist between calls."
            ),
            "parameters": {
                "type": "object",
                "properties": {"code": {"type": "string", "description": "Python source"}},
                "required": ["code"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "run_bash",
            "description": (
                "Run a shell command in the workspace. Returns the exit code, stdout and stderr."
            ),
            "parameters": {
                "type": "object",
                "properties": {"command": {"type": "string"}},
                "required": ["command"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "submit",
            "description": "End the episode with your final answer.",
            "parameters": {
                "type": "object",
                "properties": {"answer": {"type": "string"}},
                "required": ["answer"],
            },
        },
    },
]

MAX_TOOL_TEXT = 8000  # characters of each stream shown back to the model


class AgentLimits(BaseModel):
    """Budgets of one episode."""

    wall_seconds: float = 300.0
    max_steps: int = 40
    max_tokens: int | None = 500_000  # input + output tokens over the whole episode
    tool_seconds: float = 300.0  # cap of one tool call (also bounded by the time left)
    memory_bytes: int | None = None
    preload: tuple[str, ...] = ()  # run_python forks from a warm server with these imported


class Step(BaseModel):
    """One tool call of the episode."""

    index: int
    tool: str
    arguments: dict[str, Any]
    output: str
    seconds: float


class Episode(BaseModel):
    """What happened in one agent episode."""

    answer: str | None = None
    reason: str = ""
    steps: list[Step] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    cost: float | None = None
    model_calls: int = 0
    seconds: float = 0.0  # working time: wall time less the model calls' queueing
    queued_seconds: float = 0.0  # waits for a free endpoint slot (not work)
    messages: list[dict[str, Any]] = Field(default_factory=list)


async def run_episode(
    model: Any,
    *,
    workspace: Path,
    system: str,
    user: str,
    limits: AgentLimits | None = None,
    python: str | None = None,
    settings: dict[str, Any] | None = None,
    forms_scope: str | None = None,
) -> Episode:
    """Let `model` work in `workspace` with the three tools until it submits or a limit
    hits. Its runs share compiled forms with each other and with runs given the same
    `forms_scope` (default: a new one, so with no others)."""
    limits = limits or AgentLimits()
    started = time.monotonic()
    deadline = started + limits.wall_seconds
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {"role": "user", "content": user},
    ]
    ep = Episode(messages=messages)
    nudged = False
    costs: list[float | None] = []

    def finish(reason: str, answer: str | None = None) -> Episode:
        ep.reason = reason
        ep.answer = answer
        ep.seconds = round(max(0.0, time.monotonic() - started - ep.queued_seconds), 3)
        ep.cost = None if any(c is None for c in costs) or not costs else round(sum(costs), 6)  # type: ignore[arg-type]
        return ep

    from scigate.sandbox import new_forms_scope

    scope = forms_scope or new_forms_scope()
    identity = _identity(workspace)
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return finish(f"timeout: no answer within {limits.wall_seconds:g} s")
        if _identity(workspace) != identity:
            return finish("error: the workspace was replaced during the episode")
        if len(ep.steps) >= limits.max_steps:
            return finish(f"step limit: no answer after {limits.max_steps} tool calls")
        if limits.max_tokens is not None and ep.usage.total_tokens >= limits.max_tokens:
            return finish(f"token limit: {ep.usage.total_tokens} tokens used without an answer")
        try:
            out = await asyncio.wait_for(
                model.generate(messages, tools=TOOL_SCHEMAS, **(settings or {})), timeout=remaining
            )
        except TimeoutError:
            return finish(f"timeout: no answer within {limits.wall_seconds:g} s")
        except Exception as exc:
            return finish(f"model error: {type(exc).__name__}: {exc}")
        ep.model_calls += 1
        ep.queued_seconds += getattr(out, "queued", 0.0)
        ep.usage = ep.usage + out.usage
        costs.append(out.cost)
        messages.append(out.message())
        if not out.tool_calls:
            if nudged:
                return finish("no answer: the model stopped without calling submit")
            nudged = True
            messages.append(
                {
                    "role": "user",
                    "content": "Use the tools to work, and call submit with your final answer.",
                }
            )
            continue
        for call in out.tool_calls:
            if call.name == "submit":
                answer = str(call.arguments.get("answer", "")).strip()
                messages.append({"role": "tool", "tool_call_id": call.id, "content": "submitted"})
                return finish("submitted", answer or None)
            t0 = time.monotonic()
            text = await _run_tool(
                call.name, call.arguments, workspace, limits, deadline, python, scope
            )
            ep.steps.append(
                Step(
                    index=len(ep.steps),
                    tool=call.name,
                    arguments=call.arguments,
                    output=text,
                    seconds=round(time.monotonic() - t0, 3),
                )
            )
            messages.append({"role": "tool", "tool_call_id": call.id, "content": text})


def _identity(workspace: Path) -> tuple[int, int] | None:
    """(device, inode) of the workspace directory itself, None when it is not one (a
    symlink is not followed): a tool call that swapped it ends the episode."""
    try:
        st = os.lstat(workspace)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None


async def _run_tool(
    name: str,
    arguments: dict[str, Any],
    workspace: Path,
    limits: AgentLimits,
    deadline: float,
    python: str | None,
    scope: str,
) -> str:
    from scigate import sandbox

    wall = max(1.0, min(limits.tool_seconds, deadline - time.monotonic()))
    box = sandbox.Limits(wall_seconds=wall)
    if limits.memory_bytes is not None:
        box.memory_bytes = limits.memory_bytes
    if name == "run_python":
        code = arguments.get("code")
        if not isinstance(code, str) or not code.strip():
            return "error: run_python needs a non-empty 'code' string"
        script = workspace / f".step_{time.monotonic_ns()}.py"
        sandbox.write_new_file(script, code)  # never through a link the model left there
        try:
            result = await sandbox.arun_python(
                script=Path(script.name),
                workspace=workspace,
                limits=box,
                python=python or sys.executable,
                preload=limits.preload,
                forms_scope=scope,
            )
        finally:
            script.unlink(missing_ok=True)
    elif name == "run_bash":
        command = arguments.get("command")
        if not isinstance(command, str) or not command.strip():
            return "error: run_bash needs a non-empty 'command' string"
        result = await sandbox.arun(command, workspace=workspace, limits=box, forms_scope=scope)
    else:
        return f"error: unknown tool {name!r}; the tools are run_python, run_bash and submit"
    return format_tool_output(result)


def format_tool_output(result: Any) -> str:
    """The text a model sees for one sandboxed run."""
    parts = [f"exit code: {result.exit_code}"]
    if result.timed_out:
        parts.append(f"note: {result.reason}")
    parts.append("--- stdout ---\n" + _clip(result.stdout))
    if result.stderr.strip():
        parts.append("--- stderr ---\n" + _clip(result.stderr))
    return "\n".join(parts)


def _clip(text: str) -> str:
    if len(text) <= MAX_TOOL_TEXT:
        return text
    half = MAX_TOOL_TEXT // 2
    return f"{text[:half]}\n... [{len(text) - MAX_TOOL_TEXT} characters cut] ...\n{text[-half:]}"


_ = sys
