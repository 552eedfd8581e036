"""Where an agent's tool calls run: in threads here (the default) or as executor jobs.

Evo's agent loop and memory stay in the driver (its tasks learn in order and one process
writes the memory); with an executor its tool calls run on the executor's workers, where
the sandbox runs. Each call is one job returning the tool's `ToolResult`; the tools travel
to the workers once (`Executor.share`), and the time limit that applies to a call here
(`tools._bounded.effective_time_limit`: the override, the tool's own limit, the library
default) is sent with it, so a worker bounds the call the same way.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from scigate.executor import Executor, Job, Shared
from scigate.tools import Tool, ToolResult, effective_time_limit, limit_override


class ToolRunner(Protocol):
    """Runs one step's calls of a tool; one result per call, in the calls' order."""

    async def run(self, tool: Tool, calls: list[dict[str, Any]]) -> list[ToolResult]: ...


class LocalToolRunner:
    """The calls in threads of this process."""

    async def run(self, tool: Tool, calls: list[dict[str, Any]]) -> list[ToolResult]:
        """Every call at once, each in a thread."""
        return list(await asyncio.gather(*(asyncio.to_thread(tool.call, c) for c in calls)))


LOCAL = LocalToolRunner()


def call_tool(shared: Shared, name: str, arguments: dict[str, Any], limit: float) -> ToolResult:
    """On a worker: one call of the shared tool `name` under the driver's time limit."""
    tool: Tool = shared.get()[name]
    with limit_override(limit):
        return tool.call(arguments)


class ExecutorToolRunner:
    """Each call is a job of `executor`. A job that keeps failing (a lost worker, after
    the executor's retries) is a failed call with the executor's reason, never a success.

    `tools` (the evaluation's tool set) are shared with the workers on first use. A tool
    the executor cannot ship (one that does not pickle, such as a tool bound to a live
    MCP client session) runs here instead; `local` counts those calls."""

    def __init__(self, executor: Executor, tools: dict[str, Tool]) -> None:
        self.executor = executor
        self.tools = tools
        self.jobs = 0  # calls run as executor jobs
        self.local = 0  # calls run here: their tool could not be shipped
        self.failed = 0  # jobs that failed after their retries
        self._shared: Shared | None = None
        self._shipped: set[str] = set()

    def _share(self) -> Shared:
        if self._shared is None:
            try:
                self._shared = self.executor.share(self.tools)
                self._shipped = set(self.tools)
            except Exception:  # one tool does not pickle: ship the others
                self._shipped = {n for n, t in self.tools.items() if self._ships(t)}
                self._shared = self.executor.share({n: self.tools[n] for n in self._shipped})
        return self._shared

    def _ships(self, tool: Tool) -> bool:
        try:
            self.executor.share({tool.name: tool})
        except Exception:
            return False
        return True

    def _shared_for(self, tool: Tool) -> Shared | None:
        """The shared tools holding `tool`, or None when it must run here."""
        if self.tools.get(tool.name) is tool:
            shared = self._share()
            return shared if tool.name in self._shipped else None
        try:  # a tool outside the evaluation's set: shipped with this step alone
            return self.executor.share({tool.name: tool})
        except Exception:
            return None

    async def run(self, tool: Tool, calls: list[dict[str, Any]]) -> list[ToolResult]:
        """The calls as one batch of jobs; results in the calls' order."""
        shared = self._shared_for(tool)
        if shared is None:
            self.local += len(calls)
            return await LOCAL.run(tool, calls)
        limit = effective_time_limit(tool.spec.time_limit)
        jobs = [
            Job(id=str(i), fn=call_tool, args=(shared, tool.name, c, limit))
            for i, c in enumerate(calls)
        ]
        self.jobs += len(jobs)
        done = {r.id: r async for r in self.executor.as_completed(jobs)}
        results = []
        for job in jobs:
            r = done[job.id]
            if r.ok:
                results.append(r.value)
                continue
            self.failed += 1
            results.append(
                ToolResult(
                    ok=False,
                    error=f"{tool.name}: executor: {r.error} (after {r.attempts} attempts)",
                )
            )
        return results

    def describe(self) -> dict[str, int]:
        """Counts for reports: calls run as jobs, jobs that failed, calls run here."""
        return {
            "tool_jobs": self.jobs,
            "tool_jobs_failed": self.failed,
            "tool_calls_local": self.local,
        }
