"""Crash safety and concurrency: kill -9 a writer mid-run and resume it; many writers.

Writer processes are forked from the test process (fast to start) and run
`_store_writer.run`, which opens its own Store; the final resume of the crash test runs
the writer as a fresh interpreter, as a user resuming a run would.
"""

from __future__ import annotations

import asyncio
import importlib.util
import multiprocessing
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from scigate.store import Store

WRITER = Path(__file__).with_name("_store_writer.py")
_spec = importlib.util.spec_from_file_location("_store_writer", WRITER)
writer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(writer)

FORK = multiprocessing.get_context("fork")


def _fork(db: Path, run_id: str, rounds: int, sleep: float = 0.0, hang: int = -1):
    proc = FORK.Process(target=writer.run, args=(str(db), run_id, rounds, sleep, hang))
    proc.start()
    return proc


def _wait_until(condition, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.002)


def _assert_complete(db: Path, run_ids: list[str], rounds: int) -> None:
    """Every run has exactly `rounds` records of each kind, none duplicated, file intact."""
    with Store(db) as store:
        for run_id in run_ids:
            counts = store.query(
                "SELECT (SELECT count(*) FROM attempts WHERE run_id = :r) AS attempts,"
                " (SELECT count(DISTINCT round) FROM attempts WHERE run_id = :r) AS rounds,"
                " (SELECT count(*) FROM candidates WHERE run_id = :r) AS candidates,"
                " (SELECT count(DISTINCT question_key) FROM candidates WHERE run_id = :r)"
                "   AS questions,"
                " (SELECT count(*) FROM gate_results WHERE run_id = :r) AS gate_results,"
                " (SELECT count(*) FROM model_calls WHERE run_id = :r) AS model_calls,"
                " (SELECT count(DISTINCT call_key) FROM model_calls WHERE run_id = :r)"
                "   AS call_keys",
                {"r": run_id},
            )[0]
            assert counts == {
                "attempts": rounds,
                "rounds": rounds,
                "candidates": rounds,
                "questions": rounds,
                "gate_results": 2 * rounds,
                "model_calls": rounds,
                "call_keys": rounds,
            }, run_id
            assert store.done_rounds(run_id) == set(range(rounds))
            linked = store.query(
                "SELECT count(*) AS n FROM attempts a JOIN gate_results g"
                " ON g.candidate_id = a.candidate_id AND g.run_id = a.run_id WHERE a.run_id = ?",
                (run_id,),
            )[0]["n"]
            assert linked == 2 * rounds
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        conn.close()


def test_kill_9_mid_run_then_resume_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    db, run_id, rounds = tmp_path / "run.db", "gate-crash", 40
    # First, a kill inside an open write transaction, in the middle of round 3.
    proc = _fork(db, run_id, rounds, hang=3)
    _wait_until(lambda: Path(f"{db}.hang").exists() or not proc.is_alive())
    os.kill(proc.pid, signal.SIGKILL)
    proc.join(30)
    assert proc.exitcode == -signal.SIGKILL
    with Store(db) as store:  # the lock died with the writer; the open transaction is gone
        assert store.done_rounds(run_id) == {0, 1, 2}
        assert len(store.model_calls(run_id=run_id)) == 4  # round 3 was half written
        assert len(store.candidates(run_id)) == 4

        # Then kills at random instants while rounds are being written.
        rng = random.Random(7)
        for _ in range(3):
            proc = _fork(db, run_id, rounds, sleep=0.003)
            target = len(store.done_rounds(run_id)) + rng.randint(2, 5)
            _wait_until(lambda: len(store.done_rounds(run_id)) >= target)  # noqa: B023
            time.sleep(rng.uniform(0.0, 0.012))
            os.kill(proc.pid, signal.SIGKILL)
            proc.join(30)
            assert proc.exitcode == -signal.SIGKILL
        assert len(store.done_rounds(run_id)) < rounds
        assert store.get_run(run_id)["status"] == "running"

    # Resume to completion in a fresh interpreter.
    done = subprocess.run(
        [sys.executable, str(WRITER), str(db), run_id, str(rounds)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("finished")
    _assert_complete(db, [run_id], rounds)
    with Store(db) as store:
        assert store.get_run(run_id)["status"] == "finished"


def test_concurrent_processes_threads_and_tasks(tmp_path: Path) -> None:
    db, rounds = tmp_path / "run.db", 25
    procs = {f"proc-{i}": _fork(db, f"proc-{i}", rounds) for i in range(4)}
    store = Store(db)
    thread_runs = [f"thread-{i}" for i in range(4)]
    task_runs = [f"task-{i}" for i in range(4)]
    for run_id in thread_runs + task_runs:
        store.create_run("gate", run_id=run_id)
    errors: list[BaseException] = []

    def in_thread(run_id: str) -> None:
        try:
            for rnd in range(rounds):
                writer.write_round(store, run_id, rnd)
        except BaseException as e:
            errors.append(e)

    async def in_task(run_id: str) -> None:
        for rnd in range(rounds):
            writer.write_round(store, run_id, rnd)
            await asyncio.sleep(0)

    async def all_tasks() -> None:
        await asyncio.gather(*(in_task(r) for r in task_runs))

    threads = [threading.Thread(target=in_thread, args=(r,)) for r in thread_runs]
    for t in threads:
        t.start()
    asyncio.run(all_tasks())
    for t in threads:
        t.join()
    store.close()
    assert not errors
    for run_id, proc in procs.items():
        proc.join(120)
        assert proc.exitcode == 0, run_id
    _assert_complete(db, [*procs, *thread_runs, *task_runs], rounds)


def test_racing_writers_of_the_same_records_write_each_once(tmp_path: Path) -> None:
    db, run_id, rounds = tmp_path / "run.db", "gate-race", 20
    with Store(db) as store:
        store.create_run("gate", run_id=run_id)  # the owner; two worker processes race it
        procs = [FORK.Process(target=writer.work, args=(str(db), run_id, rounds)) for _ in "ab"]
        for proc in procs:
            proc.start()
        threads = [
            threading.Thread(
                target=lambda: [writer.write_round(store, run_id, r) for r in range(rounds)]
            )
            for _ in range(4)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for proc in procs:
            proc.join(60)
            assert proc.exitcode == 0
    _assert_complete(db, [run_id], rounds)


def test_forked_child_may_use_an_inherited_store(tmp_path: Path) -> None:
    db = tmp_path / "run.db"
    store = Store(db)
    for run_id in ("parent", "child"):
        store.create_run("gate", run_id=run_id)
    writer.write_round(store, "parent", 0)  # the parent's connection is open and used

    def child_writes() -> None:
        for rnd in range(5):
            writer.write_round(store, "child", rnd)  # the inherited Store
        store.close()

    child = FORK.Process(target=child_writes)
    child.start()
    for rnd in range(1, 5):
        writer.write_round(store, "parent", rnd)
    child.join(60)
    assert child.exitcode == 0
    store.add_event("parent", "after-fork")  # the child's close() left ours open
    store.close()
    _assert_complete(db, ["parent", "child"], 5)
