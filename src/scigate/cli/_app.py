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
    from click import exceptions as click_exceptions  # type: ignore[no-redef]  # the fallback of the import above

from scigate import __version__
from scigate.cli._console import one_line
from scigate.cli._examples import EXAMPLES, attach_examples
from scigate.errors import BadInput, BadValue, RunStopped, ScigateError

# verb -> (module, attribute, help): a verb's module (and what it imports: the tool
# library, the agents, the gate) is imported only when that verb runs or shows its help.
# The attribute is a typer app (a verb group) or a function (a single command).
VERBS: dict[str, tuple[str, str, str]] = {
    "doctor": (
        "scigate.cli._doctor",
        "doctor",
        "Show which domain stacks import, which providers have credentials, which "
        "protections are active.",
    ),
    "demo": (
        "scigate.cli._demo",
        "demo",
        "Generate template candidates, verify them, run the cue screens, write the report.",
    ),
    "gate": (
        "scigate.cli._gate",
        "app",
        "ToolGate: generate, verify, screen, solve, audit, report.",
    ),
    "tools": ("scigate.cli._tools", "app", "The scientific tool library."),
    "agent": ("scigate.cli._agent", "app", "Tool-using agents and their evaluation."),
    "bench": ("scigate.cli._bench", "app", "Benchmarks with executed gold answers."),
    "review": ("scigate.cli._review", "app", "Expert review: web app, CSV, agreement."),
    "runs": ("scigate.cli._runs", "app", "The runs of a run database and what each cost."),
    "cache": (
        "scigate.cli._cache",
        "app",
        "The response cache of model calls: stats, clear, prune.",
    ),
}


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


def show_error(exc: BaseException) -> int:
    """The CLI's one error path: `exc` as one escaped line on stderr; its exit status
    (2 for bad input and usage errors, 3 for a run stopped at a budget, 1 for other
    scigate errors)."""
    if isinstance(exc, RunStopped):
        print(f"scigate: stopped: {one_line(exc)}", file=sys.stderr)
        return exc.exit_code
    if isinstance(exc, OneLineUsageError):
        exc.show()
        return exc.exit_code
    if isinstance(exc, BadValue):  # a library field out of range: under its flag's name
        from scigate.cli._validate import flag_of

        print(f"scigate: error: {one_line(f'{flag_of(exc.field)} {exc.reason}')}", file=sys.stderr)
        return 2
    if isinstance(exc, BadInput):
        print(f"scigate: error: {one_line(exc)}", file=sys.stderr)
        return 2
    print(f"scigate: failed: {one_line(exc)}", file=sys.stderr)  # e.g. a service stayed down
    return 1


def _load_verb(name: str) -> Any:
    """The click command of verb `name`, built from its module in `VERBS`."""
    import importlib

    module, attribute, help_text = VERBS[name]
    target = getattr(importlib.import_module(module), attribute)
    if not isinstance(target, typer.Typer):
        single = typer.Typer(pretty_exceptions_enable=False, add_completion=False)
        single.command(name)(target)
        target = single
    target._add_completion = False  # the root has none either
    command = typer.main.get_command(target)
    command.name = name
    if isinstance(command, TyperGroup):
        command.help = help_text
    return attach_examples(command, name)


class OneLineGroup(TyperGroup):
    """A command group run on its own (the entry point, or typer's CliRunner on a verb
    group): validates its options at the boundary (`scigate.cli._validate`) and shows
    usage errors and scigate errors as one line (`show_error`)."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Attach the boundary checks to the command tree, then run it."""
        from scigate.cli._validate import validate_tree

        validate_tree(self)
        try:
            return super().main(*args, **kwargs)
        except (OneLineUsageError, ScigateError) as exc:
            sys.exit(show_error(exc))

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        """Parse the group's own options; usage errors become one line."""
        with _one_line_usage_errors():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: Any) -> Any:
        """Parse and run the subcommands; usage errors become one line."""
        with _one_line_usage_errors():
            return super().invoke(ctx)


class ScigateGroup(OneLineGroup):
    """The root command: a `OneLineGroup` that imports a verb's module (`VERBS`) only when
    the verb is used."""

    _listing = False  # while the root's help lists the verbs: their table entries suffice

    def list_commands(self, ctx: Any) -> list[str]:
        """The eagerly registered commands, then the lazily loaded verbs."""
        eager = super().list_commands(ctx)
        return eager + [v for v in VERBS if v not in eager]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """A registered command, or a verb from `VERBS` (imported now, checked once)."""
        found = super().get_command(ctx, cmd_name)
        if found is not None or cmd_name not in VERBS:
            return found
        if self._listing:
            return typer.core.TyperCommand(cmd_name, help=VERBS[cmd_name][2])
        from scigate.cli._validate import validate_tree

        command = validate_tree(_load_verb(cmd_name))
        self.commands[cmd_name] = command
        return command

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        """The subcommand `args` name; a typo gets suggestions among the lazy verbs too."""
        try:
            return super().resolve_command(ctx, args)
        except click_exceptions.UsageError as exc:
            if args and "Did you mean" not in exc.message:
                from difflib import get_close_matches

                matches = get_close_matches(args[0], self.list_commands(ctx))
                if matches:
                    shown = ", ".join(repr(m) for m in matches)
                    exc.message = f"{exc.message.rstrip('.')}. Did you mean {shown}?"
            raise

    def load_verbs(self) -> ScigateGroup:
        """Import every verb now (for tools that walk the whole command tree); returns self."""
        for name in VERBS:
            self.get_command(None, name)
        return self

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """The root's help, listing the verbs without importing them."""
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


app = typer.Typer(
    cls=ScigateGroup,
    name="scigate",
    help="A workbench for tool-dependent scientific evaluation.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    epilog=f"Example: {EXAMPLES['']}",
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
