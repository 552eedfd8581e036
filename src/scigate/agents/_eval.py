"""The evaluation harness: load a SciToolEval-format bench, run a method, score, report."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from scigate._tmp import scigate_tempdir
from scigate.agents._baselines import BASELINES
from scigate.agents._context import DEFAULT_MAX_TOOLS, AgentContext, ModelLike
from scigate.agents._evo import EvoAgent, EvoConfig
from scigate.agents._parse import extract_json
from scigate.agents._prompts import JUDGE, SYSTEM
from scigate.agents._records import Task, Trajectory, Usage
from scigate.agents._scoring import answer_match, canonical_names, tool_scores
from scigate.agents._toolspace import ToolSpace
from scigate.errors import BadInput
from scigate.tools import Embedder, Tool, make_split

METHODS = ("direct", "cot", "rag", "react", "reflexion", "scitoolagent", "evo")


def check_method(method: str) -> str:
    """The method name, or BadInput listing the valid ones."""
    if method not in METHODS:
        raise BadInput(f"unknown method {method!r}; expected one of {', '.join(METHODS)}")
    return method


def load_bench(path: str | Path) -> list[Task]:
    """Tasks of a JSONL bench file; BadInput (with the line number) when a line is unusable."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInput(f"cannot read bench file {p}: {exc}") from None
    tasks = []
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BadInput(f"{p}:{no}: not valid JSON ({exc.msg})") from None
        if not isinstance(raw, dict):
            raise BadInput(f"{p}:{no}: expected a JSON object")
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
    if not tasks:
        raise BadInput(f"bench file {p} holds no tasks")
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
) -> tuple[bool, str]:
    """(correct, how): by rule when possible, else by the LLM judge, else False."""
    decided = answer_match(predicted, task)
    if decided is not None:
        return decided, "rule"
    if task.answer is None:
        return False, "no-reference"
    if judge is None or not predicted:
        return False, "unjudged"
    out = await judge.generate(
        [
            {"role": "system", "content": SYSTEM},
            {
                "role": "user",
                "content": JUDGE.format(
                    question=task.prompt_text(), reference=task.answer, predicted=predicted
                ),
            },
        ],
        temperature=0,
    )
    reply = extract_json(out.text) or {}
    return reply.get("correct") in (True, "true", "yes", "Yes"), "llm"


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


def summarize_rows(rows: list[dict[str, Any]], runs: int) -> dict[str, Any]:
    """Overall and per-level accuracies (mean ± std over runs, in %) and cost per task."""

    def acc(sel: list[dict[str, Any]], key: str) -> dict[str, float]:
        per_run = []
        for r in range(runs):
            vals = [float(x[key]) for x in sel if x["run"] == r]
            if vals:
                per_run.append(100.0 * statistics.fmean(vals))
        return _mean_std(per_run)

    def block(sel: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "n": len({x["index"] for x in sel}),
            "tool": acc(sel, "tool_exact"),
            "tool_set_f1": acc(sel, "tool_set_f1"),
            "tool_lcs": acc(sel, "tool_lcs"),
            "answer": acc(sel, "answer_correct"),
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
        },
    }


def _judge_for_training(judge: ModelLike | None) -> Callable[[Task, Trajectory], Any]:
    async def decide(task: Task, traj: Trajectory) -> bool:
        if task.answer is not None:
            ok, _ = await judge_answer(judge, task, traj.answer)
            return ok
        if task.tool_path:
            return traj.chain == task.tool_path
        return traj.executed_ok

    return decide


