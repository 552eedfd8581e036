"""Gate runs whose verification runs on an executor: same answers as the local run on
local Ray, and a verification job that keeps failing is a round error, never a verdict."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from scigate.executor import Job, LocalExecutor
from scigate.gate import executor_verifier
from scigate.gate._loop import LoopConfig, run_loop
from scigate.store import Store


def _config(rounds: int) -> LoopConfig:
    return LoopConfig(
        generator="templates",
        screens=["cue/middle", "cue/letter-C"],
        rounds=rounds,
        seed=3,
        fem_workers=2,
        concurrency=2,
        verify_timeout=120,
    )


def _gate_run(db: Path, rounds: int, executor=None) -> tuple[dict, list[tuple], list[dict]]:
    store = Store(db)
    try:
        verifier = executor_verifier(executor) if executor else None
        run_id, funnel = asyncio.run(run_loop(_config(rounds), store, verifier=verifier))
        outcomes = sorted(
            (
                g["candidate_id"],
                g["gate"],
                g["screen"] or "",
                g["outcome"],
                g["reason"],
                json.dumps(
                    [c.get("chosen_original") for c in (g["detail"] or {}).get("calls", [])]
                ),
            )
            for g in store.gate_results(run_id=run_id)
        )
        return funnel.model_dump(), outcomes, store.attempts(run_id)
    finally:
        store.close()


@pytest.mark.slow
def test_ray_gate_run_has_the_local_runs_funnel_and_outcomes(ray_executor, tmp_path):
    local = _gate_run(tmp_path / "local.db", 3)
    spread = _gate_run(tmp_path / "ray.db", 3, ray_executor)
    assert spread[0] == local[0] and local[0]["verified"] == 3
    assert spread[1] == local[1]
    assert [a["status"] for a in spread[2]] == [a["status"] for a in local[2]]


class _LosesEveryJob(LocalExecutor):
    async def _attempt(self, job: Job):
        raise ConnectionError(f"node of {job.id[:8]} lost")


@pytest.mark.slow
def test_verification_that_keeps_failing_is_a_round_error_not_a_fail(tmp_path):
    funnel, outcomes, attempts = _gate_run(tmp_path / "lost.db", 1, _LosesEveryJob(1, 1))
    assert outcomes == [] and funnel["verified"] == 0 and funnel["errors"] == 1
    assert attempts[0]["status"] == "error"
    assert "failed after 2 attempts: ConnectionError: node of" in attempts[0]["reason"]


@pytest.mark.slow
def test_cli_gate_run_on_ray_records_the_executor(ray_executor, tmp_path, capsys):
    from scigate.cli._gate import app

    db = tmp_path / "cli.db"
    app(
        args=["run", "--db", str(db), "--generator", "templates", "--rounds", "1",
              "--screen", "cue/middle", "--executor", "ray", "--json"],
        standalone_mode=False,
    )  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert out["executor"] == {"name": "ray", "workers": 2, "nodes": 1}
    assert out["funnel"]["verified"] == 1
    store = Store(db)
    try:
        [event] = store.events(kind="executor")
        assert event["data"] == out["executor"]
    finally:
        store.close()
