"""The evaluation harness: load a SciToolEval-format bench, run a method, score, report."""

from __future__ import annotations

import asyncio
import hashlib
import json
import statistics
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from scigate._jsonl import read_objects
from scigate._secrets import redactor
from scigate._tmp import scigate_tempdir
from scigate.agents._context import AgentContext, ModelLike
from scigate.agents._evaldir import ROWS, EvalDir, atomic_write
from scigate.agents._evalrow import EvalRow
from scigate.agents._evo import (
    EvoAgent,
    alias_table,
    reference_reward,
)
from scigate.agents._records import Task, Trajectory
from scigate.agents._runrecord import RunRecord
from scigate.agents._taskscore import (
    EvalConfig,
    _reason,
    check_method,
    judge_answer,
    score_task,
)
from scigate.agents._toolrun import ExecutorToolRunner
from scigate.agents._toolspace import ToolSpace
from scigate.errors import BadInput, RunStopped
from scigate.executor import Executor
from scigate.tools import Embedder, Tool, make_embedder, make_split


def load_bench(path: str | Path) -> list[Task]:
    """Tasks of a JSONL bench file; BadInput (with the line number) when a line is unusable."""
    p = Path(path)
    tasks = []
    for no, raw in read_objects(p, "bench file"):
        if not isinstance(raw.get("question"), str) or not raw["question"].strip():
            raise BadInput(f"{p}:{no}: missing 'question'")
        path_value = raw.get("tool_path", raw.get("Standard_Toolpath", []))
        if isinstance(path_value, str):  # SciToolEval writes some paths as "A, B"
            path_value = [v.strip() for v in path_value.split(",") if v.strip()]
        # SciToolEval's answer files name the reference `final_answer`
        answer = raw.get("answer")
        if answer is None:
            answer = raw.get("final_answer")
        try:
            tasks.append(
                Task(
                    question=raw["question"],
                    tool_path=path_value,
                    parameter=raw.get("Parameter", raw.get("parameter")),
                    answer=None if answer is None else str(answer),
                    options=raw.get("options"),
                    level=raw.get("level"),
                    domain=raw.get("domain"),
                    format=raw.get("format"),
                    line=no,
                )
            )
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(x) for x in err["loc"])
            raise BadInput(f"{p}:{no}: field '{loc}': {err['msg']}") from None
    return tasks


@dataclass
class EvalResult:
    config: dict[str, Any]
    rows: list[EvalRow]
    summary: dict[str, Any]
    accumulation: list[dict[str, Any]] = field(default_factory=list)


def _mean_std(values: list[float]) -> dict[str, float | None]:
    """Mean and sample standard deviation of per-run values (in %): the mean None when no
    run had anything to score, the sd None with fewer than two such runs."""
    if not values:
        return {"mean": None, "std": None}
    return {
        "mean": statistics.fmean(values),
        "std": statistics.stdev(values) if len(values) > 1 else None,
    }


DEFINITIONS = {
    "tool": "% of the tasks with a reference tool path whose chain equals it (both chains "
    "normalised alike; a made-up tool name counts against it); tool_set_f1 and tool_lcs "
    "over the same tasks",
    "answer": "% correct of the answers the rules or the judge decided; unjudged answers, "
    "errors and tasks without a reference answer are counted beside it, never in it",
    "answer_decided": "the same as answer (its name before issue 20)",
    "answer_lower_bound": "% correct of the tasks with a reference answer, unjudged answers "
    "and errors counted as not correct",
    "mean, std": "mean over runs (each run's epochs counted as runs of their own) of each "
    "one's accuracy; std is the sample standard deviation over those (None with fewer than "
    "two), runs says how many; mean None "
    "(n/a) when no task had anything to score",
    "api_cost": "USD per task over all tasks, unpriced calls counted as 0 (unpriced_calls "
    "says how many); None when no call was priced",
}


def summarize_rows(
    rows: Sequence[EvalRow | Mapping[str, Any]], runs: int, epochs: int = 1
) -> dict[str, Any]:
    """Overall and per-level accuracies (mean ± sample sd over the runs' repetitions: runs x
    epochs, in %) with the counts beside them, per epoch when there are several, and cost
    per task; see `DEFINITIONS`. A metric with nothing to score (no reference answer, no
    reference path) is None ("n/a"), never 0 or 100. Rows may be given as rows.jsonl holds
    them (mappings)."""
    return _summarize([EvalRow.of(r) for r in rows], runs, epochs)


