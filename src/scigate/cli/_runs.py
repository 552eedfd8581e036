"""`scigate runs`: the runs of a run database and what each cost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from scigate.cli._app import OneLineGroup
from scigate.cli._console import inert, json_text
from scigate.errors import BadInput

app = typer.Typer(
    cls=OneLineGroup,
    help="The runs of a run database: list them, see what each cost.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

_DB = typer.Option(..., "--db", help="The run database.")


def _store(db: Path) -> Any:
    from scigate.store import Store

    if not db.exists():
        raise BadInput(f"database not found: {db}")
    return Store(db, create=False, readonly=True)


@app.command("list")
def list_cmd(
    db: Path = _DB, as_json: bool = typer.Option(False, "--json", help="Print JSON.")
) -> None:
    """Every run: id, kind, domain, status, when it started."""
    with _store(db) as store:
        runs = [
            {k: r[k] for k in ("id", "kind", "domain", "status", "created_at")}
            for r in store.runs()
        ]
    if as_json:
        typer.echo(json_text(runs))
        return
    for r in runs:
        typer.echo(f"{r['id']}  {r['kind']:<11} {r['domain'] or '-':<10} {r['status']}")


def _money(value: float | None) -> str:
    return "n/a" if value is None else f"${value:.4f}"


def _hours(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f} h"


@app.command("cost")
def cost_cmd(
    db: Path = _DB,
    run: str | None = typer.Option(None, "--run", help="Run id [default: the latest run]."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """What a run cost per stage (the calls' role: generator, each screen, solver, judge,
    reranker, the agent method) and model: calls, cached calls, tokens, USD (from each
    call's recorded price; unpriced calls counted apart), agent-hours (the calls' own
    time) and wall-hours; and per accepted item (a gate run) or per task (an evaluation)."""
    with _store(db) as store:
        runs = store.runs()
        if not runs:
            raise BadInput(f"{db} holds no runs")
        run_id = run or runs[-1]["id"]
        if not any(r["id"] == run_id for r in runs):
            raise BadInput(f"no run {run_id!r} in {db} (scigate runs list --db {db})")
        view = store.run_cost(run_id)
    if as_json:
        typer.echo(json_text(view))
        return
    typer.echo(f"run {inert(view['run_id'])} ({view['kind']}, {view['status']})")
    header = ("stage", "model", "calls", "cached", "tokens in", "tokens out", "USD")
    lines = [(*header, "agent-h", "wall-h")]
    for row in [*view["stages"], view["total"]]:
        unpriced = f" (+{row['unpriced_calls']} unpriced)" if row["unpriced_calls"] else ""
        lines.append(
            (
                inert(row["stage"]),
                inert(row["model"]),
                str(row["calls"]),
                str(row["cached_calls"]),
                str(row["input_tokens"]),
                str(row["output_tokens"]),
                _money(row["cost"]) + unpriced,
                f"{row['agent_hours']:.3f}",
                f"{row['wall_hours']:.3f}",
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    for line in lines:
        cells = [
            c.ljust(w) if i < 2 else c.rjust(w)
            for i, (c, w) in enumerate(zip(line, widths, strict=True))
        ]
        typer.echo("  ".join(cells).rstrip())
    per = view["per"]
    if per:
        typer.echo(
            f"per {per['unit'].replace('_', ' ')} ({per['count']}): {_money(per['cost'])}, "
            f"{_hours(per['agent_hours'])} of model time"
            + (f", {per['calls']:.1f} calls" if per.get("calls") is not None else "")
        )
