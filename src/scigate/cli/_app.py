"""The typer application and its verb groups."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

import typer
from typer.core import TyperGroup

try:  # typer >= 0.20 vendors click as typer._click
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover - older typer uses click itself
    from click import exceptions as click_exceptions

from scigate import __version__
from scigate.cli._console import one_line


class OneLineUsageError(Exception):
    """A usage error to show as the one line `scigate: error: ...` with exit status 2.

    Deliberately not a ClickException: typer would print those as a multi-line panel.
    """

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code

    def show(self, file: IO[Any] | None = None) -> None:
        """Print the message as one line on stderr."""
        print(f"scigate: error: {one_line(self)}", file=file or sys.stderr)


@contextmanager
def _one_line_usage_errors() -> Iterator[None]:
    try:
        yield
    except click_exceptions.NoArgsIsHelpError:
        raise
    except click_exceptions.UsageError as exc:
        raise OneLineUsageError(exc.format_message(), exc.exit_code) from None


class ScigateGroup(TyperGroup):
    """The root command: every invocation (the entry point, typer's CliRunner) validates its
    options at the boundary (`scigate.cli._validate`) and shows usage errors as one line."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Attach the boundary checks to the command tree, then run it."""
        from scigate.cli._validate import validate_tree

        validate_tree(self)
        try:
            return super().main(*args, **kwargs)
        except OneLineUsageError as exc:
            exc.show()
            sys.exit(exc.exit_code)

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        """Parse the root's own options; usage errors become one line."""
        with _one_line_usage_errors():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: Any) -> Any:
        """Parse and run the subcommands; usage errors become one line."""
        with _one_line_usage_errors():
            return super().invoke(ctx)


app = typer.Typer(
    cls=ScigateGroup,
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
    from scigate._tmp import sweep_stale_tempdirs

    sweep_stale_tempdirs()  # what killed runs left in the temporary directory


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
    from scigate.cli._bench import app as bench_app

    app.add_typer(bench_app, name="bench", help="Benchmarks with executed gold answers.")
    from scigate.cli._review import app as review_app

    app.add_typer(review_app, name="review", help="Expert review: web app, CSV, agreement.")


_register()
