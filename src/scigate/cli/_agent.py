"""`scigate agent`: answer one question with a method, or evaluate a method on a bench."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from scigate._bounds import range_of
from scigate.agents import (
    DEFAULT_MAX_TOOLS,
    GATES,
    METHODS,
    RETRIEVALS,
    AgentContext,
    EvalConfig,
    EvalResult,
    EvalRow,
    EvoAgent,
    EvoConfig,
    RunRecord,
    Task,
    ToolSpace,
    Trajectory,
    accumulation_checkpoints,
    accumulation_problem,
    answer_line,
    check_method,
    cost_line,
    errors_dominate,
    evaluate,
    library_tools,
    load_bench,
    render_checkpoints,
    render_markdown,
    run_method,
    running,
    tool_line,
    write_result,
)
from scigate.cli._async import run_async
from scigate.cli._cache import (
    AllowUnpricedOption,
    CacheOption,
    MaxCallsOption,
    MaxCostOption,
    MaxTokensOption,
    use_budget,
    use_cache,
)
from scigate.cli._console import inert, inert_markup, one_line, print_json
from scigate.cli._executor import (
    ExecutorOption,
    RayAddressOption,
    check_executor,
    open_executor,
)
from scigate.cli._validate import library_option
from scigate.errors import BadInput, BudgetExceeded

DOMAINS = ("biology", "chemistry", "materials")
GATE_HELP = (
    "linucb (the paper) | fixed-threshold (exploit when f >= 0.5) | llm (the model decides) "
    "| exploit (always) | explore (always); Table A1."
)
RETRIEVAL_HELP = (
    "active (active tool requests, the paper) | rewrite (one model-rewritten retrieval query "
    "per request instead; Table A1's Retrieval Rewriting)."
)
DECOMPOSE_HELP = "Table A1's Query Decomposition: sub-questions instead of active requests."

app = typer.Typer(help="Tool-using agents: SciToolAgent-Evo and baselines.", no_args_is_help=True)
console = Console(stderr=False)


def _model(spec: str, record: RunRecord | None = None, role: str = "agent") -> Any:
    """The model `spec` names, recording its calls in the run (if any) under `role`."""
    from scigate.llm import get_model

    return get_model(spec, recorder=record.recorder(role) if record is not None else None)


def _embedder(spec: str) -> Any:
    """The embedder a spec names (BadInput, exit 2, for a bad spec or a missing key)."""
    from scigate.tools import make_embedder

    return make_embedder(spec)


def _reranker(spec: str | None, record: RunRecord | None) -> tuple[Any, bool]:
    """(the separate reranker model or None, whether to rerank with a model at all):
    no spec reranks with the main model, `none` ranks by retrieval scores."""
    if spec is None:
        return None, True
    if spec.strip().lower() == "none":
        return None, False
    return _model(spec, record, role="reranker"), True


def _check_specs(*specs: str | None) -> None:
    """Configuration errors (bad spec, missing key or file) before any work: exit 2."""
    from scigate.llm import check_spec

    for spec in specs:
        if spec and spec.strip().lower() != "none":
            check_spec(spec)


EMBEDDER_HELP = (
    "Embeddings for tool retrieval, skill matching, experience top-k and dedup: hashing "
    "(offline default), sentence-transformers/NAME, openai/text-embedding-3-small or "
    "openai-compatible/NAME?base_url=URL (vectors cached on disk)."
)
RERANKER_HELP = (
    "Model spec of the rerank-and-score step (default: the main model, at its cost), or "
    "none to rank by retrieval scores."
)


def _say(markup: str, *plain: Any) -> None:
    """Print `markup` (rich tags) with each `{}` filled by a plain value made inert: a
    model's or tool's text shows as written, its markup and control characters escaped."""
    console.print(markup.format(*(inert_markup(p) for p in plain)), highlight=False)


def _names(names: list[str] | None) -> str:
    return ", ".join(names or []) or "-"


def _show_tool(event: dict[str, Any]) -> None:
    attempt = f" (attempt {event['attempt']})" if event.get("attempt", 1) > 1 else ""
    origin = "" if event.get("known", True) else " [unknown tool]"
    label = f"{event['tool']}{origin}{attempt}"
    if not event.get("called", True):
        _say("  [red]no call[/red] {}: {}", label, event.get("error"))
        return
    args = json.dumps(event.get("arguments", {}), default=str)
    if event["ok"]:
        _say("  [green]ok[/green] {} args {} → {}", label, args, event.get("output"))
    else:
        _say("  [red]failed[/red] {} args {} → error: {}", label, args, event.get("error"))


def _show_gate(event: dict[str, Any]) -> None:
    x = ", ".join(f"{k}={v:.2f}" for k, v in zip("fmsp", event["x"], strict=False))
    scores = ", ".join(f"{a}={s:.3f}" for a, s in event["scores"].items())
    _say(
        "[magenta]gate[/magenta] {}\n    rerank top-1 {}, top-2 {}; x=\\[{}] α={} UCB({}) → "
        "[bold]{}[/bold]: {}",
        event["request"],
        event.get("top1") or "-",
        event.get("top2") or "-",
        x,
        f"{event['alpha']:.3f}",
        scores,
        event["arm"],
        event["tool"] or "(no tool found)",
    )
    if event.get("note"):
        _say("    [yellow]note[/yellow] {}", event["note"])


def _show_event(event: dict[str, Any]) -> None:
    """Print one trajectory event (every method emits the same kinds)."""
    kind = event["kind"]
    if kind == "requests":
        console.print("[bold]Active tool requests[/bold]")
        for r in event["requests"]:
            _say("  • {}", r)
    elif kind == "candidates":
        parts = [
            f"{side} [{_names(event[side])}]" for side in ("known", "unknown") if side in event
        ]
        if "known_all" in event:  # planned over the whole known graph
            parts.insert(0, f"known [all {event['known_all']} known tools]")
        _say(
            "[cyan]candidates[/cyan] for [italic]{}[/italic]: {}",
            event.get("request"),
            " ".join(parts),
        )
    elif kind == "gate":
        _show_gate(event)
    elif kind == "difficulty":
        if event["estimated_tool_count"] is None:
            _say("[yellow]difficulty[/yellow] no usable estimate → complex")
        else:
            _say(
                "[yellow]difficulty[/yellow] tools={} entities={} → {}",
                event["estimated_tool_count"],
                event["entity_count"],
                event["route"],
            )
    elif kind == "skill":
        _say(
            "[yellow]skill[/yellow] {} (similarity {}) matched={}",
            event["skill"],
            f"{event['similarity']:.2f}",
            event["matched"],
        )
    elif kind == "chain":
        attempt = f" (attempt {event['attempt']})" if "attempt" in event else ""
        _say("[bold]tool chain{}[/bold] {}", attempt, " → ".join(event["chain"]) or "(empty)")
    elif kind == "tool":
        _show_tool(event)
    elif kind == "llm" and event.get("purpose") == "react" and (event.get("text") or "").strip():
        _say("[dim]thought[/dim] {}", event["text"].strip())
    elif kind == "answer":
        _say("[bold]summary[/bold] → {}", event["answer"])
    elif kind == "migrate":
        _say("[green]migrated[/green] {} into the known graph", event["tool"])
    elif kind == "skill-added":
        _say("[green]new skill[/green] {}: {}", event["name"], " → ".join(event["chain"]))
    elif kind == "reflection":
        _say("[yellow]reflection[/yellow] {}", event["text"])
    elif kind == "rewrite":
        _say("[cyan]rewrite[/cyan] {} → [italic]{}[/italic]", event["query"], event["rewritten"])


def _evo_config(
    no_skill: bool,
    no_experience: bool,
    no_tool_migration: bool,
    no_inference_migration: bool,
    no_active_requests: bool,
    no_rerank: bool,
    gate: str,
    no_routing: bool,
    temperature: float,
    retrieval: str = "active",
    decompose: bool = False,
    gate_threshold: float | None = None,
    gate_seed: int = 0,
) -> EvoConfig:
    if gate not in GATES:
        raise BadInput(f"--gate must be one of {', '.join(GATES)}, got {gate!r}")
    if gate_threshold is not None and gate != "fixed-threshold":
        raise BadInput("--gate-threshold applies to --gate fixed-threshold only")
    threshold = range_of(EvoConfig, "gate_threshold")  # the library's declaration
    if gate_threshold is not None and threshold.reason(gate_threshold):
        raise BadInput(f"--gate-threshold must lie in {threshold.interval()}, got {gate_threshold}")
    if retrieval not in RETRIEVALS:
        raise BadInput(f"--retrieval must be one of {', '.join(RETRIEVALS)}, got {retrieval!r}")
    config = EvoConfig(
        retrieval=retrieval,
        decompose=decompose,
        skills=not no_skill,
        experiences=not no_experience,
        tool_migration=not no_tool_migration,
        inference_migration=not no_inference_migration,
        active_requests=not no_active_requests,
        rerank=not no_rerank,
        gate=gate,
        gate_seed=gate_seed,
        routing=not no_routing,
        temperature=temperature,
    )
    return config if gate_threshold is None else replace(config, gate_threshold=gate_threshold)


@app.command("run")
def run_cmd(
    invocation: typer.Context,
    question: Annotated[str, typer.Argument(help="The question to answer.")],
    model: Annotated[
        str, typer.Option("--model", help="Model spec (PROVIDER/MODEL or python/PATH.py:FN).")
    ],
    method: Annotated[str, typer.Option("--method", help=f"One of {', '.join(METHODS)}.")] = "evo",
    parameter: Annotated[
        list[str] | None,
        typer.Option(
            "--parameter",
            help="SciToolEval's Parameter field: a substance, sequence or ID (repeat for several).",
        ),
    ] = None,
    domain: Annotated[
        str | None,
        typer.Option(
            "--domain",
            help="Task domain d_q (biology, chemistry, materials): selects Evo's domain experiences.",
        ),
    ] = None,
    memory: Annotated[
        Path | None, typer.Option("--memory", help="Evo memory file (kept across runs).")
    ] = None,
    answer: Annotated[
        str | None,
        typer.Option(
            "--answer",
            help="The reference answer: the reply is scored against it, and Evo learns from "
            "this question (bandit reward, skill, migration) only when the rules judge the "
            "reply right. Without it nothing is learned: a chain that merely ran is no reward.",
        ),
    ] = None,
    known_ratio: Annotated[
        float,
        library_option(
            "--known-ratio",
            record=EvalConfig,
            field="known_ratio",
            help="Share of the library offered as known tools (default 1: the whole library). "
            "Below 1 the rest is 'unknown', reachable only through tool search: the evaluation "
            "split of agent eval, for trying a method under it.",
        ),
    ] = 1.0,
    split_seed: Annotated[
        int, typer.Option("--split-seed", help="Seed of the known/unknown split (below 1).")
    ] = 0,
    db: Annotated[
        Path | None, typer.Option("--db", help="Run database recording every model call.")
    ] = None,
    max_tools: Annotated[
        int,
        library_option(
            "--max-tools",
            record=EvalConfig,
            field="max_tools",
            help="Function tools one request offers: a retrieved top-k plus search_tools "
            "(capped by the provider's limit, e.g. 128 for OpenAI).",
        ),
    ] = DEFAULT_MAX_TOOLS,
    temperature: Annotated[
        float,
        library_option(
            "--temperature", record=EvalConfig, field="temperature", help="Sampling temperature."
        ),
    ] = 0.3,
    embedder: Annotated[str, typer.Option("--embedder", help=EMBEDDER_HELP)] = "hashing",
    reranker: Annotated[str | None, typer.Option("--reranker", help=RERANKER_HELP)] = None,
    gate: Annotated[str, typer.Option("--gate", help=GATE_HELP)] = "linucb",
    retrieval: Annotated[str, typer.Option("--retrieval", help=RETRIEVAL_HELP)] = "active",
    decompose: Annotated[bool, typer.Option("--decompose", help=DECOMPOSE_HELP)] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the trajectory as JSON.")] = False,
    cache: CacheOption = None,
    max_cost: MaxCostOption = None,
    max_tokens: MaxTokensOption = None,
    max_calls: MaxCallsOption = None,
    allow_unpriced: AllowUnpricedOption = False,
) -> None:
    """Answer one question and show the whole trajectory: routing, active requests,
    candidates, gate decisions (x and UCB scores), every tool call, the answer."""
    use_cache(invocation, cache)
    check_method(method)
    evo = _evo_config(
        False, False, False, False, False, False, gate, False, temperature, retrieval, decompose
    )
    if domain is not None and domain not in DOMAINS:
        raise BadInput(f"--domain must be one of {', '.join(DOMAINS)}, got {domain!r}")
    _check_specs(model, reranker)  # a missing key or file: configuration error before any work
    use_budget(invocation, max_cost, max_tokens, max_calls, allow_unpriced, [model, reranker])
    vectors = _embedder(embedder)
    task = Task(
        question=question,
        parameter=list(parameter) if parameter else None,
        domain=domain,
        answer=answer,
    )
    tools = library_tools()
    record = RunRecord.open(
        db, "agent-run", {"method": method, "model": model, "question": question}
    )
    llm = _model(model, record, role=method)
    rerank_model, rerank = _reranker(reranker, record)

    async def go() -> tuple[Trajectory, AgentContext]:
        agent = tmp = None
        if method == "evo":
            from scigate._tmp import scigate_tempdir

            # without --memory the memory lives only as long as this run
            if memory:
                path = memory
            else:
                tmp = scigate_tempdir("evo")
                path = Path(tmp.name) / "memory.db"
            agent = EvoAgent.open(
                path,
                tools,
                known_ratio=known_ratio,
                split_seed=split_seed,
                config=replace(evo, rerank=evo.rerank and rerank),
                embedder=vectors,
            )
            space = agent.space
        else:
            from scigate.tools import make_split

            split = make_split(tools, seed=split_seed, known_ratio=known_ratio)
            space = ToolSpace(tools, split, embedder=vectors)
        ctx = AgentContext(
            model=llm,
            space=space,
            temperature=temperature,
            on_event=None if json_out else _show_event,
            max_tools=max_tools,
            reranker=rerank_model,
        )
        try:
            return await run_method(method, ctx, task, agent), ctx
        finally:
            if agent is not None:
                agent.close()
            if tmp is not None:
                tmp.cleanup()

    with running(record):  # the run's final status, on every way out
        traj, ctx = run_async(go())
    if json_out:
        print_json(console, json.loads(traj.model_dump_json()))
        return
    u = traj.usage
    if traj.error:
        _say("[red]error[/red] {}", traj.error)
    _say("[bold green]Answer:[/bold green] {}", traj.answer)
    if answer is not None:
        from scigate.agents import score_answer

        verdict = score_answer(traj.answer, answer, task)
        _say("verdict: {} ({}: {})", verdict.outcome, verdict.kind, verdict.reason)
    console.print(
        f"{u.calls} LLM calls, {u.input_tokens} input / {u.output_tokens} output tokens"
        f"{' (estimated)' if u.estimated_tokens else ''}, {traj.wall_seconds:.2f} s"
    )
    r = ctx.reranker_usage
    if r.calls:
        console.print(
            f"reranker: {r.calls} calls, {r.input_tokens} input / {r.output_tokens} output tokens"
        )


@app.command("eval")
def eval_cmd(
    invocation: typer.Context,
    method: Annotated[str, typer.Option("--method", help=f"One of {', '.join(METHODS)}.")],
    bench: Annotated[Path, typer.Option("--bench", help="SciToolEval-format JSONL bench.")],
    model: Annotated[str, typer.Option("--model", help="Model spec.")],
    runs: Annotated[
        int,
        library_option(
            "--runs", record=EvalConfig, field="runs", help="Independent runs (mean ± std)."
        ),
    ] = 1,
    epochs: Annotated[
        int,
        library_option(
            "--epochs",
            record=EvalConfig,
            field="epochs",
            help="Repeat each task this many times in every run (inspect_ai's --epochs; "
            "rows carry their epoch; mean ± std over runs x epochs, and per epoch). "
            "Baselines only: Evo's repetitions are --runs.",
        ),
    ] = 1,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            min=1,
            help="Evaluate only the first N tasks of --bench, in file order (inspect_ai's "
            "--limit: try a run cheaply first).",
        ),
    ] = None,
    train: Annotated[
        Path | None,
        typer.Option("--train", help="Training JSONL for knowledge accumulation (evo)."),
    ] = None,
    max_tools: Annotated[
        int,
        library_option(
            "--max-tools",
            record=EvalConfig,
            field="max_tools",
            help="Function tools one request offers: a retrieved top-k plus search_tools "
            "(capped by the provider's limit, e.g. 128 for OpenAI).",
        ),
    ] = DEFAULT_MAX_TOOLS,
    judge: Annotated[
        str | None,
        typer.Option(
            "--judge",
            help="Model spec of the answer judge, asked only for the answers the rules cannot "
            "decide (the paper's setting: openai/gpt-5-mini). Default none: those answers "
            "are counted as unjudged, never as right or wrong.",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Directory for results.json / results.md / rows.jsonl."),
    ] = None,
    db: Annotated[
        Path | None, typer.Option("--db", help="Run database recording every model call.")
    ] = None,
    memory: Annotated[Path | None, typer.Option("--memory", help="Evo memory file.")] = None,
    known_ratio: Annotated[
        float,
        library_option(
            "--known-ratio",
            record=EvalConfig,
            field="known_ratio",
            help="The evaluation split (SciToolAgent-Evo's setting): this share of each "
            "category is 'known' and offered up front; the rest is 'unknown', reachable only "
            "through tool search, which measures tool acquisition. 1 offers the whole library.",
        ),
    ] = 0.5,
    split_seed: Annotated[
        int,
        library_option(
            "--split-seed",
            record=EvalConfig,
            field="split_seed",
            help="Seed of the known/unknown split.",
        ),
    ] = 0,
    temperature: Annotated[
        float,
        library_option(
            "--temperature", record=EvalConfig, field="temperature", help="Sampling temperature."
        ),
    ] = 0.3,
    no_accumulation: Annotated[
        bool, typer.Option("--no-accumulation", help="Ablation: skip --train.")
    ] = False,
    no_tool_migration: Annotated[bool, typer.Option("--no-tool-migration")] = False,
    no_inference_migration: Annotated[bool, typer.Option("--no-inference-migration")] = False,
    no_skill: Annotated[bool, typer.Option("--no-skill")] = False,
    no_experience: Annotated[bool, typer.Option("--no-experience")] = False,
    no_active_requests: Annotated[bool, typer.Option("--no-active-requests")] = False,
    no_rerank: Annotated[bool, typer.Option("--no-rerank")] = False,
    gate: Annotated[str, typer.Option("--gate", help=GATE_HELP)] = "linucb",
    gate_threshold: Annotated[
        float | None,
        typer.Option(
            "--gate-threshold",
            help="--gate fixed-threshold: exploit when the top-1 feasibility f reaches this "
            "(default 0.5).",
        ),
    ] = None,
    gate_seed: Annotated[
        int,
        typer.Option(
            "--gate-seed",
            help="Seed of the gate's tie-breaking generator; run r of --runs uses seed + r.",
        ),
    ] = 0,
    retrieval: Annotated[str, typer.Option("--retrieval", help=RETRIEVAL_HELP)] = "active",
    decompose: Annotated[bool, typer.Option("--decompose", help=DECOMPOSE_HELP)] = False,
    checkpoints: Annotated[
        bool,
        typer.Option(
            "--checkpoints",
            help="evo with --train: accumulation checkpoints at 0/25/50/75/100% (Table A2); "
            "one extra accumulation pass and one test pass per checkpoint.",
        ),
    ] = False,
    no_routing: Annotated[
        bool, typer.Option("--no-routing", help="Ablation: no difficulty routing.")
    ] = False,
    embedder: Annotated[str, typer.Option("--embedder", help=EMBEDDER_HELP)] = "hashing",
    reranker: Annotated[str | None, typer.Option("--reranker", help=RERANKER_HELP)] = None,
    concurrency: Annotated[
        int,
        library_option(
            "--concurrency",
            record=EvalConfig,
            field="concurrency",
            help="Tasks in flight at once (evo: runs in flight; its tasks learn in order). "
            "Model calls are also limited per endpoint (the spec's concurrency setting).",
        ),
    ] = 1,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume", help="Continue the interrupted evaluation in --out (no task runs twice)."
        ),
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    executor: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    cache: CacheOption = None,
    max_cost: MaxCostOption = None,
    max_tokens: MaxTokensOption = None,
    max_calls: MaxCallsOption = None,
    allow_unpriced: AllowUnpricedOption = False,
    estimate: Annotated[
        bool,
        typer.Option(
            "--estimate",
            help="Print the expected calls, tokens and cost of this evaluation (measured "
            "from --db's earlier evaluations of the method, else stated defaults) and exit "
            "without calling any model.",
        ),
    ] = False,
) -> None:
    """Evaluate a method: Tool/Answer accuracy (overall, per level) with error and
    unjudged counts, and cost per task. Rows are written to --out as tasks end; exit
    status 1 when more than half of the tasks ended in an error. With --executor ray a
    baseline's tasks run on the workers; evo's loop and memory stay here and its tool
    calls run on the workers."""
    use_cache(invocation, cache)
    check_method(method)
    tasks = load_bench(bench)
    if limit is not None:
        tasks = tasks[:limit]
    train_tasks = load_bench(train) if train is not None else None
    if judge is not None and judge.strip().lower() == "none":
        judge = None
    evo = _evo_config(
        no_skill,
        no_experience,
        no_tool_migration,
        no_inference_migration,
        no_active_requests,
        no_rerank,
        gate,
        no_routing,
        temperature,
        retrieval,
        decompose,
        gate_threshold,
        gate_seed,
    )
    if checkpoints and (method != "evo" or train_tasks is None):
        raise BadInput("--checkpoints needs --method evo and an accumulation set (--train)")
    if resume and out is None:
        raise BadInput("--resume needs --out: the directory of the evaluation to continue")
    if estimate:  # no credentials needed: nothing is called
        _print_estimate(
            model, method, len(tasks), runs * epochs, len(train_tasks or []), db, json_out
        )
        return
    _check_specs(model, judge, reranker)  # configuration errors before any work (exit 2)
    check_executor(executor, ray_address)
    if executor != "local" and (max_cost or max_tokens or max_calls):
        raise BadInput(
            "--max-cost, --max-tokens and --max-calls count the calls of this process: "
            "use them with --executor local"
        )
    use_budget(
        invocation, max_cost, max_tokens, max_calls, allow_unpriced, [model, judge, reranker]
    )
    vectors = _embedder(embedder)
    config = EvalConfig(
        method=method,
        runs=runs,
        epochs=epochs,
        known_ratio=known_ratio,
        split_seed=split_seed,
        temperature=temperature,
        evo=evo,
        accumulate=not no_accumulation,
        memory=str(memory) if memory else None,
        max_tools=max_tools,
        concurrency=concurrency,
    )
    record = RunRecord.open(
        db,
        "agent-eval",
        {
            "method": method,
            "model": model,
            "bench": str(bench),
            "limit": limit,
            "runs": runs,
            "epochs": epochs,
            "known_ratio": known_ratio,
            "embedder": embedder,
            "reranker": reranker,
            "resume": resume,
        },
    )
    models = _EvalModels.make(model, judge, reranker, method, record)
    config.evo.rerank = config.evo.rerank and models.rerank
    started = time.perf_counter()
    try:
        result, stages = _run_evaluation(
            models,
            tasks,
            train_tasks if checkpoints else None,
            config,
            embedder=vectors,
            out=out,
            resume=resume,
            train=train_tasks,
            view=_EvalView(method, json_out),
            executor=(executor, ray_address),
            record=record,
        )
    except BudgetExceeded as exc:
        done = _rows_written(out)
        kept = (
            f"{done} of {runs * len(tasks)} tasks done and kept in {out}"
            if out
            else ("nothing kept: run with --out to keep finished tasks and --resume them")
        )
        raise BudgetExceeded(exc.budget, f"{exc} ({kept})", exc.spent) from None
    if out is not None:
        _write_evaluation(result, out, stages if checkpoints else None)
    if json_out:
        _print_json_summary(result, stages if checkpoints else None)
    else:
        _print_report(
            result,
            stages if checkpoints else None,
            method=method,
            tasks=len(tasks),
            runs=runs,
            took=time.perf_counter() - started,
        )
    _exit_on_failure(result)


@dataclass
class _EvalModels:
    """The models of one evaluation, each recording its calls in the run (if any)."""

    llm: Any
    judge: Any
    reranker: Any
    rerank: bool  # whether a model reranks at all (`--reranker none`: retrieval scores)

    @classmethod
    def make(
        cls,
        model: str,
        judge: str | None,
        reranker: str | None,
        method: str,
        record: RunRecord | None,
    ) -> _EvalModels:
        llm = _model(model, record, role=method)
        judge_model = _model(judge, record, role="judge") if judge else None
        rerank_model, rerank = _reranker(reranker, record)
        return cls(llm=llm, judge=judge_model, reranker=rerank_model, rerank=rerank)


class _EvalView:
    """The progress bar and the per-task lines of `agent eval` (none with --json)."""

    def __init__(self, method: str, json_out: bool) -> None:
        self.json_out, self.tally = json_out, _Tally()
        self.progress = Progress(
            TextColumn(f"[bold]{inert_markup(method)}[/bold]"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[stats]}"),
            TimeElapsedColumn(),
            console=console,
            disable=json_out,
        )
        self.bar = self.progress.add_task("tasks", total=None, stats="")

    def on_start(self, total: int, resumed: list[EvalRow]) -> None:
        """Count the rows a resumed evaluation already holds."""
        for row in resumed:
            self.tally.add(row)
        self.progress.update(self.bar, total=total, completed=len(resumed), stats=self.tally.line())
        if resumed and not self.json_out:
            _say("[dim]resuming: {} of {} tasks already done[/dim]", len(resumed), total)

    def on_task(self, row: EvalRow, traj: Trajectory) -> None:
        """Show a finished task (the harness has recorded it in the run)."""
        self.tally.add(row)
        self.progress.update(self.bar, advance=1, stats=self.tally.line())
        if not self.json_out:
            mark = _MARKS.get(row.status or "", "?")
            detail = f" [red]error[/red] {inert_markup(row.error)}" if row.error else ""
            _say(
                mark + " run {} task {}: {} → {}" + detail,
                row.run,
                row.index + 1,
                " → ".join(row.predicted_chain),
                row.answer,
            )


def _print_estimate(
    model: str, method: str, tasks: int, runs: int, train: int, db: Path | None, as_json: bool
) -> None:
    """`agent eval --estimate`: the expected calls, tokens and USD, with their source."""
    from scigate.agents import estimate_eval, measured_calls

    found = estimate_eval(model, method, tasks, runs, train, measured_calls(db, method))
    if as_json:
        print_json(console, found.record())
        return
    cost = "n/a (the model has no price)" if found.cost is None else f"${found.cost:.2f}"
    _say(
        "estimate for {} on {}: {} tasks x {} runs" + (" + {} accumulation tasks" if train else ""),
        method,
        model,
        tasks,
        runs,
        *([train] if train else []),
    )
    _say(
        "  {} calls ({} a task), {} input + {} output tokens, {} (judge not included)",
        f"{found.calls:,.0f}",
        f"{found.calls_per_task:.1f}",
        f"{found.input_tokens:,.0f}",
        f"{found.output_tokens:,.0f}",
        cost,
    )
    _say("  from: {}", found.source)


def _rows_written(out: Path | None) -> int:
    """How many task rows an evaluation directory holds."""
    rows = out / "rows.jsonl" if out is not None else None
    if rows is None or not rows.is_file():
        return 0
    return sum(1 for line in rows.read_text().splitlines() if line.strip())


def _run_evaluation(
    models: _EvalModels,
    tasks: list[Task],
    checkpoint_train: list[Task] | None,
    config: EvalConfig,
    *,
    embedder: Any,
    out: Path | None,
    resume: bool,
    train: list[Task] | None,
    view: _EvalView,
    executor: tuple[str, str | None],
    record: RunRecord | None,
) -> tuple[EvalResult, list[dict[str, Any]]]:
    """Run the evaluation (and, given `checkpoint_train`, the accumulation checkpoints) on
    the executor, recorded in the run (if any), whose status is set on every way out."""
    stages: list[dict[str, Any]] = []
    with running(record):
        workers = open_executor(*executor)
        try:
            with view.progress:
                result = run_async(
                    evaluate(
                        models.llm,
                        tasks,
                        library_tools(),
                        config,
                        train=train,
                        judge=models.judge,
                        on_task=view.on_task,
                        embedder=embedder,
                        reranker=models.reranker,
                        out=out,
                        resume=resume,
                        on_start=view.on_start,
                        executor=workers,
                        record=record,
                    )
                )
            if checkpoint_train:
                stages = run_async(
                    accumulation_checkpoints(
                        models.llm,
                        tasks,
                        checkpoint_train,
                        library_tools(),
                        config,
                        judge=models.judge,
                        embedder=embedder,
                        executor=workers,
                    )
                )
        finally:
            if workers is not None:
                workers.close()
    return result, stages


def _write_evaluation(result: EvalResult, out: Path, stages: list[dict[str, Any]] | None) -> None:
    """results.json/.md and rows.jsonl in `out`; with checkpoints, checkpoints.json too."""
    write_result(result, out)
    if stages is not None:
        try:
            (out / "checkpoints.json").write_text(json.dumps(stages, indent=2) + "\n")
        except OSError as exc:
            raise BadInput(f"cannot write {out / 'checkpoints.json'}: {exc}") from None


def _print_json_summary(result: EvalResult, stages: list[dict[str, Any]] | None) -> None:
    payload: dict[str, Any] = {"config": result.config, "summary": result.summary}
    if stages is not None:
        payload["checkpoints"] = stages
    print_json(console, payload)


def _print_report(
    result: EvalResult,
    stages: list[dict[str, Any]] | None,
    *,
    method: str,
    tasks: int,
    runs: int,
    took: float,
) -> None:
    """The markdown report, the checkpoints table and the one-paragraph summary."""
    console.print(inert(render_markdown(result)), highlight=False, markup=False)
    if stages is not None:
        console.print(
            "\nAccumulation checkpoints (Table A2)\n\n" + inert(render_checkpoints(stages)),
            highlight=False,
            markup=False,
        )
    o = result.summary["overall"]
    console.print(
        inert(
            f"{method}: {tasks} tasks × {runs} run(s), {took:.1f} s\n"
            f"{tool_line(o, runs)}\n{answer_line(o, runs)}\n"
            f"{cost_line(result.summary['cost'])}; "
            f"{result.summary['cost']['llm_calls']:.1f} LLM calls per task"
        ),
        highlight=False,
        markup=False,
    )


def _exit_on_failure(result: EvalResult) -> None:
    """Exit status 1 when errors dominate or the accumulation taught nothing it should."""
    if errors_dominate(result.summary, len(result.rows)):
        first = next(r.error for r in result.rows if r.status == "error")
        typer.echo(
            f"scigate: error: {result.summary['overall']['errors']} of {len(result.rows)} tasks "
            f"ended in an error (first: {one_line(first or '')})",
            err=True,
        )
        raise typer.Exit(1)
    problem = accumulation_problem(result.accumulation)
    if problem:  # the evaluation ran on, but without what --train should have taught
        typer.echo(f"scigate: error: {one_line(problem)}", err=True)
        raise typer.Exit(1)


_MARKS = {
    "correct": "[green]✓[/green]",
    "wrong": "[red]✗[/red]",
    "unjudged": "[yellow]?[/yellow]",
    "no-reference": "[dim]-[/dim]",
    "error": "[red]![/red]",
}


class _Tally:
    """Running counts behind the progress bar's accuracy."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.cost = 0.0  # USD of the finished tasks' priced calls
        self.unpriced = 0  # calls without a price, counted beside it
        self.calls = 0

    def add(self, row: EvalRow) -> None:
        status = row.status or "wrong"
        self.counts[status] = self.counts.get(status, 0) + 1
        self.cost += row.cost or 0.0
        self.unpriced += row.unpriced
        self.calls += row.calls

    def line(self) -> str:
        c = self.counts
        right, judged = c.get("correct", 0), c.get("correct", 0) + c.get("wrong", 0)
        acc = f"answer {100.0 * right / judged:.1f}% ({right}/{judged} judged)" if judged else ""
        acc = acc or "answer n/a"
        unpriced = f" +{self.unpriced} unpriced" if self.unpriced else ""
        return (
            f"{acc} · unjudged {c.get('unjudged', 0)} · errors {c.get('error', 0)}"
            f" · {self.calls} calls ${self.cost:.4f}{unpriced}"
        )
