"""`scigate bench ...`: derive, verify and build benchmarks with executed answers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from scigate._bounds import range_of
from scigate.bench import BuildConfig
from scigate.cli._app import OneLineGroup
from scigate.cli._async import run_async
from scigate.cli._cache import CacheOption, use_cache
from scigate.cli._console import inert_markup, json_text
from scigate.cli._executor import ExecutorOption, RayAddressOption, open_executor
from scigate.cli._validate import library_option
from scigate.errors import BadInput

app = typer.Typer(
    cls=OneLineGroup,
    help="Benchmarks with executed gold answers: derive, verify, build.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@contextmanager
def _executor(name: str, address: str | None) -> Iterator[Any]:
    """The executor of --executor (None for local: the --workers path), closed after."""
    workers = open_executor(name, address)
    try:
        yield workers
    finally:
        if workers is not None:
            workers.close()


WORKERS_HELP = (
    "Worker processes (default: 1, in-process, below 2000 tasks; else the CPUs, at most 4)."
)


def _echo_json(data: Any) -> None:
    typer.echo(json_text(data))


@contextmanager
def _progress(label: str, total: int) -> Iterator[Callable[[int, int], None]]:
    """A progress bar on stderr (drawn only on a terminal)."""
    console = Console(stderr=True)
    bar = Progress(
        TextColumn(f"[bold]{label}[/bold]"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )
    with bar:
        task = bar.add_task(label, total=total)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


@app.command("derive")
def derive_cmd(
    file: Path = typer.Argument(..., help="A SciToolEval-format JSONL file."),
    out: Path = typer.Option(..., "--out", help="Where to write the tasks with executed answers."),
    workers: int | None = typer.Option(None, "--workers", help=WORKERS_HELP),
    executor: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Add an executed answer and plan to every task whose tool path runs offline."""
    from scigate.bench import read_tasks, reason_counts, run_tasks, write_tasks

    tasks = read_tasks(file)
    with _executor(executor, ray_address) as spread, _progress("derive", len(tasks)) as update:
        outcomes = run_tasks("derive", tasks, workers=workers, progress=update, executor=spread)
    rows = [o.task if o.task is not None else tasks[o.index] for o in outcomes]
    write_tasks(out, rows)
    derived = [o for o in outcomes if o.status == "derived"]
    skipped = [o for o in outcomes if o.status != "derived"]
    differs = [o.index + 1 for o in derived if o.task and "source_answer" in o.task]
    if as_json:
        _echo_json(
            {
                "total": len(tasks),
                "derived": len(derived),
                "out": str(out),
                "not_derived": [{"task": o.index + 1, "reason": o.reason} for o in skipped],
                "reason_counts": dict(reason_counts(outcomes)),
                "source_answer_differs": differs,
            }
        )
        return
    console = Console(soft_wrap=True)
    console.print(
        f"derived {len(derived)} of {len(tasks)} tasks -> {inert_markup(out)}", highlight=False
    )
    if differs:
        console.print(
            f"{len(differs)} source answers differ from the executed ones "
            f"(kept as source_answer): tasks {', '.join(map(str, differs))}",
            highlight=False,
        )
    for o in skipped:
        console.print(f"not derived: {inert_markup(o.line())}", highlight=False)
    if skipped:
        console.print(f"not derived, by reason ({len(skipped)} tasks):", highlight=False)
        for reason, count in reason_counts(outcomes):
            console.print(f"  {count:4d}  {inert_markup(reason)}", highlight=False)


