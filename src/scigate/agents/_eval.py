"""The evaluation harness: load a SciToolEval-format bench, run a method, score, report."""

from __future__ import annotations

import asyncio
import hashlib
import json
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from scigate._jsonl import read_objects
from scigate._secrets import redactor
from scigate._tmp import scigate_tempdir
from scigate.agents._baselines import BASELINES
from scigate.agents._context import DEFAULT_MAX_TOOLS, AgentContext, ModelLike
from scigate.agents._evaldir import ROWS, EvalDir, atomic_write
from scigate.agents._evo import EvoAgent, EvoConfig, reference_reward
from scigate.agents._parse import final_answer
from scigate.agents._prompts import JUDGE, JUDGE_SYSTEM
from scigate.agents._records import Task, Trajectory, Usage
from scigate.agents._scoring import answer_match, canonical_names, parse_judge_reply, tool_scores
from scigate.agents._toolrun import ExecutorToolRunner
from scigate.agents._toolspace import ToolSpace
from scigate.errors import BadInput
from scigate.executor import Executor
from scigate.tools import Embedder, Tool, make_embedder, make_split

METHODS = ("direct", "cot", "rag", "react", "reflexion", "scitoolagent", "evo")


def check_method(method: str) -> str:
    """The method name, or BadInput listing the valid ones."""
    if method not in METHODS:
        raise BadInput(f"unknown method {method!r}; expected one of {', '.join(METHODS)}")
    return method


def load_bench(path: str | Path) -> list[Task]:
    """Tasks of a JSONL bench file; BadInput (with the line number) when a line is unusable."""
    p = Path(path)
    tasks = []
    for no, raw in read_objects(p, "bench file"):
        if not isinstance(raw.get("question"), str) or not raw["question"].strip():
            raise BadInput(f"{p}:{no}: missing 'question'")
        path_value = raw.get("tool_path", raw.get("Standard_Toolpath", []))
        if isinstance(path_value, str):
            path_value = [path_value]
        answer = raw.get("answer")
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


def alias_table(tools: dict[str, Tool]) -> dict[str, str]:
    """Lower-case tool names and SciToolKG aliases → library tool names."""
    table = {}
    for name, t in tools.items():
        for a in t.spec.aliases:
            table[a.lower()] = name
        table[name.lower()] = name
    return table


async def judge_answer(
    judge: ModelLike | None, task: Task, predicted: str | None
) -> tuple[bool | None, str]:
    """(verdict, how): by rule when the rules decide; else by the LLM judge with the
    Appendix D prompt, its reply read strictly; else None ("unjudged", or "no-reference"
    when the task has no answer). A failing judge call raises: the caller decides."""
    decided = answer_match(predicted, task)
    if decided is not None:
        return decided, "rule"
    if task.answer is None:
        return None, "no-reference"
    if judge is None or not predicted:
        return None, "unjudged"
    out = await judge.generate(
        [
            {"role": "system", "content": JUDGE_SYSTEM},
            {
                "role": "user",
                "content": JUDGE.format(
                    question=task.prompt_text(),
                    reference=task.answer,
                    predicted=final_answer(predicted) or predicted,
                ),
            },
        ],
        temperature=0,
    )
    verdict = parse_judge_reply(out.text)
    return verdict, ("llm" if verdict is not None else "unjudged-reply")


@dataclass
class EvalConfig:
    """What one evaluation runs."""

    method: str
    runs: int = 1
    known_ratio: float = 0.5
    split_seed: int = 0
    temperature: float = 0.3
    evo: EvoConfig = field(default_factory=EvoConfig)
    accumulate: bool = True  # False: the "w/o knowledge accumulation" ablation
    memory: str | None = None  # evo memory file (per run suffix when runs > 1)
    max_tools: int = DEFAULT_MAX_TOOLS  # function tools a request offers (--max-tools)
    # tasks in flight at once (Evo: runs in flight; its tasks run in order, each learning
    # from the ones before); model calls are further limited per endpoint by the llm layer
    concurrency: int = 1


@dataclass
class EvalResult:
    config: dict[str, Any]
    rows: list[dict[str, Any]]
    summary: dict[str, Any]
    accumulation: list[dict[str, Any]] = field(default_factory=list)


