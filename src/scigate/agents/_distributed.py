"""Evaluation tasks as executor jobs: workers run and score a task, the driver records.

A worker rebuilds the models from their specs with a recorder that only collects the
call records; they travel back with the row, and the driver hands them to its own
recorders (it stays the only writer of the run database and of rows.jsonl).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from scigate.agents._context import AgentContext, ModelLike
from scigate.agents._evalrow import EvalRow
from scigate.agents._records import Task, Trajectory
from scigate.agents._taskscore import EvalConfig, score_task, score_trajectory
from scigate.agents._toolspace import ToolSpace
from scigate.executor import Executor, Job, Shared
from scigate.tools import Embedder, Tool, make_split

CallRecords = list[tuple[str, Any]]  # (role, ModelCallRecord)


@dataclass
class ModelRef:
    """A model as a worker gets it: a `Model` by its spec (rebuilt there), anything else
    (a picklable test double) as it is."""

    role: str
    spec: str | None = None
    obj: Any = None

    def build(self, sink: CallRecords) -> ModelLike:
        """The model on the worker; its call records go to `sink`."""
        if self.spec is None:
            return self.obj
        from scigate.llm import get_model

        return get_model(self.spec, recorder=lambda record: sink.append((self.role, record)))


def model_ref(role: str, model: ModelLike) -> ModelRef:
    """How `model` travels to a worker."""
    from scigate.llm import Model

    if isinstance(model, Model):
        return ModelRef(role, spec=model.spec.raw)
    return ModelRef(role, obj=model)


@dataclass
class EvalBatch:
    """What every job of one evaluation shares (sent to the workers once)."""

    config: EvalConfig
    tools: dict[str, Tool]
    embedder: Embedder
    aliases: dict[str, str]
    model: ModelRef
    judge: ModelRef | None = None
    reranker: ModelRef | None = None


_SPACES: dict[tuple, ToolSpace] = {}  # per worker process: the split and its index, once


def _space(batch: EvalBatch) -> ToolSpace:
    cfg = batch.config
    key = (cfg.split_seed, cfg.known_ratio, batch.embedder.id, tuple(sorted(batch.tools)))
    if key not in _SPACES:
        split = make_split(batch.tools, seed=cfg.split_seed, known_ratio=cfg.known_ratio)
        _SPACES[key] = ToolSpace(batch.tools, split, embedder=batch.embedder)
    return _SPACES[key]


def run_eval_job(
    shared: Shared, run: int, index: int, task: Task, epoch: int = 0
) -> tuple[EvalRow, Trajectory, CallRecords]:
    """On a worker: run and score one task; (row, trajectory, the model call records)."""
    batch: EvalBatch = shared.get()
    calls: CallRecords = []
    judge = batch.judge.build(calls) if batch.judge else None
    reranker = batch.reranker.build(calls) if batch.reranker else None
    ctx = AgentContext(
        model=batch.model.build(calls),
        space=_space(batch),
        temperature=batch.config.temperature,
        max_tools=batch.config.max_tools,
        reranker=reranker,
    )
    row, traj = asyncio.run(
        score_task(
            batch.config,
            ctx,
            task,
            run=run,
            index=index,
            agent=None,
            judge=judge,
            aliases=batch.aliases,
            epoch=epoch,
        )
    )
    return row, traj, calls


async def _forward(model: ModelLike | None, record: Any) -> None:
    recorder = getattr(model, "recorder", None)
    if recorder is None:
        return
    result = recorder(record)
    if inspect.isawaitable(result):
        await result


def _job_id(run: int, epoch: int, index: int) -> str:
    """ "run:index", and "run:index@epoch" past the first epoch."""
    return f"{run}:{index}" if epoch == 0 else f"{run}:{index}@{epoch}"


async def evaluate_on(
    executor: Executor,
    batch: EvalBatch,
    todo: list[tuple[int, int, Task, int]],
    models: dict[str, ModelLike | None],
    finish: Callable[[EvalRow, Trajectory], None],
) -> None:
    """Run the (run, index, task, epoch) items on `executor`; `finish(row, traj)` each once, in
    the driver, as results arrive. A job that kept failing becomes an `error` row."""
    shared = executor.share(batch)
    by_id = {
        _job_id(run, epoch, index): (run, index, task, epoch) for run, index, task, epoch in todo
    }
    jobs = [Job(id=key, fn=run_eval_job, args=(shared, *item)) for key, item in by_id.items()]
    finished: set[str] = set()
    async for result in executor.as_completed(jobs):
        if result.id in finished:  # the driver dedups: one row per (run, epoch, index)
            continue
        finished.add(result.id)
        run, index, task, epoch = by_id[result.id]
        if result.ok:
            row, traj, calls = result.value
            for role, record in calls:
                await _forward(models.get(role), record)
        else:
            traj = Trajectory(
                method=batch.config.method,
                question=task.question,
                error=f"executor: {result.error} (after {result.attempts} attempts)",
            )
            row = await score_trajectory(
                task, traj, run=run, index=index, judge=None, aliases=batch.aliases
            )
            row.epoch = epoch
        finish(row, traj)
