"""The live progress display of a ToolGate run: a bar, and the funnel counts under it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from scigate.cli._console import inert
from scigate.errors import BadInput


@contextmanager
def funnel_progress(
    console: Console, total: int | None, description: str = "starting"
) -> Iterator[Callable[[int, int, Any], None]]:
    """A progress bar with the funnel on its own line (it stays readable in a narrow
    terminal); yields the callback the loop calls after every round."""
    progress = Progress(
        TextColumn("[bold]ToolGate[/bold]"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    )
    task = progress.add_task("rounds", total=total or None)
    funnel = Text(description, style="dim")
    with Live(Group(progress, funnel), console=console, refresh_per_second=8) as live:

        def update(done: int, total: int, counts: Any) -> None:
            progress.update(task, completed=done, total=total)
            funnel.plain = inert(counts.line())  # screen specs may come from a run database

        try:
            yield update
        except BadInput:
            live.transient = True  # bad input (e.g. a run in use): its one line is all we print
            raise
    if not console.is_terminal:
        console.file.write("\n")  # Live leaves its last frame unterminated off a terminal
