"""`scigate gate ...`: the ToolGate verbs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console

from scigate.cli._async import run_async
from scigate.cli._cache import CacheOption, use_cache
from scigate.cli._console import inert_markup, one_line, untrusted
from scigate.cli._executor import (
    ExecutorOption,
    RayAddressOption,
    check_executor,
    open_executor,
)
from scigate.cli._stacks import require_domain_stack
from scigate.cli._validate import library_option
from scigate.errors import BadInput
from scigate.gate import LoopConfig

if TYPE_CHECKING:
    from scigate.store import Store

app = typer.Typer(
    no_args_is_help=True, help="ToolGate: generate, verify, screen, solve, audit, report."
)
console = Console()
err = Console(stderr=True)


def _emit(data: dict, as_json: bool, lines: list[str]) -> None:
    """`data` as JSON, or `lines` (Rich markup: every untrusted value in them went
    through `inert_markup`)."""
    if as_json:
        typer.echo(json.dumps(data, indent=2, default=str))
    else:
        for line in lines:
            console.print(line)


def _duration(seconds: float) -> str:
    """`0.4 s`, or `45 ms` under a tenth of a second (a warm run: `0.0 s` read as if
    nothing ran)."""
    return f"{seconds * 1000:.0f} ms" if seconds < 0.1 else f"{seconds:.1f} s"


def _verdict(mark: str, directory: Path, reason: str, seconds: float) -> str:
    """`MARK DIR: REASON (N s)`: a gate's one line, its reason (which quotes what the
    candidate printed) and the path inert."""
    return f"{mark} {inert_markup(directory)}: {inert_markup(reason)} ({_duration(seconds)})"


@app.command("verify")
def verify_cmd(
    directory: Path = typer.Argument(..., help="Candidate directory."),
    timeout: float = library_option(
        300.0,
        "--timeout",
        record=LoopConfig,
        field="verify_timeout",
        help="Wall-clock limit in seconds.",
        names_field=False,
    ),
    domain: str = typer.Option(
        "fenicsx", "--domain", help="Domain whose software the solution uses."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Gate 1: run solution.py on a copy without answer.txt and match its output by value."""
    from scigate.gate import load_candidate, verify

    cand = load_candidate(directory)
    require_domain_stack(domain, "scigate gate verify")
    result = verify(cand, timeout=timeout, domain=domain)
    mark = "[green]PASS[/green]" if result.passed else "[red]FAIL[/red]"
    _emit(
        result.model_dump(),
        as_json,
        [_verdict(mark, directory, result.reason, result.seconds)],
    )
    raise typer.Exit(0 if result.passed else 1)


