"""A gate run's sandboxed stages on an executor (local threads here, no Ray): the model
solver's calls travel back and are recorded as in-process; a stage whose job keeps
failing is recorded as `error` with the reason, never as a verdict; a resume on another
executor records both, and the report shows each."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from scigate.executor import Job, LocalExecutor
from scigate.gate import ExecutorWorkers, GateWorkers
from scigate.gate._loop import LoopConfig, run_loop
from scigate.store import Store

MODELS = Path(__file__).parent / "models"
GEN = f"python/{Path(__file__).parents[1] / 'gate' / 'models' / 'generator.py'}:writes_candidates"
SOLVER = f"python/{MODELS / 'solvers.py'}:picks_largest"
SOLVER_CMD = f"{sys.executable} {MODELS / 'solvers.py'} {{workspace}}"


class _LosesStage(LocalExecutor):
    """Loses every job of one stage (`verify`, `invariance`, `solve`) with its worker."""

    def __init__(self, stage: str) -> None:
        super().__init__(2, retries=1)
        self.stage = stage

    async def _attempt(self, job: Job):
        if job.id.startswith(f"{self.stage}:"):
            raise ConnectionError(f"node of {job.id[:20]} lost")
        return await super()._attempt(job)


def _config(**kwargs) -> LoopConfig:
    base = dict(generator=GEN, rounds=1, fem_workers=1, concurrency=1, verify_timeout=60)
    return LoopConfig(**(base | kwargs))


def _run(db: Path, cfg: LoopConfig, workers: GateWorkers | None, **kwargs) -> tuple[str, Store]:
    store = Store(db)
    run_id, _ = asyncio.run(run_loop(cfg, store, workers=workers, **kwargs))
    return run_id, store


def _solver_calls(store: Store, run_id: str) -> list[tuple]:
    rows = store.query(
        "SELECT candidate_id, role, call_key FROM model_calls WHERE run_id = ? AND role = 'solver'"
        " ORDER BY id",
        (run_id,),
    )
    return [(r["candidate_id"], r["role"], r["call_key"]) for r in rows]


def test_model_solver_on_workers_records_its_calls_as_in_process(tmp_path):
    """The calls the solver made on a worker are written by the driver, once each."""
    cfg = _config(invariance=False, solver=SOLVER)
    here_id, here = _run(tmp_path / "here.db", cfg, None)
    there_id, there = _run(tmp_path / "there.db", cfg, ExecutorWorkers(LocalExecutor(2)))
    try:
        [a] = here.gate_results(run_id=here_id, gate="solve")
        [b] = there.gate_results(run_id=there_id, gate="solve")
        assert (a["outcome"], a["reason"]) == (b["outcome"], b["reason"])
        assert a["outcome"] == "fail" and "chose D" in a["reason"]  # computed in the sandbox
        assert _solver_calls(here, here_id) == _solver_calls(there, there_id)
        assert len(_solver_calls(there, there_id)) == 2  # run_python, then submit
    finally:
        here.close()
        there.close()


def test_invariance_job_that_keeps_failing_is_an_error_not_a_verdict(tmp_path):
    run_id, store = _run(tmp_path / "inv.db", _config(), ExecutorWorkers(_LosesStage("invariance")))
    try:
        [inv] = store.gate_results(run_id=run_id, gate="invariance")
        assert inv["outcome"] == "error"
        assert inv["reason"].startswith(
            "error: invariance on the local executor failed after 2 attempts: "
            "ConnectionError: node of invariance:"
        )
        [attempt] = store.attempts(run_id)
        assert attempt["status"] == "error" and attempt["reason"] == inv["reason"]
        assert store.gate_results(run_id=run_id, gate="verify")[0]["outcome"] == "pass"
    finally:
        store.close()


@pytest.mark.parametrize("solver", ["model", "command"])
def test_solve_job_that_keeps_failing_is_an_error_not_a_verdict(tmp_path, solver):
    given = {"solver": SOLVER} if solver == "model" else {"solver_cmd": SOLVER_CMD}
    cfg = _config(invariance=False, **given)
    run_id, store = _run(tmp_path / "solve.db", cfg, ExecutorWorkers(_LosesStage("solve")))
    try:
        [solve] = store.gate_results(run_id=run_id, gate="solve")
        assert solve["outcome"] == "error"
        assert solve["reason"].startswith(
            "error: solving on the local executor failed after 2 attempts: "
            "ConnectionError: node of solve:"
        )
        [attempt] = store.attempts(run_id)
        assert attempt["status"] == "error" and attempt["reason"] == solve["reason"]
        assert _solver_calls(store, run_id) == []  # a lost attempt's calls are not recorded
    finally:
        store.close()


def test_resume_on_another_executor_records_both_and_the_report_shows_each(tmp_path):
    from scigate.gate._report import build_report

    cfg = _config(rounds=1, invariance=False, solver_cmd=SOLVER_CMD)
    run_id, store = _run(tmp_path / "r.db", cfg, None)
    store.close()
    resumed = _config(rounds=2, invariance=False)
    run_id2, store = _run(  # the recorded --solver-cmd is this test's own: trusted
        tmp_path / "r.db",
        resumed,
        ExecutorWorkers(LocalExecutor(3)),
        resume=True,
        trust_stored_specs=True,
    )
    try:
        assert run_id2 == run_id
        ran_on = [e["data"] for e in store.events(run_id, kind="executor")]
        assert ran_on == [
            {"name": "local", "workers": 1, "nodes": 1},
            {"name": "local", "workers": 3, "nodes": 1},
        ]
        # round 0 unchanged; round 1 (a broken candidate) verified on the executor
        statuses = [(a["round"], a["status"]) for a in store.attempts(run_id)]
        assert sorted(statuses) == [(0, "unsolved"), (1, "rejected-verify")]
        html = build_report(store, tmp_path / "report").html.read_text()
    finally:
        store.close()
    assert "started: local (1 worker, 1 node)" in html
    assert "resumed: local (3 workers, 1 node)" in html
    assert "ran on local (1 worker, 1 node), local (3 workers, 1 node)" in html


def test_verification_job_that_keeps_failing_is_a_round_error_not_a_fail(tmp_path):
    run_id, store = _run(tmp_path / "v.db", _config(), ExecutorWorkers(_LosesStage("verify")))
    try:
        assert store.gate_results(run_id=run_id) == []
        [attempt] = store.attempts(run_id)
        assert attempt["status"] == "error"
        assert "verification on the local executor failed after 2 attempts: " in attempt["reason"]
        assert "ConnectionError: node of verify:" in attempt["reason"]
    finally:
        store.close()


class _Captures(LocalExecutor):
    """Records each job instead of running it."""

    def __init__(self) -> None:
        super().__init__(1, retries=0)
        self.jobs: list[Job] = []

    async def _attempt(self, job: Job):
        self.jobs.append(job)
        return None, "worker"


@pytest.mark.parametrize("opted_out", [False, True])
def test_solver_command_isolation_is_the_drivers_choice(monkeypatch, opted_out):
    """A worker's environment does not decide whether a --solver-cmd runs unsandboxed."""
    from scigate.gate import Candidate

    if opted_out:
        monkeypatch.setenv("SCIGATE_SOLVER_CMD_UNSANDBOXED", "1")
    else:
        monkeypatch.delenv("SCIGATE_SOLVER_CMD_UNSANDBOXED", raising=False)
    executor = _Captures()
    cand = Candidate(question="q?", options={k: k for k in "ABCD"}, answer="A", solution="")
    asyncio.run(
        ExecutorWorkers(executor).solve_command(cand, "true", time_limit=5, domain="fenicsx")
    )
    [job] = executor.jobs
    assert job.kwargs["unsandboxed"] is opted_out
