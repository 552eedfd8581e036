"""One writer per run: a live holder refuses a second process; a dead holder's lock is free."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scigate.store import Store, lock_path, lock_run

HOLDER = textwrap.dedent(
    """
    import sys, time
    from scigate.gate._loop import LoopConfig
    from scigate.store import Store

    store = Store(sys.argv[1])
    config = LoopConfig(rounds=1, generator="templates", fem_workers=1).model_dump()
    run_id = store.create_run("gate", domain="fenicsx", config=config)
    store.add_attempt(run_id, 0, candidate_id=None, status="rejected")  # its only round is done
    print(run_id, flush=True)
    time.sleep(600)
    """
)


def _holder(db: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)], stdout=subprocess.PIPE, text=True
    )
    run_id = proc.stdout.readline().strip()
    assert run_id, "holder did not start"
    return proc, run_id


def _kill(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)


def _claim_in_child(db: Path, run_id: str) -> subprocess.CompletedProcess:
    code = (
        "import sys; from scigate.store import Store; s = Store(sys.argv[1]);"
        " s.set_run_status(sys.argv[2], 'running'); print('claimed')"
    )
    return subprocess.run(
        [sys.executable, "-c", code, str(db), run_id], capture_output=True, text=True, timeout=120
    )


def test_a_live_run_is_refused_to_a_second_process_and_free_after_its_holder_dies(tmp_path):
    db = tmp_path / "run.db"
    proc, run_id = _holder(db)
    try:
        assert lock_path(db, run_id).exists()
        second = _claim_in_child(db, run_id)
        assert second.returncode != 0 and "claimed" not in second.stdout
        assert f"is in use by process {proc.pid}" in second.stderr
        with Store(db) as store:  # nothing was written by the refused process
            assert store.get_run(run_id)["status"] == "running"
            assert [e["kind"] for e in store.events(run_id)] == []
    finally:
        _kill(proc)
    third = _claim_in_child(db, run_id)
    assert third.returncode == 0 and "claimed" in third.stdout, third.stderr
    lock = lock_run(db, run_id)  # and it was released when that process ended
    try:
        assert lock.taken_over_from is not None and lock.taken_over_from["pid"] != proc.pid
    finally:
        lock.release()
    assert not lock_path(db, run_id).exists()


def test_the_lock_is_reentrant_in_one_process_and_released_by_final_status(tmp_path) -> None:
    db = tmp_path / "run.db"
    with Store(db) as a, Store(db) as b:
        run_id = a.create_run("gate")
        b.set_run_status(run_id, "running")  # same process: allowed
        a.set_run_status(run_id, "interrupted")
        assert lock_path(db, run_id).exists()  # b still works on it
        b.set_run_status(run_id, "finished")
        assert not lock_path(db, run_id).exists()


def test_a_dead_holder_is_reported_as_taken_over(tmp_path) -> None:
    db = tmp_path / "run.db"
    proc, run_id = _holder(db)
    _kill(proc)
    lock = lock_run(db, run_id)
    try:
        assert lock.taken_over_from["pid"] == proc.pid
    finally:
        lock.release()


def test_another_process_cannot_finish_or_interrupt_a_live_run(tmp_path) -> None:
    db = tmp_path / "run.db"
    proc, run_id = _holder(db)
    try:
        code = (
            "import sys; from scigate.store import Store;"
            " Store(sys.argv[1]).set_run_status(sys.argv[2], 'finished')"
        )
        p = subprocess.run(
            [sys.executable, "-c", code, str(db), run_id], capture_output=True, text=True
        )
        assert p.returncode != 0 and "in use by process" in p.stderr
    finally:
        _kill(proc)


@pytest.mark.slow
def test_gate_run_resume_of_a_live_run_exits_2_and_works_after_sigkill(tmp_path) -> None:
    db = tmp_path / "run.db"
    proc, run_id = _holder(db)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    resume = [sys.executable, "-m", "scigate", "gate", "run", "--db", str(db), "--resume"]
    try:
        p = subprocess.run(resume, capture_output=True, text=True, timeout=300, env=env)
        assert p.returncode == 2, p.stderr
        (line,) = p.stderr.strip().splitlines()
        assert f"run {run_id}" in line and f"in use by process {proc.pid}" in line
    finally:
        _kill(proc)
    p = subprocess.run(resume, capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0, p.stderr
    assert f"run {run_id} finished" in p.stdout
    with Store(db) as store:
        assert store.get_run(run_id)["status"] == "finished"


def test_a_child_that_outlives_its_parent_keeps_the_run_and_is_named(tmp_path) -> None:
    """A forked child inherits the lock: the run stays in use until it ends too."""
    db = tmp_path / "run.db"
    code = textwrap.dedent(
        """
        import os, sys, time
        from scigate.store import Store
        store = Store(sys.argv[1])
        run_id = store.create_run("gate")
        child = os.fork()
        if child == 0:
            time.sleep(600)  # the child: holds the inherited lock
            os._exit(0)
        print(run_id, child, flush=True)
        os._exit(0)
        """
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", code, str(db)], stdout=subprocess.PIPE, text=True
    )
    run_id, child = parent.stdout.readline().split()
    parent.wait(60)
    parent.stdout.close()  # the child still has the pipe open
    try:
        refused = _claim_in_child(db, run_id)
        assert refused.returncode != 0
        assert "has exited while a process it started still holds the lock" in refused.stderr
    finally:
        os.kill(int(child), signal.SIGKILL)