def _summarize(rows: list[EvalRow], runs: int, epochs: int = 1) -> dict[str, Any]:
    def per_run(sel: list[EvalRow], value: Callable[[EvalRow], float | None]) -> list[float]:
        out = []
        for r in range(runs):
            for e in range(epochs):
                vals = [
                    v for x in sel if x.run == r and x.epoch == e and (v := value(x)) is not None
                ]
                if vals:
                    out.append(100.0 * statistics.fmean(vals))
        return out

    judged = {"correct": 1.0, "wrong": 0.0}
    bound = {**judged, "unjudged": 0.0, "error": 0.0}

    def block(sel: list[EvalRow]) -> dict[str, Any]:
        statuses = [x.answer_status for x in sel]
        tool = per_run(sel, lambda x: x.tool_value("tool_exact"))
        answer = per_run(sel, lambda x: judged.get(x.answer_status))
        lower = per_run(sel, lambda x: bound.get(x.answer_status))
        return {
            "n": len({x.index for x in sel}),
            "tool": _mean_std(tool),
            "tool_set_f1": _mean_std(per_run(sel, lambda x: x.tool_value("tool_set_f1"))),
            "tool_lcs": _mean_std(per_run(sel, lambda x: x.tool_value("tool_lcs"))),
            "answer": _mean_std(answer),
            "answer_decided": _mean_std(answer),
            "answer_lower_bound": _mean_std(lower),
            "runs": {"tool": len(tool), "answer": len(answer), "answer_lower_bound": len(lower)},
            # counts over all runs' rows
            "tool_scored": sum(x.tool_value("tool_exact") is not None for x in sel),
            "correct": statuses.count("correct"),
            "judged": statuses.count("correct") + statuses.count("wrong"),
            "unjudged": statuses.count("unjudged"),
            "errors": statuses.count("error"),
            "no_reference": statuses.count("no-reference"),
        }

    levels = sorted({r.level for r in rows if r.level is not None})
    n = max(1, len(rows))
    costs = [r.cost for r in rows if r.cost is not None]
    by_epoch = (
        {str(e): block([r for r in rows if r.epoch == e]) for e in range(epochs)}
        if epochs > 1
        else None
    )
    return {
        "overall": block(rows),
        "levels": {str(lv): block([r for r in rows if r.level == lv]) for lv in levels},
        **({"epochs": by_epoch} if by_epoch is not None else {}),
        "cost": {
            "llm_calls": sum(r.calls for r in rows) / n,
            "input_tokens": sum(r.input_tokens for r in rows) / n,
            "output_tokens": sum(r.output_tokens for r in rows) / n,
            "total_tokens": sum(r.input_tokens + r.output_tokens for r in rows) / n,
            "model_latency": sum(r.latency for r in rows) / n,
            "wall_seconds": sum(r.wall_seconds for r in rows) / n,
            # over all tasks: an unpriced call adds nothing, and is counted beside it
            "api_cost": (sum(costs) / n) if costs else None,
            "unpriced_calls": sum(r.unpriced for r in rows),
            "tasks": len(rows),
            "estimated_tokens": any(r.estimated_tokens for r in rows),
            "reranker_calls": sum(r.reranker_calls for r in rows) / n,
            "reranker_tokens": sum(r.reranker_input_tokens + r.reranker_output_tokens for r in rows)
            / n,
        },
        "definitions": DEFINITIONS,
    }


def errors_dominate(summary: dict[str, Any], rows: int) -> bool:
    """More than half of the tasks ended in an error (the CLI then exits 1)."""
    return rows > 0 and summary["overall"]["errors"] * 2 > rows


def accumulation_problem(accumulation: list[dict[str, Any]]) -> str | None:
    """One line when a knowledge accumulation failed or learned nothing (the CLI then
    exits 1): it stopped on an error, had no training task, or no training task was
    judged a success (so no skill, experience or migrated tool came from it)."""
    problems = []
    for entry in accumulation:
        if "memory" in entry:
            continue
        run = f"run {entry['run']}"
        judge_errors = entry.get("judge_errors") or []
        failed = f"; {len(judge_errors)} judge call(s) failed" if judge_errors else ""
        if entry.get("error"):
            problems.append(f"{run}: {entry['error']}{failed}")
        elif not entry.get("tasks"):
            problems.append(f"{run}: the training set has no tasks")
        elif entry.get("base_successes", 0) + entry.get("exploratory_successes", 0) == 0:
            problems.append(
                f"{run}: none of {entry['tasks']} training tasks was solved "
                f"({entry.get('failures', 0)} wrong, {entry.get('unjudged', 0)} unjudged"
                f"{failed}), nothing was learned"
            )
    if not problems:
        return None
    more = f" (and {len(problems) - 1} more run(s))" if len(problems) > 1 else ""
    return f"knowledge accumulation failed, {problems[0]}{more}"


