"""`bench derive` and `bench verify`: execute every task's reference path, in parallel.

Tasks are sorted by entity (so a worker's call cache serves the repeats), cut into chunks
and run in worker processes; each worker keeps one cache of tool calls for the run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from typing import Any, Literal

from pydantic import BaseModel

from scigate.bench._answer import Underivable, execute_task, same_answer
from scigate.tools import ToolResult

Progress = Callable[[int, int], None]
Status = Literal["derived", "underivable", "agrees", "disagrees", "error", "unverifiable"]

# Source answers within this relative tolerance of the executed one count as agreeing
# (SciToolEval rounds to 2 decimals); verify of our own files is strict.
SOURCE_REL_TOL = 1e-3

_CACHE: dict[str, ToolResult] = {}


class TaskOutcome(BaseModel):
    """What derive or verify made of one task (`index`: its position in the file)."""

    index: int
    status: Status
    reason: str | None = None
    answer: str | None = None  # the executed answer
    stored: str | None = None  # the answer the file held
    task: dict[str, Any] | None = None  # derive: the task with answer and plan

    def line(self) -> str:
        """One line for a report: 'task N: status: reason'."""
        text = f"task {self.index + 1}: {self.status}"
        if self.status == "disagrees":
            return f"{text}: stored {self.stored!r}, executed {self.answer!r}"
        return f"{text}: {self.reason}" if self.reason else text


def derive_one(index: int, raw: dict[str, Any], cache: dict[str, ToolResult] | None) -> TaskOutcome:
    """Execute one task and return it with `answer` and `plan` added (the previous answer,
    if any, kept as `source_answer` when it differs)."""
    stored = raw.get("answer")
    try:
        done = execute_task(raw, cache=cache)
    except Underivable as exc:
        return TaskOutcome(index=index, status="underivable", reason=str(exc))
    task = {**raw, "answer": done.answer, "plan": done.plan}
    if stored is not None and not same_answer(stored, done.answer, SOURCE_REL_TOL):
        task["source_answer"] = stored
    return TaskOutcome(
        index=index,
        status="derived",
        answer=done.answer,
        stored=None if stored is None else str(stored),
        task=task,
    )


def verify_one(index: int, raw: dict[str, Any], cache: dict[str, ToolResult] | None) -> TaskOutcome:
    """Re-execute one task and compare with its stored answer."""
    stored = raw.get("answer")
    claims_plan = isinstance(raw.get("plan"), dict)
    if stored is None:
        return TaskOutcome(index=index, status="unverifiable", reason="no stored answer")
    try:
        done = execute_task(raw, cache=cache)
    except Underivable as exc:
        status: Status = "error" if claims_plan else "unverifiable"
        return TaskOutcome(index=index, status=status, reason=str(exc), stored=str(stored))
    agrees = same_answer(stored, done.answer)
    return TaskOutcome(
        index=index,
        status="agrees" if agrees else "disagrees",
        answer=done.answer,
        stored=str(stored),
    )


_KINDS = {"derive": derive_one, "verify": verify_one}


def _work(
    kind: str, chunk: list[tuple[int, dict[str, Any]]], use_cache: bool
) -> list[dict[str, Any]]:
    """Run one chunk in a worker process, with the process-wide call cache."""
    fn = _KINDS[kind]
    return [fn(i, raw, _CACHE if use_cache else None).model_dump() for i, raw in chunk]


def _init_worker() -> None:
    from scigate.tools import load_library

    load_library()


def _entity_key(item: tuple[int, dict[str, Any]]) -> str:
    raw = item[1]
    return json.dumps(raw.get("Parameter", raw.get("parameter")), default=str, sort_keys=True)


# Below this many tasks one process with its call cache beats worker processes, whose
# start-up (importing the library) costs seconds: 384 tasks took 3.6 s in one process and
# 9.8 s with 2 workers (benchmarks/bench_bench.py).
PARALLEL_FROM = 2000


def default_workers(total: int = PARALLEL_FROM) -> int:
    """Worker processes by default: 1 below PARALLEL_FROM tasks, else the CPUs this process
    may use, at most 4."""
    if total < PARALLEL_FROM:
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus))


def run_tasks(
    kind: Literal["derive", "verify"],
    tasks: list[dict[str, Any]],
    workers: int | None = None,
    progress: Progress | None = None,
    cache: bool = True,
    executor: Any | None = None,
) -> list[TaskOutcome]:
    """Derive or verify every task; outcomes come back in file order.

    `workers` 1 runs in this process; more run chunks in worker processes. With an
    `executor` (`scigate.executor`, e.g. Ray) the chunks run on its workers instead; a
    chunk that still fails after the executor's retries gives its tasks `error`. `cache`
    False makes every call run even when another task made the same one.
    """
    total = len(tasks)
    items = sorted(enumerate(tasks), key=_entity_key)
    if executor is not None:
        return _on_executor(executor, kind, items, cache, progress)
    workers = default_workers(len(tasks)) if workers is None else max(1, workers)
    outcomes: list[TaskOutcome] = []
    done = 0
    if workers == 1 or total < 2:
        local: dict[str, ToolResult] | None = {} if cache else None
        for i, raw in items:
            outcomes.append(_KINDS[kind](i, raw, local))
            done += 1
            if progress:
                progress(done, total)
    else:
        size = max(1, min(32, total // (workers * 4) or 1))
        chunks = [items[k : k + size] for k in range(0, total, size)]
        with ProcessPoolExecutor(
            max_workers=workers, mp_context=get_context("spawn"), initializer=_init_worker
        ) as pool:
            futures = {pool.submit(_work, kind, chunk, cache): len(chunk) for chunk in chunks}
            for future in as_completed(futures):
                outcomes.extend(TaskOutcome.model_validate(o) for o in future.result())
                done += futures[future]
                if progress:
                    progress(done, total)
    return sorted(outcomes, key=lambda o: o.index)


def _on_executor(
    executor: Any,
    kind: str,
    items: list[tuple[int, dict[str, Any]]],
    cache: bool,
    progress: Progress | None,
) -> list[TaskOutcome]:
    """The chunks as executor jobs (entity-sorted, so each worker's call cache serves its
    chunk); outcomes in file order."""
    import asyncio

    from scigate.executor import Job

    total = len(items)
    size = max(1, min(32, total // (max(1, executor.workers) * 4) or 1))
    chunks = {f"chunk-{k}": items[k : k + size] for k in range(0, total, size)}
    jobs = [Job(id=key, fn=_work, args=(kind, chunk, cache)) for key, chunk in chunks.items()]
    outcomes: list[TaskOutcome] = []

    async def collect() -> None:
        done = 0
        async for result in executor.as_completed(jobs):
            chunk = chunks[result.id]
            if result.ok:
                outcomes.extend(TaskOutcome.model_validate(o) for o in result.value)
            else:
                outcomes.extend(
                    TaskOutcome(
                        index=i,
                        status="error",
                        reason=f"the executor could not run it: {result.error}",
                    )
                    for i, _ in chunk
                )
            done += len(chunk)
            if progress:
                progress(done, total)

    asyncio.run(collect())
    return sorted(outcomes, key=lambda o: o.index)
