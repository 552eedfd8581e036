"""`scigate review ...`: the review web app, offline review by CSV, and the review status."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from scigate.cli._app import OneLineGroup
from scigate.cli._console import inert_markup
from scigate.errors import BadInput

if TYPE_CHECKING:
    from scigate.review import Item, Protocol
    from scigate.store import Store

app = typer.Typer(
    cls=OneLineGroup,
    help="Expert review: a local web app, CSV export/import, decisions and agreement.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

PROTOCOL_HELP = "Review protocol: toolgate or openscitoolbench (opensci). Default: the one "
PROTOCOL_HELP += (
    "the database's reviews use, else toolgate for gate runs, openscitoolbench for builds."
)


def _store(db: Path) -> Store:
    from scigate.store import Store

    if not db.exists():
        raise BadInput(f"database not found: {db}")
    return Store(db, create=False)


def _protocol(store: Store, name: str | None, items: list[Item]) -> Protocol:
    from scigate.review import default_protocol, get_protocol, with_rule

    if name:
        return with_rule(store, get_protocol(name))
    kind = "task" if items and all(i.kind == "task" for i in items) else "candidate"
    return default_protocol(store, kind)


@app.command("serve")
def serve_cmd(
    db: Path = typer.Option(..., "--db", help="Run database (gate runs or bench builds)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int | None = typer.Option(None, "--port", help="Port (default: a free one)."),
    protocol: str | None = typer.Option(None, "--protocol", help=PROTOCOL_HELP),
    bench: Path | None = typer.Option(
        None, "--bench", help="The build's JSONL, to show options, gold answers and plans."
    ),
    allow_host: list[str] = typer.Option(
        [],
        "--allow-host",
        help="A further host name (or address) reviewers use to reach the server, e.g. "
        "this machine's name with --host 0.0.0.0; other Host headers are refused.",
    ),
) -> None:
    """Serve the review app; prints the URL (with its access token) to open."""
    from scigate.review import ReviewApp, load_items, make_server, url_of

    with _store(db) as store:
        items = load_items(store, bench)
        proto = _protocol(store, protocol, items)
    review = ReviewApp(db, proto, bench=bench, allow_hosts=tuple(allow_host))
    server = make_server(review, host, port or 0)
    Console(soft_wrap=True).print(
        f"reviewing {len(items)} items of {inert_markup(db)} under the {proto.name} protocol\n"
        f"open {url_of(review, host)}\n(Ctrl-C stops the server)",
        highlight=False,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


@app.command("add-reviewer")
def add_reviewer_cmd(
    name: str = typer.Argument(..., help="The reviewer's name."),
    db: Path = typer.Option(..., "--db", help="Run database."),
) -> None:
    """Register a reviewer (the web app registers whoever signs in)."""
    from scigate.review import check_name

    name = check_name(name)
    with _store(db) as store:
        new = store.add_reviewer(name)
    typer.echo(f"{'registered' if new else 'already registered'}: {name}")


@app.command("rule")
def rule_cmd(
    db: Path = typer.Option(..., "--db", help="Run database."),
    protocol: str = typer.Option(..., "--protocol", help="toolgate or openscitoolbench."),
    reviewers: int = typer.Option(
        ..., "--reviewers", help="Reviewers who must answer every criterion before a decision."
    ),
) -> None:
    """Set how many reviewers a protocol's decision needs (default 3); every later decision
    (app, status, audits, releases) uses it."""
    from scigate.review import get_protocol

    if not 1 <= reviewers <= 100:
        raise BadInput(f"--reviewers must be between 1 and 100, got {reviewers}")
    proto = get_protocol(protocol)
    with _store(db) as store:
        store.set_review_rule(proto.name, reviewers)
    typer.echo(
        f"{proto.name}: majority of {reviewers} reviewers on every criterion; "
        f"any 'no' on {proto.correctness} sends the item back"
    )


@app.command("export")
def export_cmd(
    db: Path = typer.Option(..., "--db", help="Run database."),
    out: Path = typer.Option(..., "--out", help="CSV file to write."),
    protocol: str | None = typer.Option(None, "--protocol", help=PROTOCOL_HELP),
    reviewer: str | None = typer.Option(
        None, "--reviewer", help="Fill in this reviewer's verdicts so far."
    ),
    status: str | None = typer.Option(
        None, "--status", help="Only items with this machine status (accepted, rejected, ...)."
    ),
    bench: Path | None = typer.Option(None, "--bench", help="The build's JSONL."),
) -> None:
    """Write the review queue as CSV (one row per item, a column per criterion)."""
    from scigate.review import export_csv, load_items

    with _store(db) as store:
        items = load_items(store, bench)
        if status:
            items = [i for i in items if i.status == status or i.status.startswith(status + "-")]
        proto = _protocol(store, protocol, items)
        n = export_csv(store, items, proto, out, reviewer, bench)
    typer.echo(f"{n} items ({proto.name} protocol) -> {out}")


@app.command("import")
def import_cmd(
    file: Path = typer.Argument(..., help="A CSV written by `scigate review export`."),
    db: Path = typer.Option(..., "--db", help="Run database."),
    reviewer: str | None = typer.Option(
        None, "--reviewer", help="Reviewer of rows without a reviewer column value."
    ),
    protocol: str | None = typer.Option(None, "--protocol", help=PROTOCOL_HELP),
    bench: Path | None = typer.Option(None, "--bench", help="The build's JSONL."),
) -> None:
    """Store the verdicts of a CSV: every row checked first, then all in one transaction."""
    from scigate.review import get_protocol, load_items, read_csv_verdicts

    with _store(db) as store:
        items = load_items(store, bench)
        verdicts = read_csv_verdicts(
            file,
            items=items,
            reviewers=set(store.reviewers()),
            reviewer=reviewer,
            protocol=get_protocol(protocol) if protocol else None,
        )
        n = store.save_reviews([v.model_dump() for v in verdicts], source="csv")
    typer.echo(f"imported {n} verdicts from {file}")


@app.command("status")
def status_cmd(
    db: Path = typer.Option(..., "--db", help="Run database."),
    protocol: str | None = typer.Option(None, "--protocol", help=PROTOCOL_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Review coverage, decisions, per-criterion counts and agreement."""
    from scigate.review import load_items, review_summary, summary_items, summary_lines

    with _store(db) as store:
        items = load_items(store)
        proto = _protocol(store, protocol, items)
        summary = review_summary(store, summary_items(store, items, proto), proto)
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
        return
    for line in summary_lines(summary):
        typer.echo(line)
