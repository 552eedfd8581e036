"""Accumulation checkpoints (the paper's Table A2 and Figure 4).

The accumulation set is consumed in order; after 0, 25, 50, 75 and 100% of it the memory
is copied and the test set is evaluated on the copy (test-time updates go to the copy, so
every checkpoint starts from what accumulation alone built). Each checkpoint reports:

- acquired tools: tools migrated from the unknown set into the known graph so far;
- skills: skills in the library so far;
- skill hit: % of the judged test tasks answered correctly through a stored skill (the
  skill route);
- plan accuracy: % of the test tasks with a reference path whose tool chain equals it
  (Tool accuracy; None when no task has a reference path);
- unknown-tool hit: % of the reference chains' tools that were unknown at the start of
  accumulation and appear in the predicted chain (None when no reference tool was unknown);
- answer accuracy over the judged answers, next to them (None when none was judged), with
  the unjudged and errored tasks counted beside it.

Accumulation's pass of experience deduplication runs after each slice rather than once
at the end; deduplication only removes near-copies, so the final pool is the same up to
which copy is kept. Cost: one accumulation pass plus one test pass per checkpoint.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from scigate._tmp import scigate_tempdir
from scigate.agents._context import AgentContext, ModelLike
from scigate.agents._eval import _judge_for_training, evaluate
from scigate.agents._evalrow import EvalRow
from scigate.agents._evo import EvoAgent, alias_table
from scigate.agents._records import Task
from scigate.agents._taskscore import EvalConfig
from scigate.agents._toolrun import ExecutorToolRunner
from scigate.errors import BadValue
from scigate.executor import Executor
from scigate.tools import Embedder, Tool

PROGRESS = (0.0, 0.25, 0.5, 0.75, 1.0)


def _pct(values: list[float]) -> float | None:
    return 100.0 * statistics.fmean(values) if values else None


def checkpoint_stats(
    rows: Sequence[EvalRow | Mapping[str, Any]], initially_unknown: set[str]
) -> dict[str, Any]:
    """Skill hit, plan accuracy, unknown-tool hit and answer accuracy (in %) of test rows."""
    unknown_refs = hits = 0
    for r in rows:
        predicted = set(r["predicted_chain"])
        for tool in dict.fromkeys(r["reference_chain"]):
            if tool in initially_unknown:
                unknown_refs += 1
                hits += tool in predicted
    judged = [r for r in rows if r.get("answer_correct") is not None]
    return {
        "skill_hit": _pct(
            [float(r["route"] == "skill" and r["answer_correct"] == 1.0) for r in judged]
        ),
        # as in the evaluation: a task without a reference path has no plan to score
        "plan_accuracy": _pct(
            [float(r["tool_exact"]) for r in rows if r.get("tool_exact") is not None]
        ),
        "unknown_tool_hit": 100.0 * hits / unknown_refs if unknown_refs else None,
        "unknown_reference_tools": unknown_refs,
        # as in the evaluation's Answer: over the judged answers, never folding the others in
        "answer_accuracy": _pct([float(r["answer_correct"] == 1.0) for r in judged]),
        "unjudged": sum(r.get("status") == "unjudged" for r in rows),
        "errors": sum(r.get("status") == "error" for r in rows),
    }


async def accumulation_checkpoints(
    model: ModelLike,
    tasks: list[Task],
    train: list[Task],
    tools: dict[str, Tool],
    config: EvalConfig,
    *,
    judge: ModelLike | None = None,
    embedder: Embedder | None = None,
    progress: tuple[float, ...] = PROGRESS,
    executor: Executor | None = None,
) -> list[dict[str, Any]]:
    """Table A2: memory and test-set statistics after each share of the accumulation set.
    With `executor`, the tool calls of accumulation and of every test pass are its jobs
    (the agent loop and the memory stay here, as in `evaluate`)."""
    if config.method != "evo":
        raise BadValue(
            "method", f"must be 'evo' for accumulation checkpoints, got {config.method!r}"
        )
    if not train:
        raise BadValue(
            "train", "must hold tasks: accumulation checkpoints need an accumulation set"
        )
    out: list[dict[str, Any]] = []
    with scigate_tempdir("checkpoints") as tmp:
        agent = EvoAgent.open(
            Path(tmp) / "memory.db",
            tools,
            known_ratio=config.known_ratio,
            split_seed=config.split_seed,
            config=config.evo,
            embedder=embedder,
        )
        try:
            initially_unknown = set(agent.space.unknown)
            reward = _judge_for_training(judge, alias_table(tools))
            ctx = AgentContext(
                model=model,
                space=agent.space,
                temperature=config.temperature,
                max_tools=config.max_tools,
                tool_runner=None if executor is None else ExecutorToolRunner(executor, tools),
            )
            done = 0
            for share in progress:
                upto = round(share * len(train))
                if upto > done:
                    await agent.accumulate(ctx, train[done:upto], reward)
                    done = upto
                memory = agent.memory
                assert memory is not None
                counts = memory.summary()
                snapshot = Path(tmp) / f"checkpoint-{round(share * 100)}.db"
                memory.snapshot(snapshot)
                test_config = EvalConfig(
                    method="evo",
                    known_ratio=config.known_ratio,
                    split_seed=config.split_seed,
                    temperature=config.temperature,
                    evo=config.evo,
                    accumulate=False,
                    memory=str(snapshot),
                    max_tools=config.max_tools,
                )
                result = await evaluate(
                    model,
                    tasks,
                    tools,
                    test_config,
                    judge=judge,
                    embedder=embedder,
                    executor=executor,
                )
                out.append(
                    {
                        "progress": 100.0 * share,
                        "train_tasks": done,
                        "acquired_tools": counts["migrated_tools"],
                        "skills": counts["skills"],
                        **checkpoint_stats(result.rows, initially_unknown),
                        "accumulation_calls": ctx.usage.calls,
                    }
                )
        finally:
            agent.close()
    return out


def _cell(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def render_checkpoints(rows: list[dict[str, Any]]) -> str:
    """The checkpoints as a Markdown table (Table A2's columns, plus answer accuracy)."""
    lines = [
        "| Progress | Train tasks | #Acquired tools | #Skills | Skill hit | Plan acc. "
        "| Unk. tool hit | Answer |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        lines.append(
            f"| {r['progress']:.0f}% | {r['train_tasks']} | {r['acquired_tools']} | "
            f"{r['skills']} | {_cell(r['skill_hit'])} | {_cell(r['plan_accuracy'])} | "
            f"{_cell(r['unknown_tool_hit'])} | {_cell(r['answer_accuracy'])} |"
        )
    return "\n".join(lines)
