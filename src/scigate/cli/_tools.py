"""`scigate tools ...`: list, show, run, chain, plan, search, graph, coverage, serve-mcp."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from scigate.cli._app import OneLineGroup
from scigate.cli._console import inert, inert_markup, json_text, one_line, print_json, untrusted
from scigate.cli._stacks import require_tool_modules
from scigate.errors import BadInput, require_module

app = typer.Typer(
    cls=OneLineGroup,
    help="The scientific tool library: list, show, run, chain, search, graph, coverage, MCP.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _console() -> Console:
    return Console(soft_wrap=False)


def _echo_json(data: Any) -> None:
    """`data` as indented JSON, its hidden characters (ESC, C1, bidi) as `\\u` escapes."""
    typer.echo(json_text(data))


def _parse_json_object(text: str | None, what: str) -> dict[str, Any]:
    if not text:
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise BadInput(f"{what} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise BadInput(f"{what} must be a JSON object, e.g. '{{\"radius\": 2}}'")
    return data


def _read_at_file(raw: str) -> str:
    """`@FILE` stands for the file's content (tools take content, never paths)."""
    if not raw.startswith("@") or raw == "@":
        return raw
    path = Path(raw[1:]).expanduser()
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise BadInput(f"cannot read --input file {path}: {exc.strerror or exc}") from exc


def _coerce(tool: Any, raw: str) -> Any:
    """The --input string as the first input expects it (JSON for non-string parameters);
    `@FILE` reads the value from a file."""
    raw = _read_at_file(raw)
    names = tool.required_parameters or tool.parameter_names
    if not names:
        raise BadInput(f"{tool.name} takes no arguments; drop --input")
    schema = tool.spec.parameters.get("properties", {}).get(names[0], {})
    types = {schema.get("type")} | {s.get("type") for s in schema.get("anyOf", [])}
    if "string" in types and len(types - {None}) == 1:
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw


@app.command("list")
def list_cmd(
    domain: str | None = typer.Option(
        None, "--domain", "--category", "-d", help="chemistry, biology, materials, fem or general."
    ),
    available: bool = typer.Option(False, "--available", help="Only tools whose packages import."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """List the tools: name, category, inputs -> outputs, source, available."""
    from scigate.tools import list_tools

    tools = list_tools(domain, available_only=available)
    rows: list[dict[str, Any]] = [
        {
            "name": t.name,
            "category": t.spec.category,
            "inputs": t.spec.inputs,
            "outputs": t.spec.outputs,
            "source": t.spec.source,
            "network": t.spec.network,
            "available": t.available(),
            "functionality": t.spec.functionality,
        }
        for t in tools
    ]
    if as_json:
        _echo_json(rows)
        return
    table = Table(title=f"{len(rows)} tools")
    for col in ("name", "category", "inputs -> outputs", "source", "available"):
        table.add_column(col)
    for r in rows:
        table.add_row(
            untrusted(r["name"]),
            untrusted(r["category"]),
            untrusted(f"{', '.join(r['inputs'])} -> {', '.join(r['outputs'])}"),
            untrusted(r["source"] + (" (web)" if r["network"] else "")),
            "yes" if r["available"] else "no",
        )
    _console().print(table)


@app.command("show")
def show_cmd(
    name: str = typer.Argument(..., help="Tool name."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Full ontology, argument JSON schema and examples of one tool."""
    from scigate.tools import get_tool

    t = get_tool(name)
    data = t.spec.model_dump(mode="json")
    data["available"] = t.available()
    if as_json:
        _echo_json(data)
        return
    console = _console()
    console.print(
        f"[bold]{inert_markup(t.name)}[/bold]  "
        f"({inert_markup(t.spec.category)}, {inert_markup(t.spec.source)})"
    )
    console.print(inert_markup(t.spec.functionality))
    for key in ("inputs", "outputs", "objects", "scenarios", "requires", "aliases"):
        if data.get(key):
            console.print(f"[bold]{key}:[/bold] {inert_markup(', '.join(data[key]))}")
    console.print(
        f"[bold]safety check:[/bold] {t.spec.safety}   "
        f"[bold]network:[/bold] {t.spec.network}   [bold]available:[/bold] {data['available']}"
    )
    console.print("[bold]parameters (JSON Schema):[/bold]")
    print_json(console, t.spec.parameters)
    for ex in t.spec.examples:
        shown = f"{json.dumps(ex.input)} -> {json.dumps(ex.output)}"
        console.print(f"[bold]example:[/bold] {inert_markup(shown)}")


@app.command("run")
def run_cmd(
    name: str = typer.Argument(..., help="Tool name."),
    input_value: str | None = typer.Option(
        None,
        "--input",
        "-i",
        help="Value of the tool's first required input; @FILE reads it from a file.",
    ),
    args: str | None = typer.Option(None, "--args", help="Other arguments as a JSON object."),
    as_json: bool = typer.Option(False, "--json", help="Print the uniform JSON result."),
    time_limit: float | None = typer.Option(
        None,
        "--time-limit",
        help="Seconds a heavy tool may run before its worker is stopped (default: the tool's).",
    ),
) -> None:
    """Run one tool; exit 0 when it returned ok, 1 when it returned ok: false."""
    from scigate.tools import get_tool, limit_override

    t = get_tool(name)
    require_tool_modules(t.spec.requires, f"the tool {t.name}")
    arguments = _parse_json_object(args, "--args")
    if input_value is not None:
        names = t.required_parameters or t.parameter_names
        if not names:
            raise BadInput(f"{t.name} takes no arguments; drop --input")
        arguments = {names[0]: _coerce(t, input_value), **arguments}
    with limit_override(time_limit):
        result = t.call(arguments)
    if as_json:
        _echo_json(result.as_dict())
    elif result.ok:
        typer.echo(inert(result.display) if result.display is not None else "")
    else:
        print(inert(result.error), file=sys.stderr)
    raise typer.Exit(0 if result.ok else 1)


@app.command("chain")
def chain_cmd(
    tools: str = typer.Argument(..., help="Tool names separated by commas, e.g. A,B,C."),
    input_value: str = typer.Option(..., "--input", "-i", help="Input of the first tool."),
    args: str | None = typer.Option(None, "--args", help="Extra first-step arguments (JSON)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    time_limit: float | None = typer.Option(
        None,
        "--time-limit",
        help="Seconds a heavy tool may run before its worker is stopped (default: the tool's).",
    ),
) -> None:
    """Run tools in sequence, each step's value feeding the next; shows every step."""
    from scigate.tools import get_tool, limit_override, parse_chain, run_chain

    names = parse_chain(tools)
    for tool in map(get_tool, names):
        require_tool_modules(tool.spec.requires, f"the tool {tool.name}")
    first = get_tool(names[0])
    with limit_override(time_limit):
        outcome = run_chain(
            names, _coerce(first, input_value), first_arguments=_parse_json_object(args, "--args")
        )
    if as_json:
        _echo_json(outcome.as_dict())
    else:
        console = _console()
        for i, step in enumerate(outcome.steps, start=1):
            mark = "[green]ok[/green]" if step.result.ok else "[red]failed[/red]"
            shown = step.result.display if step.result.ok else step.result.error
            console.print(
                f"{i}. {inert_markup(step.tool)} {mark}: {inert_markup(shown)}", highlight=False
            )
        if not outcome.ok:
            print(inert(outcome.error), file=sys.stderr)
    raise typer.Exit(0 if outcome.ok else 1)


@app.command("plan")
def plan_cmd(
    tools: str = typer.Argument(..., help="A tool path, names separated by commas, e.g. A,B,C."),
    input_value: str = typer.Option(..., "--input", "-i", help="The entity (task Parameter)."),
    args: str | None = typer.Option(
        None,
        "--args",
        help='Constant arguments per tool (JSON), e.g. \'{"CountSMARTSMatches": {"smarts": "[OH]"}}\'.',
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    time_limit: float | None = typer.Option(
        None,
        "--time-limit",
        help="Seconds a heavy tool may run before its worker is stopped (default: the tool's).",
    ),
) -> None:
    """Run a tool path as a typed DAG: each input bound from the entity or an earlier step's output."""
    from scigate.tools import get_tool, limit_override, make_plan, parse_chain, run_plan

    given = _parse_json_object(args, "--args")
    if any(not isinstance(v, dict) for v in given.values()):
        raise BadInput('--args maps tool names to argument objects, e.g. {"Tool": {"x": 1}}')
    plan = make_plan(parse_chain(tools), given=given)
    for step in plan.steps:
        require_tool_modules(get_tool(step.tool).spec.requires, f"the tool {step.tool}")
    entity = _coerce(get_tool(plan.steps[0].tool), input_value)
    with limit_override(time_limit):
        outcome = run_plan(plan, entity)
    if as_json:
        _echo_json(outcome.as_dict())
    else:
        console = _console()
        results = {s.index: s.result for s in outcome.steps}
        for line, step in zip(plan.describe(), plan.steps, strict=True):
            result = results.get(step.index)
            if result is None:
                shown = "[dim]not run[/dim]"
            elif result.ok:
                shown = f"[green]ok[/green]: {inert_markup(result.display)}"
            else:
                shown = f"[red]failed[/red]: {inert_markup(result.error)}"
            console.print(f"{inert_markup(line)} {shown}", highlight=False)
        if outcome.ok:
            console.print(f"answer: {inert_markup(outcome.answer())}", highlight=False)
        else:
            print(inert(outcome.error), file=sys.stderr)
    raise typer.Exit(0 if outcome.ok else 1)


@app.command("search")
def search_cmd(
    query: str = typer.Argument(..., help="What the tool should do."),
    k: int = typer.Option(5, "-k", "--top", help="How many tools."),
    expand: int = typer.Option(0, "--expand", help="Add tools within N I/O steps of the hits."),
    embedder: str | None = typer.Option(
        None, "--embedder", help="builtin, openai/MODEL, openai-compatible/MODEL?base_url=..."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Hybrid (BM25 + embedding) search over the tool descriptions."""
    from scigate.tools import ToolIndex, load_library, make_embedder

    tools = load_library()
    index = ToolIndex(tools.values(), embedder=make_embedder(embedder), cache=True)
    hits = index.search(query, k=k, expand_hops=expand)
    if as_json:
        _echo_json([h.as_dict() for h in hits])
        return
    table = Table(title=f"tools for: {inert_markup(query)}")
    for col in ("#", "name", "score", "via", "functionality"):
        table.add_column(col)
    for i, h in enumerate(hits, start=1):
        table.add_row(
            str(i),
            untrusted(h.name),
            f"{h.score:.4f}",
            untrusted(h.via),
            untrusted(tools[h.name].spec.functionality[:80]),
        )
    _console().print(table)


@app.command("graph")
def graph_cmd(
    out: Path = typer.Option(..., "--out", "-o", help="Where to write the graph JSON."),
) -> None:
    """Write the tool graph (tools, I/O types, edges) as JSON."""
    from scigate.tools import library_graph

    graph = library_graph()
    try:
        graph.save(out)
    except OSError as exc:
        raise BadInput(f"cannot write {out}: {exc.strerror or exc}") from None
    typer.echo(f"wrote {inert(out)}: {len(graph.tools)} tools, {len(graph.types)} types")


@app.command("coverage")
def coverage_cmd(
    catalogue: Path | None = typer.Option(
        None,
        "--catalogue",
        help="SciToolKG catalogue: the bundled JSON format, or the original graph_store.json (or its directory) [default: the bundled catalogue].",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    missing: bool = typer.Option(False, "--missing", help="Also list uncovered catalogue tools."),
) -> None:
    """How many catalogue tools the library implements, by category and by source."""
    from scigate.tools import BUNDLED_CATALOGUE, coverage, load_library, read_catalogue

    report = coverage(read_catalogue(catalogue or BUNDLED_CATALOGUE), load_library())
    if as_json:
        _echo_json(report)
        return
    console = _console()
    console.print(
        f"catalogue tools: {report['catalogue_tools']}   implemented: {report['implemented']} "
        f"({report['percent']}%; exact {report['exact']}, alias {report['alias']})   "
        f"library tools: {report['library_tools']} "
        f"({len(report['library_tools_not_in_catalogue'])} beyond the catalogue)"
    )
    for key in ("category", "source"):
        table = Table(title=f"by {key}")
        for col in (key, "total", "implemented", "exact", "alias", "%"):
            table.add_column(col)
        for row in report[f"by_{key}"]:
            table.add_row(
                untrusted(row[key]),
                str(row["total"]),
                str(row["implemented"]),
                str(row["exact"]),
                str(row["alias"]),
                f"{row['percent']}",
            )
        console.print(table)
    if missing:
        names = [r["name"] for r in report["tools"] if not r["match"]]
        console.print("[bold]not implemented:[/bold] " + inert_markup(", ".join(names)))


@app.command("serve-mcp")
def serve_mcp_cmd(
    transport: str = typer.Option("stdio", "--transport", help="stdio or http."),
    host: str = typer.Option("127.0.0.1", "--host", help="HTTP address to listen on."),
    port: int = typer.Option(8765, "--port", help="HTTP port."),
    domain: str | None = typer.Option(None, "--domain", "--category", help="Only one category."),
    allow_host: list[str] | None = typer.Option(
        None,
        "--allow-host",
        help="HTTP: a Host name accepted besides 127.0.0.1, localhost and [::1] "
        "(repeatable; glob patterns like *.example.org). Others get 421.",
    ),
    allow_origin: list[str] | None = typer.Option(
        None,
        "--allow-origin",
        help="HTTP: a browser Origin accepted besides loopback ones, e.g. "
        "https://app.example.org (repeatable). Others get 403.",
    ),
    token: str | None = typer.Option(
        None,
        "--token",
        envvar="SCIGATE_MCP_TOKEN",
        show_envvar=True,
        help="HTTP: require 'Authorization: Bearer TOKEN' (401 otherwise). Prefer the "
        "environment variable: a command line is visible to other users.",
    ),
    max_concurrent: int = typer.Option(
        4,
        "--max-concurrent",
        min=1,
        help="Tool calls running at once; more wait (up to the tool's time limit) for a slot.",
    ),
    mode: str = typer.Option(
        "full",
        "--mode",
        help="full: every tool listed with its schema; finder: two tools, find_tools(query) "
        "and call_tool(name, arguments), over the same library (a much smaller tool list).",
    ),
) -> None:
    """Serve the tools over MCP (stdio, or streamable HTTP at http://HOST:PORT/mcp).

    HTTP accepts loopback Host/Origin only unless allowed; SIGTERM stops it within 1 s.
    """
    require_module("fastmcp", "mcp", "scigate tools serve-mcp")
    require_module("mcp", "mcp", "scigate tools serve-mcp")
    from scigate.tools import check_token, list_tools, serve

    if transport not in ("stdio", "http"):
        raise BadInput(f"unknown transport {transport!r}; expected stdio or http")
    if mode not in ("full", "finder"):
        raise BadInput(f"unknown --mode {mode!r}; expected full or finder")
    if transport == "stdio" and (allow_host or allow_origin):
        raise BadInput("--allow-host and --allow-origin apply to --transport http only")
    if transport == "http":
        if token is not None:
            check_token(token)
        elif not _is_loopback(host):
            print(
                f"scigate: warning: serving on {one_line(host)} without --token: anyone who can "
                "reach this address can call the tools",
                file=sys.stderr,
            )
    tools = {t.name: t for t in list_tools(domain)}
    serve(
        transport,  # type: ignore[arg-type]
        host=host,
        port=port,
        tools=tools,
        allow_hosts=allow_host or (),
        allow_origins=allow_origin or (),
        token=token if transport == "http" else None,
        max_concurrent=max_concurrent,
        mode=mode,  # type: ignore[arg-type]
    )


def _is_loopback(host: str) -> bool:
    import ipaddress

    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False