def _mean_std(values: list[float]) -> dict[str, float]:
    if not values:
        return {"mean": 0.0, "std": 0.0}
    return {
        "mean": statistics.fmean(values),
        "std": statistics.pstdev(values) if len(values) > 1 else 0.0,
    }


def _status(row: dict[str, Any]) -> str:
    """A row's answer status (rows written before statuses existed: from answer_correct)."""
    if row.get("status"):
        return str(row["status"])
    return "correct" if row.get("answer_correct") else "wrong"


def summarize_rows(rows: list[dict[str, Any]], runs: int) -> dict[str, Any]:
    """Overall and per-level accuracies (mean ± std over runs, in %), the counts of
    errors and unjudged answers beside them, and cost per task.

    `answer` counts unjudged answers and errors as not correct (a lower bound);
    `answer_decided` is the accuracy over the answers the rules or the judge decided."""

    def acc(sel: list[dict[str, Any]], key: str) -> dict[str, float]:
        per_run = []
        for r in range(runs):
            vals = [float(x[key]) for x in sel if x["run"] == r]
            if vals:
                per_run.append(100.0 * statistics.fmean(vals))
        return _mean_std(per_run)

    def answer_acc(sel: list[dict[str, Any]], decided_only: bool) -> dict[str, float]:
        keep = {"correct", "wrong"} if decided_only else {"correct", "wrong", "unjudged", "error"}
        per_run = []
        for r in range(runs):
            statuses = [_status(x) for x in sel if x["run"] == r]
            statuses = [st for st in statuses if st in keep]
            if statuses:
                per_run.append(100.0 * statuses.count("correct") / len(statuses))
        return _mean_std(per_run)

    def block(sel: list[dict[str, Any]]) -> dict[str, Any]:
        statuses = [_status(x) for x in sel]
        return {
            "n": len({x["index"] for x in sel}),
            "tool": acc(sel, "tool_exact"),
            "tool_set_f1": acc(sel, "tool_set_f1"),
            "tool_lcs": acc(sel, "tool_lcs"),
            "answer": answer_acc(sel, decided_only=False),
            "answer_decided": answer_acc(sel, decided_only=True),
            "errors": statuses.count("error"),
            "unjudged": statuses.count("unjudged"),
        }

    levels = sorted({r["level"] for r in rows if r["level"] is not None})
    n = max(1, len(rows))
    costs = [r["cost"] for r in rows if r["cost"] is not None]
    return {
        "overall": block(rows),
        "levels": {str(lv): block([r for r in rows if r["level"] == lv]) for lv in levels},
        "cost": {
            "llm_calls": sum(r["calls"] for r in rows) / n,
            "input_tokens": sum(r["input_tokens"] for r in rows) / n,
            "output_tokens": sum(r["output_tokens"] for r in rows) / n,
            "total_tokens": sum(r["input_tokens"] + r["output_tokens"] for r in rows) / n,
            "model_latency": sum(r["latency"] for r in rows) / n,
            "wall_seconds": sum(r["wall_seconds"] for r in rows) / n,
            "api_cost": (sum(costs) / len(costs)) if costs else None,
            "estimated_tokens": any(r["estimated_tokens"] for r in rows),
            "reranker_calls": sum(r.get("reranker_calls", 0) for r in rows) / n,
            "reranker_tokens": sum(
                r.get("reranker_input_tokens", 0) + r.get("reranker_output_tokens", 0) for r in rows
            )
            / n,
        },
    }


def errors_dominate(summary: dict[str, Any], rows: int) -> bool:
    """More than half of the tasks ended in an error (the CLI then exits 1)."""
    return rows > 0 and summary["overall"]["errors"] * 2 > rows


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
        except BadInput:
            raise
        except Exception as exc:
            if failures is not None:
                failures.append(_reason(exc))
            return None
        return None if how.startswith("unjudged") or how == "no-reference" else ok

    return reference_reward(answer, aliases)


async def run_method(
    method: str, ctx: AgentContext, task: Task, agent: EvoAgent | None = None
) -> Trajectory:
    """One task with one method (Evo needs its agent)."""
    if method == "evo":
        if agent is None:
            raise ValueError("method 'evo' needs an EvoAgent")
        return await agent.solve(ctx, task)
    return await BASELINES[check_method(method)](ctx, task)