def _judge_for_training(
    judge: ModelLike | None,
    aliases: dict[str, str] | None = None,
    failures: list[str] | None = None,
) -> Callable[[Task, Trajectory], Any]:
    """The accumulation reward: answer and reference tool path (never execution alone).
    A judge call that fails decides nothing (no success, nothing learned) and its reason
    goes to `failures`."""

    async def answer(task: Task, predicted: str | None) -> bool | None:
        try:
            ok, how = await judge_answer(judge, task, predicted)
        except (BadInput, RunStopped):
            raise
        except Exception as exc:
            if failures is not None:
                failures.append(_reason(exc))
            return None
        return None if how.startswith("unjudged") or how == "no-reference" else ok

    return reference_reward(answer, aliases)


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def _model_name(model: ModelLike | None) -> str | None:
    return None if model is None else str(getattr(model, "name", type(model).__name__))


def _public_config(config: EvalConfig, tasks: list[Task], train: list[Task] | None) -> dict:
    return {
        "method": config.method,
        "runs": config.runs,
        "epochs": config.epochs,
        "known_ratio": config.known_ratio,
        "split_seed": config.split_seed,
        "temperature": config.temperature,
        "accumulate": config.accumulate,
        "max_tools": config.max_tools,
        "evo": config.evo.__dict__ if config.method == "evo" else None,
        "tasks": len(tasks),
        "train_tasks": len(train or []),
    }


async def _run_all(coroutines: list[Awaitable[None]]) -> None:
    """Await all; on the first exception cancel the rest and re-raise it (as itself)."""
    futures = [asyncio.ensure_future(c) for c in coroutines]
    try:
        await asyncio.gather(*futures)
    finally:
        for f in futures:
            f.cancel()
        await asyncio.gather(*futures, return_exceptions=True)