async def run_method(
    method: str, ctx: AgentContext, task: Task, agent: EvoAgent | None = None
) -> Trajectory:
    """One task with one method (Evo needs its agent)."""
    if method == "evo":
        if agent is None:
            raise ValueError("method 'evo' needs an EvoAgent")
        return await agent.solve(ctx, task)
    return await BASELINES[check_method(method)](ctx, task)


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
) -> EvalResult:
    """Run `config.method` over the tasks `config.runs` times and score every answer."""
    check_method(config.method)
    aliases = alias_table(tools)
    rows: list[dict[str, Any]] = []
    accumulation: list[dict[str, Any]] = []
    tmp = scigate_tempdir("evo")
    try:
        for run in range(config.runs):
            agent: EvoAgent | None = None
            if config.method == "evo":
                if config.memory:
                    base = Path(config.memory)
                    mem = (
                        base
                        if config.runs == 1
                        else base.with_name(f"{base.stem}-run{run}{base.suffix or '.db'}")
                    )
                else:
                    mem = Path(tmp.name) / f"memory-run{run}.db"
                agent = EvoAgent.open(
                    mem,
                    tools,
                    known_ratio=config.known_ratio,
                    split_seed=config.split_seed,
                    config=config.evo,
                    embedder=embedder,
                )
                space = agent.space
                if train and config.accumulate:
                    ctx = AgentContext(
                        model=model,
                        space=space,
                        temperature=config.temperature,
                        max_tools=config.max_tools,
                    )
                    report = await agent.accumulate(ctx, train, _judge_for_training(judge))
                    accumulation.append(
                        {"run": run, **report.__dict__, "usage": ctx.usage.model_dump()}
                    )
            else:
                space = ToolSpace(
                    tools,
                    make_split(tools, seed=config.split_seed, known_ratio=config.known_ratio),
                    embedder=embedder,
                )
            try:
                for index, task in enumerate(tasks):
                    ctx = AgentContext(
                        model=model,
                        space=space,
                        temperature=config.temperature,
                        max_tools=config.max_tools,
                    )
                    started = time.perf_counter()
                    try:
                        traj = await run_method(config.method, ctx, task, agent)
                    except BadInput:
                        raise
                    except Exception as exc:  # one broken task must not lose the run
                        traj = Trajectory(
                            method=config.method,
                            question=task.question,
                            error=f"{type(exc).__name__}: {exc}",
                            usage=ctx.usage,
                            events=ctx.events,
                        )
                    traj.wall_seconds = time.perf_counter() - started
                    predicted = canonical_names(traj.chain, aliases)
                    reference = canonical_names(task.tool_path, aliases)
                    ts = tool_scores(predicted, reference)
                    correct, how = await judge_answer(judge, task, traj.answer)
                    u: Usage = traj.usage
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
                        "answer_correct": float(correct),
                        "judged_by": how,
                        "route": traj.route,
                        "executed_ok": traj.executed_ok,
                        "error": traj.error,
                        "calls": u.calls,
                        "input_tokens": u.input_tokens,
                        "output_tokens": u.output_tokens,
                        "latency": u.latency,
                        "cost": u.cost,
                        "estimated_tokens": u.estimated_tokens,
                        "wall_seconds": traj.wall_seconds,
                        "model_free_seconds": max(0.0, traj.wall_seconds - u.latency),
                    }
                    rows.append(row)
                    if on_task is not None:
                        on_task(row, traj)
            finally:
                if agent is not None:
                    if agent.memory is not None:
                        accumulation.append({"run": run, "memory": agent.memory.summary()})
                    agent.close()
    finally:
        tmp.cleanup()
    cfg = {
        "method": config.method,
        "runs": config.runs,
        "known_ratio": config.known_ratio,
        "split_seed": config.split_seed,
        "temperature": config.temperature,
        "accumulate": config.accumulate,
        "evo": config.evo.__dict__ if config.method == "evo" else None,
        "tasks": len(tasks),
        "train_tasks": len(train or []),
    }
    return EvalResult(
        config=cfg, rows=rows, summary=summarize_rows(rows, config.runs), accumulation=accumulation
    )


def _pm(block: dict[str, float]) -> str:
    return f"{block['mean']:.2f} ± {block['std']:.2f}"


def render_markdown(result: EvalResult) -> str:
    """The report as Markdown: accuracy (overall, per level) and the cost table."""
    s, c = result.summary, result.config
    lines = [
        f"# Agent evaluation: {c['method']}",
        "",
        f"{c['tasks']} tasks × {c['runs']} run(s), known ratio {c['known_ratio']}, split seed {c['split_seed']}"
        + (f", {c['train_tasks']} training tasks" if c.get("train_tasks") else ""),
        "",
        "| Level | n | Tool (exact) | Tool (set F1) | Tool (LCS) | Answer |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, block in [*s["levels"].items(), ("overall", s["overall"])]:
        lines.append(
            f"| {name} | {block['n']} | {_pm(block['tool'])} | {_pm(block['tool_set_f1'])} | "
            f"{_pm(block['tool_lcs'])} | {_pm(block['answer'])} |"
        )
    cost = s["cost"]
    api = "n/a" if cost["api_cost"] is None else f"{cost['api_cost']:.4f}"
    lines += [
        "",
        "Cost per task"
        + (" (tokens estimated: the model reported none)" if cost["estimated_tokens"] else ""),
        "",
        "| LLM calls | Input tokens | Output tokens | Total tokens | Model latency (s) | Wall (s) | API cost ($) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        f"| {cost['llm_calls']:.1f} | {cost['input_tokens']:.1f} | {cost['output_tokens']:.1f} | "
        f"{cost['total_tokens']:.1f} | {cost['model_latency']:.2f} | {cost['wall_seconds']:.2f} | {api} |",
    ]
    return "\n".join(lines) + "\n"


def write_result(result: EvalResult, out: str | Path) -> None:
    """results.json, results.md and rows.jsonl in `out`."""
    d = Path(out)
    try:
        d.mkdir(parents=True, exist_ok=True)
        (d / "results.json").write_text(
            json.dumps(
                {
                    "config": result.config,
                    "summary": result.summary,
                    "accumulation": result.accumulation,
                },
                indent=2,
                default=str,
            )
        )
        (d / "results.md").write_text(render_markdown(result))
        (d / "rows.jsonl").write_text(
            "".join(json.dumps(r, default=str) + "\n" for r in result.rows)
        )
    except OSError as exc:
        raise BadInput(f"cannot write results to {d}: {exc}") from None