def _reason(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split()) or 'no detail'}"


async def score_task(
    config: EvalConfig,
    ctx: AgentContext,
    task: Task,
    *,
    run: int,
    index: int,
    agent: EvoAgent | None,
    judge: ModelLike | None,
    aliases: dict[str, str],
) -> tuple[dict[str, Any], Trajectory]:
    """Run and score one task. A failing model or judge call makes the row's status
    `error` with the reason; it never propagates (bad input and interrupts do)."""
    started = time.perf_counter()
    try:
        traj = await run_method(config.method, ctx, task, agent)
    except BadInput:
        raise
    except Exception as exc:  # one broken task must not lose the run
        traj = Trajectory(
            method=config.method,
            question=task.question,
            error=_reason(exc),
            usage=ctx.usage,
            events=ctx.events,
        )
    traj.wall_seconds = time.perf_counter() - started
    row = await score_trajectory(
        task, traj, run=run, index=index, judge=judge, aliases=aliases, reranker=ctx.reranker_usage
    )
    return row, traj


async def score_trajectory(
    task: Task,
    traj: Trajectory,
    *,
    run: int,
    index: int,
    judge: ModelLike | None,
    aliases: dict[str, str],
    reranker: Usage | None = None,
) -> dict[str, Any]:
    """The row of one finished trajectory: its answer judged (a failing judge makes the
    status `error`), its tool chain scored, its cost."""
    error = traj.error
    verdict: bool | None = None
    how = "error"
    if error is None:
        try:
            verdict, how = await judge_answer(judge, task, traj.answer)
        except BadInput:
            raise
        except Exception as exc:
            error, how = f"judge: {_reason(exc)}", "judge-error"
    if error is not None:
        status = "error"
    elif how == "no-reference":
        status = "no-reference"
    elif verdict is None:
        status = "unjudged"
    else:
        status = "correct" if verdict else "wrong"
    predicted = canonical_names(traj.chain, aliases)
    reference = canonical_names(task.tool_path, aliases)
    ts = tool_scores(predicted, reference)
    u: Usage = traj.usage
    r: Usage = reranker or Usage()
    row = {
        "run": run,
        "index": index,
        "line": task.line,
        "level": task.level,
        "domain": task.domain,
        "question": task.question,
        "predicted_chain": predicted,
        "reference_chain": reference,
        "tool_exact": ts["exact"],
        "tool_set_f1": ts["set_f1"],
        "tool_lcs": ts["lcs"],
        "answer": traj.answer,
        "reference_answer": task.answer,
        "status": status,
        "answer_correct": None if verdict is None else float(verdict),
        "judged_by": how,
        "route": traj.route,
        "executed_ok": traj.executed_ok,
        "error": error,
        "calls": u.calls,
        "input_tokens": u.input_tokens,
        "output_tokens": u.output_tokens,
        "latency": u.latency,
        "cost": u.cost,
        "estimated_tokens": u.estimated_tokens,
        "reranker_calls": r.calls,
        "reranker_input_tokens": r.input_tokens,
        "reranker_output_tokens": r.output_tokens,
        "wall_seconds": traj.wall_seconds,
        "model_free_seconds": max(0.0, traj.wall_seconds - u.latency),
    }
    return row


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()


def _model_name(model: ModelLike | None) -> str | None:
    return None if model is None else str(getattr(model, "name", type(model).__name__))


