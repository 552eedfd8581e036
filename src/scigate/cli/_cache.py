"""`scigate cache`: the response cache's size and contents, clearing and pruning it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scigate.cli._app import OneLineGroup
from scigate.cli._console import json_text
from scigate.errors import BadInput

if TYPE_CHECKING:
    from scigate.llm import ResponseCache

app = typer.Typer(
    cls=OneLineGroup,
    help="The response cache of model calls: stats, clear, prune.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

CacheOption = Annotated[
    bool | None,
    typer.Option(
        "--cache/--no-cache",
        help="Answer a model call asked before (same model, settings, messages, tools and "
        "sample) from the response cache, at no cost, and keep new answers there "
        "[default: on when $SCIGATE_CACHE is set; see `scigate cache`].",
    ),
]


MaxCostOption = Annotated[
    float | None,
    typer.Option(
        "--max-cost",
        help="Stop the run before a model call that could take its spend past this many USD "
        "(the call's worst case: its max_tokens at the model's price). Exit status 3; "
        "--resume continues.",
    ),
]
MaxTokensOption = Annotated[
    int | None,
    typer.Option(
        "--max-tokens",
        help="Stop the run before a call that could take its tokens (input + output, all "
        "models) past N. Exit status 3.",
    ),
]
MaxCallsOption = Annotated[
    int | None,
    typer.Option("--max-calls", help="Stop the run before its (N+1)-th model call. Exit status 3."),
]
AllowUnpricedOption = Annotated[
    bool,
    typer.Option(
        "--allow-unpriced",
        help="With --max-cost: run a model without a known price, its calls counted as 0 USD.",
    ),
]


def use_budget(
    invocation: typer.Context,
    max_cost: float | None,
    max_tokens: int | None,
    max_calls: int | None,
    allow_unpriced: bool,
    specs: list[str | None],
) -> None:
    """The budget every model call of the command `invocation` runs counts against; a
    cost budget over a model with no price is refused here (exit 2), before any call."""
    from scigate.llm import Budget, parse_spec, spending_limit

    budget = Budget(
        max_cost=max_cost,
        max_tokens=max_tokens,
        max_calls=max_calls,
        allow_unpriced=allow_unpriced,
    )
    for spec in specs:
        if spec and budget.limited:
            parsed = parse_spec(spec)
            budget.check_priced(f"{parsed.provider}/{parsed.model}")
    invocation.with_resource(spending_limit(budget))


def use_cache(invocation: typer.Context, cache: bool | None) -> None:
    """The response cache on (True), off (False) or as $SCIGATE_CACHE says (None) for the
    rest of the command `invocation` runs (its worker processes included)."""
    from scigate.llm import response_cache

    invocation.with_resource(response_cache(cache))


_DIR = typer.Option(
    None,
    "--dir",
    help="Cache directory [default: $SCIGATE_CACHE if it names one, else the user cache "
    "directory ($SCIGATE_CACHE_DIR or ~/.cache/scigate)].",
)
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def _cache(directory: Path | None) -> ResponseCache:
    from scigate.llm import ResponseCache, cache_file

    return ResponseCache(cache_file(directory))


def parse_age(text: str) -> float:
    """Seconds in an age such as ``30d``, ``12h``, ``90m``, ``45s`` or ``2w``."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*", text)
    if not found:
        raise BadInput(f"--older-than {text!r}: expected a number and a unit (s, m, h, d, w)")
    return float(found.group(1)) * _UNITS[found.group(2)]


def _size(n: int) -> str:
    size = float(n)
    for unit in ("B", "kB", "MB"):
        if size < 1024:
            return f"{size:.0f} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"


@app.command("stats")
def stats_cmd(
    directory: Path | None = _DIR,
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """How many answers the cache holds, its size and bound, per provider and model."""
    cache = _cache(directory)
    try:
        data = cache.stats()
    finally:
        cache.close()
    for counter in ("hits", "misses"):  # this process's: none here
        data.pop(counter)
    if as_json:
        typer.echo(json_text(data))
        return
    typer.echo(
        f"{data['path']}: {data['entries']} answers, {_size(data['bytes'])} "
        f"of {_size(data['max_bytes'])}"
    )
    for row in data["models"]:
        typer.echo(
            f"  {row['provider']}/{row['model']}: {row['entries']} answers, {row['hits']} reused"
        )


@app.command("clear")
def clear_cmd(directory: Path | None = _DIR) -> None:
    """Remove every cached answer (the next runs pay for their calls again)."""
    cache = _cache(directory)
    try:
        n = cache.clear()
    finally:
        cache.close()
    typer.echo(f"removed {n} cached answers from {cache.path}")


@app.command("prune")
def prune_cmd(
    older_than: str = typer.Option(
        ..., "--older-than", help="Remove answers not used for this long: 30d, 12h, 90m, 2w."
    ),
    directory: Path | None = _DIR,
) -> None:
    """Remove the answers not used for a while."""
    seconds = parse_age(older_than)
    cache = _cache(directory)
    try:
        n = cache.prune(seconds)
    finally:
        cache.close()
    typer.echo(f"removed {n} cached answers unused for {older_than.strip()} from {cache.path}")
