"""`RunRecord`: the run an agent answer or evaluation records in a run database.

The harness records its own run: `RunRecord.open` creates it (kind and settings), the
models made with `recorder` store their calls under it, `evaluate(record=...)` records
each finished task as an `agent-task` event, and `RunRecord.running` sets the final
status (finished, interrupted or failed) and closes the database on every way out. A verb
only parses its options and calls these.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scigate.agents._evalrow import EvalRow
from scigate.errors import RunStopped

if TYPE_CHECKING:
    from scigate.llm import ModelCallRecord
    from scigate.store import Store

__all__ = ["TASK_EVENT_KEYS", "RunRecord", "running"]

#: the row keys an `agent-task` event records in the run database
TASK_EVENT_KEYS = (
    "run",
    "index",
    "line",
    "predicted_chain",
    "reference_chain",
    "tool_exact",
    "answer",
    "status",
    "answer_correct",
    "error",
    "calls",
    "input_tokens",
    "output_tokens",
)


@dataclass
class RunRecord:
    """One run in a run database: its model calls, task events and final status."""

    store: Store
    run_id: str

    @classmethod
    def open(cls, db: str | Path | None, kind: str, details: dict[str, Any]) -> RunRecord | None:
        """The `kind` run recorded in `db` (created now, `details` its configuration), or
        None without a database."""
        if db is None:
            return None
        from scigate.store import Store

        store = Store(db)
        return cls(store, store.create_run(kind, config=details))

    def recorder(self, role: str) -> Callable[[ModelCallRecord], None]:
        """The callback a model stores its calls with, under this run and `role`."""
        return self.store.recorder(run_id=self.run_id, role=role)

    def task(self, row: EvalRow) -> None:
        """Record one finished task as an `agent-task` event."""
        self.store.add_event(self.run_id, "agent-task", {k: row[k] for k in TASK_EVENT_KEYS})

    def close(self, status: str) -> None:
        """Set the run's final status and close the database."""
        self.store.set_run_status(self.run_id, status)
        self.store.close()

    @contextmanager
    def running(self) -> Iterator[RunRecord]:
        """The run's work: on the way out its status is set (finished; interrupted on
        Ctrl-C; stopped at a budget; failed on an error) and the database closed."""
        status = "failed"
        try:
            yield self
            status = "finished"
        except KeyboardInterrupt:
            status = "interrupted"
            raise
        except RunStopped:  # at a budget: cleanly, resumable
            status = "stopped"
            raise
        finally:
            self.close(status)


@contextmanager
def running(record: RunRecord | None) -> Iterator[RunRecord | None]:
    """`record.running()`, or nothing to record without a run database."""
    if record is None:
        yield None
        return
    with record.running():
        yield record