def _public_config(config: EvalConfig, tasks: list[Task], train: list[Task] | None) -> dict:
    return {
        "method": config.method,
        "runs": config.runs,
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
    on_task: Callable[[dict[str, Any], Trajectory], None] | None = None,
    embedder: Embedder | None = None,
    reranker: ModelLike | None = None,
    out: str | Path | None = None,
    resume: bool = False,
    on_start: Callable[[int, list[dict[str, Any]]], None] | None = None,
    executor: Executor | None = None,
) -> EvalResult:
    """Run `config.method` over the tasks `config.runs` times and score every answer.

    With `out`, each finished task's row is appended to `out/rows.jsonl` at once, and
    `resume` continues the evaluation there: only (run, index) pairs without a row run.
    `on_start(total, resumed_rows)` is called before the first task. With `executor`,
    the tasks of a baseline method run as its jobs (on Ray workers, say) while rows are
    still appended here; Evo's runs, whose tasks learn in order from one memory, stay in
    this process and only their tool calls run as the executor's jobs."""
    check_method(config.method)
    if config.concurrency < 1:
        raise BadInput(f"--concurrency must be at least 1, got {config.concurrency}")
    if resume and out is None:
        raise BadInput("--resume needs --out: the directory of the evaluation to continue")
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
    rows: list[dict[str, Any]] = list(log.rows) if log else []
    accumulation: list[dict[str, Any]] = list(log.accumulation) if log else []
    done = {(r["run"], r["index"]) for r in rows}
    accumulated = {a["run"] for a in accumulation}
    if on_start is not None:
        on_start(config.runs * len(tasks), list(rows))
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

    async def one(run: int, index: int, task: Task, space: ToolSpace, agent: EvoAgent | None):
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
            )
        finish(row, traj)

    def finish(row: dict[str, Any], traj: Trajectory) -> None:
        if log is not None:
            log.append_row(row)
        rows.append(row)
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
            if train and config.accumulate and run not in accumulated:
                ctx = context(agent.space)
                judge_errors: list[str] = []
                async with semaphore:
                    try:
                        report = await agent.accumulate(
                            ctx, train, _judge_for_training(judge, aliases, judge_errors)
                        )
                        entry = {"run": run, **report.__dict__}
                    except BadInput:
                        raise
                    except Exception as exc:  # the evaluation goes on with what was learnt
                        entry = {"run": run, "error": f"accumulation stopped: {_reason(exc)}"}
                entry.update(usage=ctx.usage.model_dump(), judge_errors=judge_errors)
                accumulation.append(entry)
                if log is not None:
                    log.append_accumulation(entry)
            for index, task in enumerate(tasks):
                if (run, index) not in done:
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
                (run, index, task)
                for run in range(config.runs)
                for index, task in enumerate(tasks)
                if (run, index) not in done
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
                await _run_all([one(run, index, task, space, None) for run, index, task in todo])
    finally:
        tmp.cleanup()
        if log is not None:
            log.close()
    if runner is not None:
        ran_on = {**ran_on, "jobs": "tool calls", **runner.describe()}
    rows.sort(key=lambda r: (r["run"], r["index"]))
    accumulation.sort(key=lambda a: (a["run"], "memory" in a))
    return EvalResult(
        config={**cfg, "executor": ran_on},
        rows=rows,
        summary=summarize_rows(rows, config.runs),
        accumulation=accumulation,
    )


def _pm(block: dict[str, float]) -> str:
    return f"{block['mean']:.2f} ± {block['std']:.2f}"


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
    lines = [
        f"# Agent evaluation: {md_text(c['method'])}",
        "",
        f"{c['tasks']} tasks × {c['runs']} run(s), known ratio {c['known_ratio']}, split seed {c['split_seed']}"
        + (f", {c['train_tasks']} training tasks" if c.get("train_tasks") else "")
        + (md_text(_ran_on(c["executor"])) if c.get("executor") else ""),
        "",
        "Answer counts unjudged answers and errors as not correct; Answer (decided) is the "
        "accuracy over the answers the rules or the judge decided.",
        "",
        "| Level | n | Tool (exact) | Tool (set F1) | Tool (LCS) | Answer | Answer (decided) "
        "| Unjudged | Errors |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, block in [*s["levels"].items(), ("overall", s["overall"])]:
        lines.append(
            f"| {md_text(name)} | {block['n']} | {_pm(block['tool'])} | "
            f"{_pm(block['tool_set_f1'])} | {_pm(block['tool_lcs'])} | {_pm(block['answer'])} | "
            f"{_pm(block['answer_decided'])} | {block['unjudged']} | {block['errors']} |"
        )
    cost = s["cost"]
    api = "n/a" if cost["api_cost"] is None else f"{cost['api_cost']:.4f}"
    lines += [
        "",
        "Cost per task"
        + (" (tokens estimated: the model reported none)" if cost["estimated_tokens"] else ""),
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
            d / ROWS, "".join(redact(json.dumps(r, default=str)) + "\n" for r in result.rows)
        )
    except OSError as exc:
        raise BadInput(f"cannot write results to {d}: {exc}") from None