@app.command("invariance")
def invariance_cmd(
    directory: Path = typer.Argument(..., help="Candidate directory."),
    mpi_ranks: int = library_option(
        1,
        "--mpi-ranks",
        record=LoopConfig,
        field="mpi_ranks",
        help="Also run on N MPI ranks (each must print the serial value); 1: off.",
    ),
    timeout: float = library_option(
        300.0,
        "--timeout",
        record=LoopConfig,
        field="verify_timeout",
        help="Wall-clock limit per run (s).",
        names_field=False,
    ),
    domain: str = typer.Option("fenicsx", "--domain", help="Domain whose checks apply."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
) -> None:
    """Gate 1b: gate 1, then the domain's semantic checks: under an invariance check (e.g.
    the mesh in another order) the printed value must not change at the proposed option's
    precision, under a dependence check (computed values scaled) it must."""
    from scigate.domains import get_domain
    from scigate.gate import invariance, load_candidate

    cand = load_candidate(directory)
    get_domain(domain)
    require_domain_stack(domain, "scigate gate invariance")
    result = invariance(cand, mpi_ranks=mpi_ranks, timeout=timeout, domain=domain)
    mark = {"pass": "[green]PASS[/green]", "fail": "[red]FAIL[/red]"}.get(
        result.outcome, "[yellow]UNJUDGED[/yellow]"
    )
    lines = [_verdict(mark, directory, result.reason, result.seconds)]
    lines += [
        f"  {inert_markup(c.name)}: {c.outcome}: {inert_markup(c.reason)}"
        + ("" if c.outcome == "n/a" else f" ({_duration(c.seconds)})")  # n/a: not run
        for c in result.checks
    ]
    _emit(result.model_dump(), as_json, lines)
    raise typer.Exit(0 if result.passed else 1)


@app.command("screen")
def screen_cmd(
    invocation: typer.Context,
    directory: Path = typer.Argument(..., help="Candidate directory."),
    model: str = typer.Option(..., "--model", help="Screen: a model spec or cue/NAME."),
    calls: int = library_option(
        3,
        "--calls",
        record=LoopConfig,
        field="calls",
        help="Presentations (majority decides).",
        names_field=False,
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the option shuffles."),
    no_early_stop: bool = typer.Option(False, "--no-early-stop", help="Always make every call."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    cache: CacheOption = None,
) -> None:
    """Gate 2: a no-tool screen answers shuffled presentations; passing means it fails."""
    use_cache(invocation, cache)
    from scigate.gate import load_candidate, make_responder, run_screen

    if not model.startswith("cue/"):
        from scigate.llm import check_spec

        check_spec(model)  # a missing key or file is a configuration error before any work
    cand = load_candidate(directory, require_solution=False)
    responder = make_responder(model)
    result = run_async(
        run_screen(cand, responder, calls=calls, seed=seed, early_stop=not no_early_stop)
    )
    lines = [
        f"call {c.index + 1}: shown order {inert_markup(''.join(c.order))}, chose "
        f"{inert_markup(c.chosen_letter or '?')} = "
        f"{inert_markup(c.chosen_value or '(unreadable)')} "
        f"{'[green]correct[/green]' if c.correct else '[red]wrong[/red]'}"
        for c in result.calls
    ]
    if result.inconclusive:
        mark = "[yellow]ERROR (model calls failed)[/yellow]"
    elif result.solved:
        mark = "[red]SOLVED (too easy)[/red]"
    else:
        mark = "[green]PASS (not solved)[/green]"
    lines.append(f"{mark} {inert_markup(result.reason)}")
    _emit(result.summary(), as_json, lines)
    raise typer.Exit(1 if result.solved or result.inconclusive else 0)


@app.command("solve")
def solve_cmd(
    invocation: typer.Context,
    directory: Path = typer.Argument(..., help="Candidate directory."),
    model: str | None = typer.Option(None, "--model", help="Model spec for the built-in agent."),
    solver_cmd: str | None = typer.Option(
        None,
        "--solver-cmd",
        help="External agent command; {workspace} and {prompt_file} are replaced.",
    ),
    time_limit: float = library_option(
        300.0,
        "--time-limit",
        record=LoopConfig,
        field="solve_time_limit",
        help="Wall-clock limit of the episode (s).",
        names_field=False,
    ),
    max_steps: int = library_option(
        40,
        "--max-steps",
        record=LoopConfig,
        field="solver_max_steps",
        help="Tool-call limit of the built-in agent.",
    ),
    max_tokens: int = library_option(
        500_000,
        "--max-tokens",
        record=LoopConfig,
        field="solver_max_tokens",
        help="Token limit of the built-in agent.",
    ),
    domain: str = typer.Option("fenicsx", "--domain", help="Domain of the workspace software."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    cache: CacheOption = None,
) -> None:
    """Gate 3: a tool-using agent must solve the candidate within the time limit."""
    use_cache(invocation, cache)
    from scigate.domains import get_domain
    from scigate.gate import load_candidate, solve_with_command, solve_with_model

    if (model is None) == (solver_cmd is None):
        raise BadInput("give exactly one of --model SPEC or --solver-cmd CMD")
    if model is not None:
        from scigate.llm import check_spec

        check_spec(model)  # a missing key or file is a configuration error before any work
    cand = load_candidate(directory, require_solution=False)
    get_domain(domain)  # an unknown domain is bad input before any work
    if model is not None:
        result = run_async(
            solve_with_model(
                cand,
                model,
                time_limit=time_limit,
                max_steps=max_steps,
                max_tokens=max_tokens,
                domain=domain,
            )
        )
    else:
        assert solver_cmd is not None
        result = run_async(
            solve_with_command(cand, solver_cmd, time_limit=time_limit, domain=domain)
        )
    data = result.model_dump(exclude={"transcript_tail"})
    mark = (
        "[green]SOLVED[/green]" if result.solved else "[red]NOT SOLVED[/red] (flagged for review)"
    )
    _emit(data, as_json, [_verdict(mark, directory, result.reason, result.seconds)])
    raise typer.Exit(0 if result.solved else 1)


@app.command("run")
def run_cmd(
    invocation: typer.Context,
    db: Path = typer.Option(..., "--db", help="Run database (SQLite); created when missing."),
    domain: str = typer.Option("fenicsx", "--domain", help="Domain pack."),
    generator: str | None = typer.Option(None, "--generator", help="Model spec, or 'templates'."),
    screen: list[str] = typer.Option(
        [], "--screen", help="No-tool screen (model spec or cue/NAME); repeat, cheapest first."
    ),
    solver: str | None = typer.Option(
        None, "--solver", help="Model spec of the tool-enabled solver."
    ),
    solver_cmd: str | None = typer.Option(None, "--solver-cmd", help="External solver command."),
    rounds: int | None = library_option(
        None,
        "--rounds",
        record=LoopConfig,
        field="rounds",
        help="Generation rounds [default: 10; on --resume: as stored].",
        low=1,  # the library's 0 (finish the started rounds only) is --resume without --rounds
    ),
    seed: int = library_option(
        0, "--seed", record=LoopConfig, field="seed", help="Seed of templates and option shuffles."
    ),
    calls: int = library_option(
        3, "--calls", record=LoopConfig, field="calls", help="Calls per screen."
    ),
    concurrency: int = library_option(
        4,
        "--concurrency",
        record=LoopConfig,
        field="concurrency",
        help="Rounds in flight at once (model calls overlap).",
    ),
    fem_workers: int = library_option(
        0,
        "--fem-workers",
        record=LoopConfig,
        field="fem_workers",
        help="Concurrent FEniCSx runs (0: one per core); with --executor ray only template "
        "generation (the cluster's CPUs bound the sandboxed stages).",
        low=0,  # 0: one per core, resolved before the library sees it
    ),
    verify_timeout: float = library_option(
        300.0,
        "--verify-timeout",
        record=LoopConfig,
        field="verify_timeout",
        help="Limit of one solution run (s).",
    ),
    time_limit: float = library_option(
        300.0,
        "--time-limit",
        record=LoopConfig,
        field="solve_time_limit",
        help="Limit of one solver episode (s).",
    ),
    family: list[str] = typer.Option(
        [], "--family", help="Template families to use (default: all)."
    ),
    seeds_in_prompt: int = library_option(
        5,
        "--seeds-in-prompt",
        record=LoopConfig,
        field="seeds_in_prompt",
        help="Expert seed items in the generator's prompt (0: none).",
    ),
    rotate_seeds: bool = typer.Option(
        False,
        "--rotate-seeds",
        help="Show a different window of seed items each round (order fixed by --seed).",
    ),
    near_duplicate: float = library_option(
        LoopConfig.model_fields["near_duplicate"].default,
        "--near-duplicate",
        record=LoopConfig,
        field="near_duplicate",
        help="Reject, before gate 1, a question with token Jaccard >= this to a surviving one (0: off).",
    ),
    invariance: bool = typer.Option(
        True,
        "--invariance/--no-invariance",
        help="Gate 1b after verification: the domain's semantic checks (FEniCSx: mesh reordered; computed values scaled).",
    ),
    mpi_ranks: int = library_option(
        1,
        "--mpi-ranks",
        record=LoopConfig,
        field="mpi_ranks",
        help="Gate 1b also runs the script on N MPI ranks (1: off).",
    ),
    resume: bool = typer.Option(False, "--resume", help="Continue the latest run in --db."),
    rescreen: bool = typer.Option(
        False,
        "--rescreen",
        help="Apply the screens (and solver) to the candidates in --db that survived the earlier screens; no generation.",
    ),
    all_verified: bool = typer.Option(
        False, "--all", help="With --rescreen: start from every verified candidate."
    ),
    trust_stored_specs: bool = typer.Option(
        False,
        "--trust-stored-specs",
        help="With --resume: use the run's recorded specs even where they name a base_url, "
        "an api_key_env, a python/ file or a --solver-cmd (a database can send your keys "
        "elsewhere); otherwise give those options again.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the final funnel as JSON."),
    executor: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    cache: CacheOption = None,
) -> None:
    """Rounds of generate, verify, screens, solve; every outcome goes to the run database."""
    use_cache(invocation, cache)
    import os
    import sys

    from scigate.cli._progress import funnel_progress
    from scigate.gate import ExecutorWorkers, executors_text, run_loop
    from scigate.gate import rescreen as do_rescreen
    from scigate.store import Store

    if (resume or rescreen) and not db.exists():
        raise BadInput(f"database not found: {db}")
    if not (resume or rescreen) and generator is None:
        raise BadInput("--generator is required (a model spec or 'templates')")
    if rescreen and not screen and not solver and not solver_cmd:
        raise BadInput("--rescreen needs at least one --screen or a solver")
    if all_verified and not rescreen:
        raise BadInput("--all applies to --rescreen only")
    if trust_stored_specs and not resume:
        raise BadInput("--trust-stored-specs applies to --resume only")
    if not rescreen:
        require_domain_stack(domain, "scigate gate run")

    def show_recorded(run_id: str, specs: dict) -> None:
        """Say which recorded specs the resumed run uses: one plain line on stderr, its
        control characters escaped (the database wrote them)."""
        used = ", ".join(
            f"{option} {spec}"
            for option, value in specs.items()
            for spec in (value if isinstance(value, list) else [value])
            if spec
        )
        line = f"resuming run {run_id} with its recorded {used or 'templates, no model'}"
        print(one_line(line), file=sys.stderr)

    check_executor(executor, ray_address)
    cfg = LoopConfig(
        domain=domain,
        generator=generator or ("rescreen" if rescreen else "templates"),
        screens=screen,
        solver=solver,
        solver_cmd=solver_cmd,
        rounds=10 if rounds is None else rounds,
        seed=seed,
        calls=calls,
        concurrency=concurrency,
        fem_workers=fem_workers or max(1, os.cpu_count() or 1),
        verify_timeout=verify_timeout,
        solve_time_limit=time_limit,
        families=family or None,
        seeds_in_prompt=seeds_in_prompt,
        rotate_seeds=rotate_seeds,
        near_duplicate=near_duplicate,
        invariance=invariance,
        mpi_ranks=mpi_ranks,
    )
    cfg.validate()  # bad specs, domains and settings fail before anything is written
    if db.parent and not db.parent.exists():
        db.parent.mkdir(parents=True, exist_ok=True)
    store = Store(db)
    pool = None
    try:  # closed on every exit path, so a refused --resume leaves no -wal/-shm behind
        pool = open_executor(executor, ray_address)
        workers = ExecutorWorkers(pool) if pool else None
        with funnel_progress(Console(stderr=True), rounds) as on_progress:
            if rescreen:
                run_id, funnel = run_async(
                    do_rescreen(
                        store,
                        screens=screen,
                        solver=solver,
                        solver_cmd=solver_cmd,
                        domain=domain,
                        calls=calls,
                        seed=seed,
                        solve_time_limit=time_limit,
                        concurrency=concurrency,
                        resume=resume,
                        all_verified=all_verified,
                        progress=on_progress,
                        workers=workers,
                        trust_stored_specs=trust_stored_specs,
                        on_resume=show_recorded,
                    )
                )
            else:
                run_id, funnel = run_async(
                    run_loop(
                        cfg,
                        store,
                        resume=resume,
                        rounds_given=rounds is not None,
                        progress=on_progress,
                        workers=workers,
                        trust_stored_specs=trust_stored_specs,
                        on_resume=show_recorded,
                    )
                )
        executors = [e["data"] for e in store.events(run_id, kind="executor")]
    finally:
        if pool is not None:
            pool.close()
        store.close()
    data = {
        "run_id": run_id,
        "db": str(db),
        "funnel": funnel.model_dump(),
        "executor": executors[-1],  # this invocation's
        "executors": executors,  # every start and resume of the run, oldest first
    }
    lines = [
        f"run {inert_markup(run_id)} finished: {inert_markup(funnel.line())}",
        f"database: {inert_markup(db)}",
    ]
    lines.append(f"executor: {inert_markup(executors_text(executors))}")
    _emit(data, as_json, lines)


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def _open_db(db: Path) -> Store:
    from scigate.store import Store

    if not db.exists():
        raise BadInput(f"database not found: {db}")
    return Store(db, create=False, readonly=True)  # audit, report, export only read


def _solved_by(screen: str) -> Callable[[dict[str, Any]], str]:
    """The cell of the row 'solved by SCREEN' for a domain's audit."""
    return lambda d: _pct(d["screen_solved_share"].get(screen))


def _print_domains(domains: dict[str, dict[str, Any]]) -> None:
    """The domains of the database side by side (one column each)."""
    from rich.table import Table

    t = Table(title="Domains side by side")
    t.add_column("")
    for name in domains:
        t.add_column(untrusted(name), justify="right")
    rows: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
        ("candidates", lambda d: str(d["candidates"])),
        ("verified", lambda d: str(d["verified"])),
        ("passed gate 1b", lambda d: str(d["invariant"])),
        ("in the pool", lambda d: f"{d['pool']} ({_pct(d['pool_share'])})"),
        ("families", lambda d: str(len(d["families"]))),
        ("largest near-duplicate cluster", lambda d: str(d["largest_cluster_size"])),
        (
            "pool letters A/B/C/D",
            lambda d: "/".join(str(v) for v in d["pool_letter_distribution"].values()),
        ),
        (
            "pool value ranks 1/2/3/4",
            lambda d: "/".join(str(d["pool_value_rank_distribution"].get(k, 0)) for k in "1234"),
        ),
    ]
    screens = sorted({s for d in domains.values() for s in d["screen_solved_share"]})
    rows += [(f"solved by {s}", _solved_by(s)) for s in screens]
    for label, cell in rows:
        t.add_row(untrusted(label), *(cell(d) for d in domains.values()))
    console.print(t)


@app.command("audit")
def audit_cmd(
    db: Path = typer.Option(..., "--db", help="Run database."),
    as_json: bool = typer.Option(False, "--json", help="Print the audit as JSON."),
) -> None:
    """Letter and value-rank cues, screen behaviour, duplicates, concentration, cost."""
    from rich.table import Table

    from scigate.gate import audit

    store = _open_db(db)
    a = audit(store)
    store.close()
    if as_json:
        typer.echo(a.model_dump_json(indent=2))
        return
    f = a.funnel
    console.print(
        f"[bold]Funnel (in-loop)[/bold] generated {f['generated']} → verified {f['verified']} → "
        + (
            f"invariant {f['invariant']}"
            + (f" (+{f['invariance_unchecked']} unchecked)" if f["invariance_unchecked"] else "")
            + " → "
            if f.get("invariant") is not None
            else ""
        )
        + " → ".join(f"{inert_markup(s)} {n}" for s, n in f["screens"].items())
        + f" → solved {f['solved'] if f['solved'] is not None else '—'} → unique {f['unique']}"
    )
    if f.get("near_duplicates"):
        console.print(f"near duplicates rejected before verification: {f['near_duplicates']}")
    for r in a.rescreens:
        console.print(
            f"[bold]Rescreen[/bold] {inert_markup(r['run_id'])} ({inert_markup(r['input'])}): "
            f"entered {r['verified']} → "
            + " → ".join(f"{inert_markup(s)} {n}" for s, n in r["screens"].items())
            + (f" → solved {r['solved']}" if r["tool_gate"] else "")
        )
    console.print(
        f"Proposed letters: {inert_markup(a.letter_distribution)}   "
        f"value ranks: {inert_markup(a.value_rank_distribution)}   "
        f"middle-value heuristic: {a.middle_heuristic_success}"
    )
    t = Table(title="Screens")
    for col in (
        "screen",
        "candidates",
        "solved",
        "accuracy",
        "shuffled",
        "letters A/B/C/D",
        "acc. by correct pos. A/B/C/D",
    ):
        t.add_column(col)
    for s in a.screens:
        t.add_row(
            untrusted(s.screen),
            str(s.candidates),
            str(s.solved),
            str(s.accuracy),
            "yes" if s.shuffled else "NO",
            "/".join(str(v) for v in s.letter_choices.values()),
            "/".join(
                "—" if v is None else f"{v:.2f}" for v in s.accuracy_by_correct_position.values()
            ),
        )
    console.print(t)
    for r in a.agreement:
        console.print(
            f"agreement {inert_markup(r['a'])} vs {inert_markup(r['b'])}: n={r['n']} "
            f"both={r['both_solved']} only_a={r['only_a']} "
            f"only_b={r['only_b']} neither={r['neither']} rate={r['agreement_rate']}"
        )
    console.print(
        f"exact duplicates: {a.duplicate_candidates} in {len(a.exact_duplicates)} groups; "
        f"Jaccard≥{a.jaccard_threshold} clusters: {a.jaccard_clusters}, largest "
        f"{a.largest_cluster_size} ({_pct(a.largest_cluster_share)}); "
        f"top family share {_pct(a.top_family_share)}; families: {inert_markup(a.families)}"
    )
    console.print(
        f"surviving pool: {a.pool_size} items; top family share {_pct(a.pool_top_family_share)}; "
        f"largest Jaccard cluster {a.pool_largest_cluster_size} "
        f"({_pct(a.pool_largest_cluster_share)}); families: {inert_markup(a.pool_families)}"
    )
    t = Table(title="Time and tokens per gate")
    for col in ("gate", "model", "items", "agent-hours", "calls", "in tok", "out tok", "cost"):
        t.add_column(col)
    for r in a.cost:
        t.add_row(
            untrusted(r["gate"]),
            untrusted(r["spec"]),
            str(r["items"]),
            f"{r['agent_hours']:.3f}",
            str(r["model_calls"]),
            str(r["input_tokens"]),
            str(r["output_tokens"]),
            "—" if r["cost_usd"] is None else f"{r['cost_usd']:.4f}",
        )
    console.print(t)
    _print_pool_and_gates(a)
    if a.domains:
        _print_domains(a.domains)
    from scigate.review import summary_lines

    for line in summary_lines(a.review):
        console.print(inert_markup(line), highlight=False)


def _print_pool_and_gates(a) -> None:
    """The audit's pool value ranks, conflicts, rejection breakdown and solver transfer."""
    from rich.table import Table

    console.print(
        f"accepted pool: letters {inert_markup(a.pool_letter_distribution)}; "
        f"value ranks of the pool's correct options {inert_markup(a.pool_value_rank_distribution)}"
    )
    c = a.conflicts
    console.print(
        f"records: {c.conflicts} conflicts (same question and options, different proposals) "
        f"in {c.conflict_records} records, {c.conflicts_verified_twice} with two proposals "
        f"verified; {c.repeat_records} repeats in {c.repeat_groups} groups"
    )
    t = Table(title=f"Rejections ({a.rejections.total} non-passing results)")
    for col in ("gate", "results", "rejected", "errors", "reason", "outcome", "count", "of gate"):
        t.add_column(col)
    for g in a.rejections.gates:
        head = [
            untrusted(g.gate),
            str(g.results),
            f"{g.rejected} ({_pct(g.rejected_share)})",
            str(g.errors),
        ]
        for k, r in enumerate(g.reasons or [None]):
            cells = ["", "", "", ""] if k else head
            if r is None:
                t.add_row(*cells, "—", "", "", "")
            else:
                t.add_row(
                    *cells, untrusted(r.reason), untrusted(r.outcome), str(r.count), _pct(r.share)
                )
    console.print(t)
    tr = a.transfer
    t = Table(title="Solved by (latest result per candidate; errors left out)")
    for col in ("model", "family", "kind", "attempted", "solved", "errors"):
        t.add_column(col)
    for s in tr.solvers:
        t.add_row(
            *map(untrusted, (s.spec, s.family, s.kind)),
            str(s.attempted),
            str(s.solved),
            str(s.errors),
        )
    console.print(t)
    for title, fams, cells in (
        ("Tool-enabled transfer", tr.tool_families, tr.tool),
        ("No-tool transfer", tr.no_tool_families, tr.no_tool),
    ):
        if not fams:
            continue
        grid = {(x.a, x.b): x for x in cells}
        t = Table(title=f"{title}: of the items the row family solved, solved by the column too")
        t.add_column("solved by ↓ / also by →")
        for f in fams:
            t.add_column(untrusted(f))
        for r in fams:
            t.add_row(
                untrusted(r),
                *(
                    f"{grid[(r, col)].solved}/{grid[(r, col)].n} ({_pct(grid[(r, col)].rate)})"
                    for col in fams
                ),
            )
        console.print(t)
    console.print(
        "accepted items by the tool families that solved them: "
        f"{inert_markup(tr.accepted_by_families)}"
    )


@app.command("report")
def report_cmd(
    db: Path = typer.Option(..., "--db", help="Run database."),
    out: Path = library_option(
        ..., "--out", field="out_dir", help="Output directory for report.html and summary.json."
    ),
) -> None:
    """Write a self-contained offline HTML report and summary.json."""
    from scigate.gate import build_report

    store = _open_db(db)
    files = build_report(store, out)
    store.close()
    console.print(f"report: {inert_markup(files.html)}\nsummary: {inert_markup(files.summary)}")


@app.command("export")
def export_cmd(
    db: Path = typer.Option(..., "--db", help="Run database."),
    out: Path = typer.Option(..., "--out", help="JSONL file of accepted items with full records."),
    release: Path | None = library_option(
        None,
        "--release",
        field="release_dir",
        help="Also write a release package (pool as JSONL and Parquet, gate records, run conditions, datasheet, no-tool and tool-enabled inspect_ai tasks) into this directory.",
    ),
    release_seed: int | None = typer.Option(
        None, "--release-seed", help="Seed of the released option order (default: fresh)."
    ),
    include_duplicates: bool = typer.Option(
        False, "--include-duplicates", help="Keep exact duplicates."
    ),
    require_review: bool = typer.Option(
        False,
        "--require-review",
        help="Release only the items expert review approved (`scigate review`); without it "
        "the release holds every accepted item with its review status.",
    ),
) -> None:
    """Export accepted items with their full gate records (and optionally a release)."""
    from scigate.gate import export_jsonl, export_release

    if require_review and release is None:
        raise BadInput("--require-review applies to a release: pass --release DIR")
    store = _open_db(db)
    n = export_jsonl(store, out, include_duplicates=include_duplicates)
    console.print(f"{n} accepted items → {inert_markup(out)}")
    if release is not None:
        files = export_release(
            store, release, release_seed=release_seed, require_review=require_review
        )
        console.print(
            f"release: {files.items} items, seed {files.release_seed} → {inert_markup(release)}"
        )
        console.print(
            f"  gate records: {inert_markup(files.gate_records)}\n"
            f"  run conditions: {inert_markup(files.run_conditions)}\n"
            f"  inspect_ai tasks: {inert_markup(files.inspect_task)} (no tools), "
            f"{inert_markup(files.tool_task)} (python and bash tools in a sandbox)"
        )
    store.close()


@app.command("seeds")
def seeds_cmd(
    out: Path = typer.Option(..., "--out", help="Directory to copy the items into."),
    domain: str = typer.Option("fenicsx", "--domain", help="Domain pack."),
) -> None:
    """Copy the domain's expert seed items and worked examples (e.g. item 0023) to a directory."""
    import shutil

    from scigate.domains import get_domain

    dom = get_domain(domain)
    if out.exists() and not out.is_dir():
        raise BadInput(f"--out is not a directory: {out}")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BadInput(f"cannot create {out}: {e.strerror or e}") from None
    for src in [*dom.seed_dirs(), *dom.example_dirs()]:
        dest = out / src.name
        shutil.copytree(src, dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
        console.print(untrusted(dest))