async def evaluate(
    model: ModelLike,
    tasks: list[Task],
    tools: dict[str, Tool],
    config: EvalConfig,
    *,
    train: list[Task] | None = None,
    judge: ModelLike | None = None,
    on_task: Callable[[EvalRow, Trajectory], None] | None = None,
    embedder: Embedder | None = None,
    reranker: ModelLike | None = None,
    out: str | Path | None = None,
    resume: bool = False,
    on_start: Callable[[int, list[EvalRow]], None] | None = None,
    executor: Executor | None = None,
    record: RunRecord | None = None,
) -> EvalResult:
    """Run `config.method` over the tasks `config.runs` times and score every answer.

    With `out`, each finished task's row is appended to `out/rows.jsonl` at once, and
    `resume` continues the evaluation there: only (run, index) pairs without a row run.
    `on_start(total, resumed_rows)` is called before the first task. With `executor`,
    the tasks of a baseline method run as its jobs (on Ray workers, say) while rows are
    still appended here; Evo's runs, whose tasks learn in order from one memory, stay in
    this process and only their tool calls run as the executor's jobs. With `record`, each
    finished task is recorded in that run as an `agent-task` event."""
    check_method(config.method)
    config.check()
    if resume and out is None:
        raise BadInput("resume needs out: the directory of the evaluation to continue")
    aliases = alias_table(tools)
    embedder = embedder or make_embedder("hashing")
    cfg = _public_config(config, tasks, train)
    manifest = {
        **cfg,
        "tasks_sha256": _digest([t.model_dump() for t in tasks]),
        "train_sha256": _digest([t.model_dump() for t in train or []]),
        "model": _model_name(model),
        "judge": _model_name(judge),
        "reranker": _model_name(reranker),
        "embedder": embedder.id,
        "memory": config.memory,
    }
    log = EvalDir(out, manifest, resume=resume) if out is not None else None
    # Not in the manifest: a run may be resumed on another executor.
    ran_on = {"name": "local", "workers": config.concurrency}
    runner = None
    if executor is not None:
        ran_on = executor.describe()
        if config.method == "evo":  # the agent loop stays here; its tool calls are jobs
            runner = ExecutorToolRunner(executor, tools)
    rows = [EvalRow.of(r) for r in log.rows] if log else []
    accumulation: list[dict[str, Any]] = list(log.accumulation) if log else []
    done = {(r.run, r.epoch, r.index) for r in rows}
    accumulated = {a["run"] for a in accumulation}
    if on_start is not None:
        on_start(config.runs * config.epochs * len(tasks), list(rows))
    semaphore = asyncio.Semaphore(config.concurrency)
    tmp = scigate_tempdir("evo")

    def context(space: ToolSpace) -> AgentContext:
        return AgentContext(
            model=model,
            space=space,
            temperature=config.temperature,
            max_tools=config.max_tools,
            reranker=reranker,
            tool_runner=runner,
        )

    async def one(
        run: int, index: int, task: Task, space: ToolSpace, agent: EvoAgent | None, epoch: int = 0
    ):
        async with semaphore:
            row, traj = await score_task(
                config,
                context(space),
                task,
                run=run,
                index=index,
                agent=agent,
                judge=judge,
                aliases=aliases,
                epoch=epoch,
            )
        finish(row, traj)

    def finish(row: EvalRow, traj: Trajectory) -> None:
        if log is not None:
            log.append_row(row.record())
        rows.append(row)
        if record is not None:
            record.task(row)
        if on_task is not None:
            on_task(row, traj)

    def memory_path(run: int) -> Path:
        if config.memory:
            base = Path(config.memory)
            if config.runs == 1:
                return base
            return base.with_name(f"{base.stem}-run{run}{base.suffix or '.db'}")
        if log is not None:
            return log.memory_path(run)
        return Path(tmp.name) / f"memory-run{run}.db"

    async def evo_run(run: int) -> None:
        agent = EvoAgent.open(
            memory_path(run),
            tools,
            known_ratio=config.known_ratio,
            split_seed=config.split_seed,
            # each run its own gate tie-breaking stream, so --runs measures that spread too
            config=replace(config.evo, gate_seed=config.evo.gate_seed + run),
            embedder=embedder,
        )
        try:
            if train is not None and config.accumulate and run not in accumulated:
                ctx = context(agent.space)
                judge_errors: list[str] = []
                async with semaphore:
                    try:
                        report = await agent.accumulate(
                            ctx, train, _judge_for_training(judge, aliases, judge_errors)
                        )
                        entry = {"run": run, **report.__dict__}
                    except (BadInput, RunStopped):
                        raise
                    except Exception as exc:  # the evaluation goes on with what was learnt
                        entry = {"run": run, "error": f"accumulation stopped: {_reason(exc)}"}
                entry.update(usage=ctx.usage.model_dump(), judge_errors=judge_errors)
                accumulation.append(entry)
                if log is not None:
                    log.append_accumulation(entry)
            for index, task in enumerate(tasks):
                if (run, 0, index) not in done:
                    await one(run, index, task, agent.space, agent)
        finally:
            if agent.memory is not None:
                accumulation.append({"run": run, "memory": agent.memory.summary()})
            agent.close()

    try:
        if config.method == "evo":
            await _run_all([evo_run(run) for run in range(config.runs)])
        else:
            todo = [
                (run, index, task, epoch)
                for run in range(config.runs)
                for epoch in range(config.epochs)
                for index, task in enumerate(tasks)
                if (run, epoch, index) not in done
            ]
            if executor is not None:
                from scigate.agents._distributed import EvalBatch, evaluate_on, model_ref

                batch = EvalBatch(
                    config=config,
                    tools=tools,
                    embedder=embedder,
                    aliases=aliases,
                    model=model_ref("model", model),
                    judge=model_ref("judge", judge) if judge else None,
                    reranker=model_ref("reranker", reranker) if reranker else None,
                )
                models = {"model": model, "judge": judge, "reranker": reranker}
                await evaluate_on(executor, batch, todo, models, finish)
            else:
                split = make_split(tools, seed=config.split_seed, known_ratio=config.known_ratio)
                space = ToolSpace(tools, split, embedder=embedder)
                await _run_all(
                    [one(run, index, task, space, None, epoch) for run, index, task, epoch in todo]
                )
    finally:
        tmp.cleanup()
        if log is not None:
            log.close()
    if runner is not None:
        ran_on = {**ran_on, "jobs": "tool calls", **runner.describe()}
    rows.sort(key=lambda r: (r.run, r.epoch, r.index))
    accumulation.sort(key=lambda a: (a["run"], "memory" in a))
    return EvalResult(
        config={**cfg, "executor": ran_on},
        rows=rows,
        summary=summarize_rows(rows, config.runs, config.epochs),
        accumulation=accumulation,
    )


