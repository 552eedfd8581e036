"""The typer application and its verb groups."""

from __future__ import annotations

import typer

from scigate import __version__

app = typer.Typer(
    name="scigate",
    help="A workbench for tool-dependent scientific evaluation.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"scigate {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version and exit."
    ),
    allow_unisolated: bool = typer.Option(
        False,
        "--allow-unisolated",
        help="Run untrusted code even where bubblewrap cannot isolate it (unsafe; "
        "each result records it). Also SCIGATE_ALLOW_UNISOLATED=1.",
    ),
    solver_cmd_unsandboxed: bool = typer.Option(
        False,
        "--solver-cmd-unsandboxed",
        help="Run --solver-cmd commands outside the sandbox, with your files and home "
        "(for agents that need their own configuration). They see everything you do.",
    ),
) -> None:
    """scigate: scientific tools, tool-using agents, and ToolGate benchmarks."""
    if solver_cmd_unsandboxed:
        import os

        os.environ["SCIGATE_SOLVER_CMD_UNSANDBOXED"] = "1"
    if allow_unisolated:
        from scigate.sandbox import allow_unisolated as allow

        allow(True)


def _register() -> None:
    from scigate.cli import _demo, _doctor, _gate

    app.command("doctor")(_doctor.doctor)
    app.command("demo")(_demo.demo)
    app.add_typer(
        _gate.app, name="gate", help="ToolGate: generate, verify, screen, solve, audit, report."
    )
    try:
        from scigate.cli._tools import app as tools_app
    except ImportError:  # pragma: no cover - during development only
        tools_app = typer.Typer(help="The scientific tool library.")
    app.add_typer(tools_app, name="tools", help="The scientific tool library.")
    try:
        from scigate.cli._agent import app as agent_app
    except ImportError:  # pragma: no cover - during development only
        agent_app = typer.Typer(help="Tool-using agents and their evaluation.")
    app.add_typer(agent_app, name="agent", help="Tool-using agents and their evaluation.")


_register()
