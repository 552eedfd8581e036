"""The gate loop's event loop is never held up by a round's bookkeeping.

Every step of a round between two awaits runs in the one event loop that all rounds
share: a blocking call there (a SQLite commit of a whole conversation, a slow disk's
checkpoint, a price table's first load) stops every other round's model calls, sandbox
runs and gates, and adds its time to their recorded durations. asyncio's debug mode
names each callback that held the loop longer than `slow_callback_duration`; the run
below makes every model-call write slow on purpose (a slow disk), and no callback may
hold the loop for as long as that write takes. The control runs the same write in the
loop, as it was before, and is caught.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import pytest

from scigate.gate import LoopConfig
from scigate.gate._loop import run_loop
from scigate.store import Store

from .conftest import model_spec

#: no callback of the loop may take this long (idle: the longest is the run's first
#: step, about 0.1 s, imports included)
BOUND = 1.5
#: what one slowed model-call write takes (a slow disk), above the bound
SLOW_WRITE = 2.5


class _SlowCallbacks(logging.Handler):
    """asyncio's debug-mode reports: "Executing <Handle ...> took 1.234 seconds"."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.reports: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if message.startswith("Executing") and " took " in message:
            self.reports.append(message)


def _run_with_a_slow_write(db: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Two rounds of an LLM generator run whose first model-call write takes SLOW_WRITE
    seconds; the slow callbacks asyncio reported."""
    original = Store.add_model_call
    slowed: list[float] = []

    def slow_add_model_call(self, *args, **kwargs):
        if not slowed:
            slowed.append(time.monotonic())
            time.sleep(SLOW_WRITE)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Store, "add_model_call", slow_add_model_call)
    cfg = LoopConfig(
        generator=model_spec("generator:writes_candidates"),
        screens=["cue/largest"],
        rounds=2,
        concurrency=2,
        verify_timeout=120,
        near_duplicate=0,
    )
    handler = _SlowCallbacks()
    logger = logging.getLogger("asyncio")
    logger.addHandler(handler)

    async def main() -> None:
        asyncio.get_running_loop().slow_callback_duration = BOUND
        with Store(db) as store:
            await run_loop(cfg, store)

    try:
        asyncio.run(main(), debug=True)
    finally:
        logger.removeHandler(handler)
    assert slowed, "no model call was recorded: the slow write never happened"
    with Store(db) as store:
        assert len(store.attempts()) == 2
    return handler.reports


def test_a_slow_model_call_write_never_holds_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reports = _run_with_a_slow_write(tmp_path / "run.db", monkeypatch)
    assert reports == []


def test_control_a_write_in_the_event_loop_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model layer's record written in the loop (as before the fix): the slowed
    write is reported as a callback that held the loop."""
    from scigate.llm import Model

    async def record_in_the_loop(self, record) -> None:
        if self.recorder is not None:
            self.recorder(record)

    monkeypatch.setattr(Model, "_record", record_in_the_loop)
    reports = _run_with_a_slow_write(tmp_path / "run.db", monkeypatch)
    assert reports, "the detector missed a blocking write"
    seconds = [float(r.rsplit(" took ", 1)[1].split()[0]) for r in reports]
    assert max(seconds) >= SLOW_WRITE