def _pm(metric: dict[str, float | None], over: int | None = None, runs: int | None = None) -> str:
    """ "62.50 ± 3.10" (± the sample sd over runs), "62.50" when there is no sd (one run),
    "n/a" when nothing was scored; "(n=1)" when fewer runs than the evaluation's had
    anything to score."""
    if metric.get("mean") is None:
        return "n/a"
    text = f"{metric['mean']:.2f}"
    if metric.get("std") is not None:
        text += f" ± {metric['std']:.2f}"
    if over is not None and runs is not None and over < runs:
        text += f" (n={over})"
    return text


def spread_label(runs: int) -> str:
    """What the ± is: "sample sd, n=3 runs" (no sd with one run)."""
    return f"sample sd, n={runs} runs" if runs > 1 else "one run, no sd"


def _spread(block: dict[str, Any], key: str, runs: int) -> tuple[str, list[str]]:
    """("62.50 ± 3.10" or "n/a", [what the ± is]) of one summary figure of a block."""
    stat = block[key]
    if stat.get("mean") is None:
        return "n/a", []
    value = f"{stat['mean']:.2f}"
    if stat.get("std") is not None:
        value += f" ± {stat['std']:.2f}"
    return value, [spread_label(block.get("runs", {}).get(key, runs))]


def answer_line(block: dict[str, Any], runs: int) -> str:
    """ "Answer 62.50 ± 3.10 (sample sd, n=3 runs; 5/8 judged; 2 unjudged; 0 errors)"."""
    value, parts = _spread(block, "answer", runs)
    parts += [
        f"{block.get('correct', 0)}/{block.get('judged', 0)} judged",
        f"{block['unjudged']} unjudged",
        f"{block['errors']} error{'s' if block['errors'] != 1 else ''}",
    ]
    if block.get("no_reference"):
        parts.append(f"{block['no_reference']} without a reference answer")
    return f"Answer {value} ({'; '.join(parts)})"


def tool_line(block: dict[str, Any], runs: int) -> str:
    """ "Tool 75.00 ± 0.00 (sample sd, n=2 runs; 6 of 8 tasks with a reference path)"."""
    value, parts = _spread(block, "tool", runs)
    rows = block.get("n", 0) * runs
    parts.append(f"{block.get('tool_scored', 0)} of {rows} task runs with a reference path")
    return f"Tool {value} ({'; '.join(parts)})"


def cost_line(cost: dict[str, Any]) -> str:
    """ "API cost per task $0.0012 over all 8 tasks (3 unpriced calls)"."""
    unpriced = cost.get("unpriced_calls", 0)
    tasks = cost.get("tasks")
    over = f" over all {tasks} task runs" if tasks is not None else ""
    if cost.get("api_cost") is None:
        return f"API cost per task n/a (no call was priced; {unpriced} unpriced calls)"
    return f"API cost per task ${cost['api_cost']:.4f}{over} ({unpriced} unpriced calls)"


def _ran_on(ex: dict[str, Any]) -> str:
    text = f", executor {ex['name']} ({ex['workers']} workers"
    if ex.get("nodes"):
        text += f" on {ex['nodes']} node(s)"
    if ex.get("jobs") == "tool calls":
        text += (
            f"; agent loop and memory in the driver, {ex.get('tool_jobs', 0)} tool calls "
            f"as jobs, {ex.get('tool_jobs_failed', 0)} failed, "
            f"{ex.get('tool_calls_local', 0)} run in the driver"
        )
    return text + ")"