@app.command("verify")
def verify_cmd(
    file: Path = typer.Argument(..., help="A JSONL benchmark file with answers."),
    workers: int | None = typer.Option(None, "--workers", help=WORKERS_HELP),
    executor: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Re-execute every task; list those whose stored answer disagrees (exit 1 if any)."""
    from scigate.bench import read_tasks, run_tasks

    tasks = read_tasks(file)
    with _executor(executor, ray_address) as spread, _progress("verify", len(tasks)) as update:
        outcomes = run_tasks("verify", tasks, workers=workers, progress=update, executor=spread)
    counts = {
        s: sum(1 for o in outcomes if o.status == s)
        for s in ("agrees", "disagrees", "error", "unverifiable")
    }
    failing = [o for o in outcomes if o.status in ("disagrees", "error")]
    if as_json:
        _echo_json(
            {
                "total": len(tasks),
                **counts,
                "passed": not failing,
                "tasks": [
                    {
                        "task": o.index + 1,
                        "status": o.status,
                        "stored": o.stored,
                        "executed": o.answer,
                        "reason": o.reason,
                    }
                    for o in outcomes
                    if o.status != "agrees"
                ],
            }
        )
    else:
        console = Console(soft_wrap=True)
        console.print(
            f"{counts['agrees']} of {len(tasks)} stored answers re-derived; "
            f"{counts['disagrees']} disagree, {counts['error']} could not be re-executed, "
            f"{counts['unverifiable']} unverifiable",
            highlight=False,
        )
        for o in outcomes:
            if o.status != "agrees":
                console.print(inert_markup(o.line()), highlight=False)
    if failing:
        raise typer.Exit(1)


@app.command("build")
def build_cmd(
    invocation: typer.Context,
    generator: str = typer.Option(
        ..., "--generator", help="'templates' (no model) or a model spec for the question writer."
    ),
    n: int = library_option(
        ..., "--n", record=BuildConfig, field="n", help="How many tasks to build."
    ),
    db: Path = typer.Option(..., "--db", help="Run database: every attempt and outcome."),
    out: Path = typer.Option(..., "--out", help="Where to write the tasks (JSONL)."),
    levels: str = typer.Option(
        "1,2,3,4",
        "--levels",
        help="Levels to build, e.g. 1,2,3,4 "
        f"(Allowed: each {range_of(BuildConfig, 'levels').text()}.)",
    ),
    screen: list[str] = typer.Option(
        [], "--screen", help="No-tool screen (model spec or cue/NAME) that must fail; repeatable."
    ),
    judge: str | None = typer.Option(
        None, "--judge", help="Model spec of the Appendix D sample-quality judge (optional)."
    ),
    solver: str | None = typer.Option(
        None, "--solver", help="Model spec of a tool-using agent that must solve each task."
    ),
    solver_method: str = typer.Option(
        "react",
        "--solver-method",
        help="The solver's method: direct, cot, rag, react, reflexion or scitoolagent.",
    ),
    seed: int = library_option(
        0, "--seed", record=BuildConfig, field="seed", help="Seed of every random choice."
    ),
    max_attempts: int | None = library_option(
        None,
        "--max-attempts",
        record=BuildConfig,
        field="max_attempts",
        help="Give up after this many attempts (default: 25 per task).",
    ),
    batch: int = library_option(
        1,
        "--batch",
        record=BuildConfig,
        field="batch",
        help="Attempts in flight at once (default 1: the sequential build). "
        "The tasks depend on --seed and --batch, never on the executor or its workers.",
    ),
    executor: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    workers: int | None = typer.Option(
        None,
        "--workers",
        help="Local executor: threads (default: the batch). Ray without --ray-address: "
        "the CPUs of the Ray started here.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the funnel as JSON."),
    cache: CacheOption = None,
) -> None:
    """Build tasks with executed gold answers: balanced levels and formats, screened, deduplicated."""
    use_cache(invocation, cache)
    from scigate.bench import abuild, check_build
    from scigate.cli._executor import check_executor
    from scigate.executor import make_executor

    try:
        wanted = [int(x) for x in levels.split(",") if x.strip()]
    except ValueError:
        raise BadInput(f"--levels takes numbers separated by commas, got {levels!r}") from None
    config = BuildConfig(
        n=n,
        levels=wanted,
        generator=generator,
        screens=screen,
        judge=judge,
        solver=solver,
        solver_method=solver_method,
        seed=seed,
        max_attempts=max_attempts,
        batch=batch,
    )
    check_build(config)
    if workers is not None and workers < 1:
        raise BadInput(f"--workers must be at least 1, got {workers}")
    if workers is not None and ray_address:
        raise BadInput("--workers sets local threads or a local Ray's CPUs, not a cluster's")
    check_executor(executor, ray_address)
    if workers is None and executor == "local":
        workers = batch
    console = Console(stderr=True)
    bar = Progress(
        TextColumn("[bold]bench build[/bold]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[attempts]} attempts"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )
    spread = make_executor(executor, address=ray_address, workers=workers)
    try:
        with bar:
            task = bar.add_task("build", total=n, attempts=0)
            report = run_async(
                abuild(
                    config,
                    db,
                    out,
                    progress=lambda done, total, tried: bar.update(
                        task, completed=done, attempts=tried
                    ),
                    executor=spread,
                )
            )
    finally:
        spread.close()
    if as_json:
        _echo_json(report.model_dump())
    else:
        shown = Console(soft_wrap=True)
        shown.print(
            f"built {report.accepted} of {report.target} tasks in {report.attempts} attempts "
            f"({report.seconds:.1f} s) -> {inert_markup(report.out)}; "
            f"run {inert_markup(report.run_id)}",
            highlight=False,
        )
        if report.batch > 1 or report.executor.get("name") != "local":
            shown.print(
                f"batch {report.batch} on {inert_markup(report.executor.get('name'))} "
                f"({report.executor.get('workers')} workers)",
                highlight=False,
            )
        shown.print(
            "per cell: " + inert_markup(", ".join(f"{k} {v}" for k, v in report.cells.items()))
        )
        if report.rejected:
            shown.print(
                "rejected at: "
                + inert_markup(", ".join(f"{k} {v}" for k, v in report.rejected.items()))
            )
    if report.accepted < report.target:
        raise typer.Exit(1)


@app.command("report")
def report_cmd(
    db: Path = typer.Option(..., "--db", help="Run database of a bench build."),
    run: str | None = typer.Option(None, "--run", help="Build run id (default: the latest)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """The funnel of a build: attempts, accepted and rejections per level and format."""
    from scigate.bench import build_funnel

    funnel = build_funnel(db, run)
    from scigate.review import review_of, summary_lines
    from scigate.store import Store

    with Store(db, create=False, readonly=True) as store:
        funnel["review"] = review_of(store, "task", run_id=funnel["run_id"])
    if as_json:
        _echo_json(funnel)
        return
    console = Console(soft_wrap=True)
    console.print(
        f"run {inert_markup(funnel['run_id'])} ({inert_markup(funnel['status'])}): "
        f"{funnel['accepted']} accepted of "
        f"{funnel['attempts']} attempts",
        highlight=False,
    )
    for cell, row in funnel["cells"].items():
        why = ", ".join(f"{k} {v}" for k, v in row["rejected"].items()) or "-"
        console.print(
            f"{inert_markup(cell)}: {row['accepted']}/{row['attempts']} accepted; "
            f"rejected at {inert_markup(why)}",
            highlight=False,
        )
    if funnel.get("table_a5"):
        from scigate.bench import a5_lines

        console.print("Table A5, built (paper):", highlight=False)
        for line in a5_lines(funnel["table_a5"]):
            console.print(inert_markup(line), highlight=False)
    for line in summary_lines(funnel["review"]):
        console.print(inert_markup(line), highlight=False)


@app.command("release")
def release_cmd(
    db: Path = typer.Option(..., "--db", help="Run database of the bench build."),
    bench: Path = typer.Option(..., "--bench", help="The JSONL that build wrote."),
    out: Path = typer.Option(..., "--out", help="Release folder to write."),
    run: str | None = typer.Option(None, "--run", help="Build run id (default: the latest)."),
    as_json: bool = typer.Option(False, "--json", help="Print the conditions as JSON."),
    require_review: bool = typer.Option(
        False,
        "--require-review",
        help="Release only the tasks expert review approved (`scigate review`); without it "
        "every task is released with its review status in conditions.json.",
    ),
) -> None:
    """Write a release folder: the JSONL, datasheet.md and conditions.json."""
    from scigate.bench import write_release

    conditions = write_release(db, bench, out, run, require_review=require_review)
    if as_json:
        _echo_json(conditions)
        return
    Console(soft_wrap=True).print(
        f"released {conditions['tasks']} tasks of run {inert_markup(conditions['run_id'])} -> "
        f"{inert_markup(out)} (datasheet.md, conditions.json, {inert_markup(bench.name)})",
        highlight=False,
    )
