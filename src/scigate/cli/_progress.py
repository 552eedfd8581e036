"""The live progress bar of a ToolGate run, with the funnel counts as its description."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


@contextmanager
def funnel_progress(
    console: Console, total: int | None, description: str = "starting"
) -> Iterator[Callable[[int, int, Any], None]]:
    """A progress bar; yields the callback the loop calls after every round."""
    progress = Progress(
        TextColumn("[bold]ToolGate[/bold]"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=console,
    )
    with progress:
        task = progress.add_task(description, total=total or None)

        def update(done: int, total: int, funnel: Any) -> None:
            progress.update(task, completed=done, total=total, description=funnel.line())

        yield update
