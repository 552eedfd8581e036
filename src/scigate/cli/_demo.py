"""`scigate demo`: the offline ToolGate pipeline end to end, no model needed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import typer
from rich.console import Console

from scigate.cli._async import run_async
from scigate.cli._console import inert_markup
from scigate.cli._stacks import require_domain_stack
from scigate.errors import BadInput

CUE_SCREENS = ["cue/middle", "cue/letter-C", "cue/closest-to-mean"]
BENCH_TASKS = 8  # levels 1-2, every format twice: small enough to keep the demo fast


def _demo_bench(out: Path, seed: int) -> tuple[int, Path, Path]:
    """Build a small offline benchmark (templates, cue screens) under `out` and its
    release folder; returns the task count, the JSONL and the release folder."""
    from scigate.bench import BuildConfig, build, write_release

    config = BuildConfig(n=BENCH_TASKS, levels=[1, 2], screens=CUE_SCREENS, seed=seed)
    report = build(config, out / "bench.db", out / "bench.jsonl")
    write_release(out / "bench.db", out / "bench.jsonl", out / "release", report.run_id)
    return report.accepted, out / "bench.jsonl", out / "release"


def demo(
    out: Path = typer.Option(Path("demo-output"), "--out", help="Output directory."),
    rounds: int = typer.Option(12, "--rounds", help="Template candidates to generate."),
    seed: int = typer.Option(0, "--seed", help="Seed of the template parameters."),
    screen: list[str] = typer.Option(
        [],
        "--screen",
        help="Extra model screens (also from $SCIGATE_SCREENS, comma-separated), run after the cue screens.",
    ),
    solver: str | None = typer.Option(
        None,
        "--solver",
        help="Optional model spec of a tool-enabled solver (also $SCIGATE_SOLVER).",
    ),
    fresh: bool = typer.Option(
        True, "--fresh/--resume", help="Start a new database (default) or resume the last demo."
    ),
    domain: str = typer.Option(
        "fenicsx", "--domain", help="Domain whose template families generate the candidates."
    ),
) -> None:
    """Generate template candidates, verify them, run the cue screens, write the report."""
    from scigate.cli._progress import funnel_progress
    from scigate.gate import LoopConfig, build_report, export_jsonl, run_loop
    from scigate.store import Store

    console = Console()
    if rounds < 1:
        raise BadInput("--rounds must be at least 1")
    require_domain_stack("fenicsx", "scigate demo")
    extra = [s.strip() for s in os.environ.get("SCIGATE_SCREENS", "").split(",") if s.strip()]
    screens = CUE_SCREENS + [s for s in [*screen, *extra] if s not in CUE_SCREENS]
    solver = solver or os.environ.get("SCIGATE_SOLVER") or None
    cfg = LoopConfig(
        domain=domain,
        generator="templates",
        screens=screens,
        solver=solver,
        rounds=rounds,
        seed=seed,
        concurrency=max(2, os.cpu_count() or 1),
    )
    cfg.validate()
    if out.exists() and not out.is_dir():
        raise BadInput(f"--out must be a directory, not the file {out}")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BadInput(f"cannot create {out}: {e.strerror or e}") from None
    db = out / "demo.db"
    if fresh:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        shutil.rmtree(out / "report", ignore_errors=True)
        shutil.rmtree(out / "bench", ignore_errors=True)
    console.print(
        f"[bold]scigate demo[/bold]: {rounds} {inert_markup(domain)} template candidates, "
        f"screens: {inert_markup(', '.join(screens))}"
        + (
            f", solver: {inert_markup(solver)}"
            if solver
            else " (no tool-enabled solver configured)"
        )
    )
    store = Store(db)
    with funnel_progress(console, rounds, "generating and verifying") as on_progress:
        run_id, funnel = run_async(run_loop(cfg, store, resume=not fresh, progress=on_progress))
    files = build_report(store, out / "report")
    n = export_jsonl(store, out / "accepted.jsonl")
    store.close()
    with console.status(f"building a {BENCH_TASKS}-task benchmark with executed answers"):
        n_bench, bench_file, release = _demo_bench(out / "bench", seed)
    db_text = inert_markup(db)
    console.print(f"run {run_id}: {inert_markup(funnel.line())}")
    console.print(f"database: {db_text}   (query it: sqlite3 {db_text} 'SELECT * FROM v_funnel')")
    console.print(f"accepted items ({n}): {inert_markup(out / 'accepted.jsonl')}")
    console.print(f"[bold green]report: {inert_markup(files.html.resolve())}[/bold green]")
    bench_text = inert_markup(bench_file)
    console.print(
        f"benchmark ({n_bench} tasks; check: scigate bench verify {bench_text}): {bench_text}",
        soft_wrap=True,
    )
    console.print(
        f"benchmark release (datasheet.md, conditions.json): {inert_markup(release)}",
        soft_wrap=True,
    )
