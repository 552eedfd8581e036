"""What two `gate run`s are compared by: every round's outcome and what reached gate 1."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from scigate.store import Store


def round_outcomes(db: Path) -> tuple[list[tuple[int, str]], dict[str, tuple]]:
    """Every round's outcome in the database's one run, and the candidates that reached
    gate 1 with their question, options, answer and distractors."""
    with Store(db, create=False, readonly=True) as store:
        [run] = [r["id"] for r in store.query("SELECT id FROM runs")]
        outcomes = sorted((a["round"], a["status"]) for a in store.attempts(run))
        gated = {}
        for g in store.gate_results(run_id=run, gate="verify"):
            c = store.get_candidate(g["candidate_id"])
            assert c is not None
            gated[c.id] = (c.question, c.options, c.answer, c.meta.get("distractors"))
    return outcomes, gated


@dataclass
class Ran:
    """What a `scigate` command run in-process returned, shaped as a finished process."""

    returncode: int
    stdout: str
    stderr: str


def scigate_in_process(*argv: str, env: dict[str, str] | None = None) -> Ran:
    """`scigate ARGV` run in this test process with `env` set for its duration: the
    imports and the warm sandbox servers of earlier runs in the same worker are reused
    (a new interpreter pays 1-3 s for them). For tests about what a run records, not
    about the process (signals, exit on a kill: those start one)."""
    from _cli import run_main

    saved = {key: os.environ.get(key) for key in env or {}}
    os.environ.update(env or {})
    try:
        code, out, err = run_main(*argv)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return Ran(code, out, err)