def render_markdown(result: EvalResult) -> str:
    """The report as Markdown: accuracy (overall, per level) with the error and unjudged
    counts beside it, and the cost table.

    Level names, the method and the executor's description come from a bench file, a
    resumed rows.jsonl or a config: each goes in through `md_text`, so HTML, links, table
    pipes and line breaks in them render as written and cannot break the tables.
    """
    from scigate._text import md_text

    s, c = result.summary, result.config
    epochs = int(c.get("epochs") or 1)
    # the ± is over every repetition: runs x epochs (an epoch counts as a run of its own)
    c = {**c, "runs": c["runs"] * epochs}
    lines = [
        f"# Agent evaluation: {md_text(c['method'])}",
        "",
        f"{c['tasks']} tasks × {c['runs'] // epochs} run(s)"
        + (f" × {epochs} epochs" if epochs > 1 else "")
        + f", known ratio {c['known_ratio']}, split seed {c['split_seed']}"
        + (f", {c['train_tasks']} training tasks" if c.get("train_tasks") else "")
        + (md_text(_ran_on(c["executor"])) if c.get("executor") else ""),
        "",
        "Tool is over the tasks with a reference tool path (a made-up tool name counts "
        "against it). Answer is the accuracy over the answers the rules or the judge "
        "decided; Judged is correct/judged, summed over runs; unjudged answers and errors "
        "are counted beside it, never as right or wrong. n/a: nothing to score (no "
        "reference answer or no reference path). "
        + (
            f"± is the sample standard deviation over the runs (n={c['runs']} runs); "
            "(n=k) marks a value over the k runs that had anything to score."
            if c["runs"] > 1
            else "One run: no standard deviation."
        ),
        "",
        "| Level | n | Tool (exact) | Tool (set F1) | Tool (LCS) | Answer | Judged "
        "| Unjudged | Errors |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    per_epoch = [(f"epoch {e}", b) for e, b in (s.get("epochs") or {}).items()]
    for name, block in [*s["levels"].items(), ("overall", s["overall"]), *per_epoch]:
        over = block.get("runs", {})
        tool = {"runs": c["runs"], "over": over.get("tool")}
        judged = (
            f"{block['correct']}/{block['judged']}"
            if "judged" in block and "correct" in block
            else "-"
        )
        if block.get("no_reference"):
            judged += f" ({block['no_reference']} without reference)"
        lines.append(
            f"| {md_text(name)} | {block['n']} | {_pm(block['tool'], **tool)} | "
            f"{_pm(block['tool_set_f1'], **tool)} | {_pm(block['tool_lcs'], **tool)} | "
            f"{_pm(block['answer'], over.get('answer'), c['runs'])} | {judged} | "
            f"{block['unjudged']} | {block['errors']} |"
        )
    problem = accumulation_problem(result.accumulation)
    if problem:
        lines += ["", f"**{md_text(problem)}**"]
    cost = s["cost"]
    api = "n/a" if cost["api_cost"] is None else f"{cost['api_cost']:.4f}"
    if cost.get("unpriced_calls"):
        api += f" ({cost['unpriced_calls']} unpriced calls)"
    lines += [
        "",
        "Cost per task, averaged over all tasks"
        + (" (tokens estimated: the model reported none)" if cost["estimated_tokens"] else "")
        + "; the API cost counts an unpriced call as 0 and says how many there were.",
        "",
        "| LLM calls | Input tokens | Output tokens | Total tokens | Model latency (s) | Wall (s) "
        "| API cost ($) | Reranker calls | Reranker tokens |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        f"| {cost['llm_calls']:.1f} | {cost['input_tokens']:.1f} | {cost['output_tokens']:.1f} | "
        f"{cost['total_tokens']:.1f} | {cost['model_latency']:.2f} | {cost['wall_seconds']:.2f} "
        f"| {api} | {cost['reranker_calls']:.1f} | {cost['reranker_tokens']:.1f} |",
    ]
    return "\n".join(lines) + "\n"


def write_result(result: EvalResult, out: str | Path) -> None:
    """results.json, results.md and rows.jsonl (sorted by run and task) in `out`, each
    replaced whole and redacted of the caller's credential values (answers and chains are
    model text)."""
    d = Path(out)
    redact = redactor()
    try:
        d.mkdir(parents=True, exist_ok=True)
        report = {
            "config": result.config,
            "summary": result.summary,
            "accumulation": result.accumulation,
        }
        atomic_write(d / "results.json", redact(json.dumps(report, indent=2, default=str)))
        atomic_write(d / "results.md", redact(render_markdown(result)))
        atomic_write(
            d / ROWS,
            "".join(redact(json.dumps(r.record(), default=str)) + "\n" for r in result.rows),
        )
    except OSError as exc:
        raise BadInput(f"cannot write results to {d}: {exc}") from None
