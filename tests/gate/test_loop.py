"""The ToolGate loop end to end with python/ models: generate, verify, screen, solve."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from _gate_runs import scigate_in_process
from _wait import wait_until
from scigate.store import Store

from .conftest import model_spec

GEN = model_spec("generator:writes_candidates")


def _run(db: Path, *args: str, env: dict | None = None, check: bool = True):
    """`scigate gate run` in this process (the tests that signal or kill a run start one
    of its own)."""
    p = scigate_in_process("gate", "run", "--db", str(db), *args, env=env)
    if check:
        assert p.returncode == 0, p.stderr[-2000:]
    return p


def _common(rounds: int) -> list[str]:
    return [
        "--generator",
        GEN,
        "--screen",
        "cue/largest",
        "--screen",
        model_spec("screens:picks_largest"),
        "--solver",
        model_spec("solvers:runs_code"),
        "--rounds",
        str(rounds),
        "--json",
        "--verify-timeout",
        "60",
        "--time-limit",
        "60",
        "--concurrency",
        "1",
    ]


def test_loop_records_every_outcome_and_feeds_failures_back(tmp_path: Path) -> None:
    db, prompts = tmp_path / "run.db", tmp_path / "prompts.jsonl"
    # near-duplicate rejection off: round 2's exact repeat is gated and counted as such
    args = [*_common(3), "--near-duplicate", "0"]
    p = _run(db, *args, env={"SCIGATE_TEST_PROMPTS": str(prompts)})
    out = json.loads(p.stdout)
    funnel = out["funnel"]
    assert funnel["generated"] == 3 and funnel["verified"] == 2 and funnel["solved"] == 2
    assert funnel["screens"] == {"cue/largest": 2, model_spec("screens:picks_largest"): 2}
    assert funnel["unique"] == 1 and funnel["duplicates"] == 1

    store = Store(db)
    attempts = {a["round"]: a for a in store.attempts()}
    assert [attempts[r]["status"] for r in range(3)] == ["accepted", "rejected-verify", "accepted"]
    assert "several output lines" in attempts[1]["reason"]
    assert "exact duplicate of" in attempts[2]["reason"]
    dup = store.get_candidate(attempts[2]["candidate_id"])
    assert dup.duplicate_of == attempts[0]["candidate_id"]
    # the broken round's failure reaches the next prompt
    seen = [json.loads(line) for line in prompts.read_text().splitlines()]
    assert "Outcomes so far" in seen[2]["user"]
    assert "rejected-verify" in seen[2]["user"] and "several output lines" in seen[2]["user"]
    assert "Expert seed items" in seen[0]["user"] and "nonlinear" in seen[0]["user"].lower()
    # every gate left a record; model calls are in the database
    gates = {(g["candidate_id"], g["gate"], g["screen"]) for g in store.gate_results()}
    assert len(gates) == len(store.gate_results())
    roles = {c["role"] for c in store.model_calls()}
    assert {"generator", "screen", "solver"} <= roles
    store.close()

    # resume extends the same run; finished rounds are not redone (its python/ specs are
    # this test's own: trusted, see test_resume_trust)
    p = _run(db, "--resume", "--trust-stored-specs", "--rounds", "4", "--json")
    store = Store(db)
    assert sorted(a["round"] for a in store.attempts()) == [0, 1, 2, 3]
    assert len(store.runs()) == 1
    store.close()


def test_generator_that_writes_nothing_is_recorded(tmp_path: Path) -> None:
    db = tmp_path / "run.db"
    _run(db, "--generator", model_spec("generator:writes_nothing"), "--rounds", "1", "--json")
    store = Store(db)
    (a,) = store.attempts()
    assert a["status"] == "generator-failed" and "no candidate/ directory" in a["reason"]
    store.close()


def _attempts(db: Path) -> int:
    if not db.exists():
        return 0
    with Store(db) as s:
        return len(s.attempts())


def test_kill_9_mid_run_then_resume_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    """Killed while round 2 is held in its generation (rounds 0 and 1 recorded)."""
    db, hold = tmp_path / "run.db", tmp_path / "hold"
    args = [sys.executable, "-m", "scigate", "gate", "run", "--db", str(db), *_common(5)]
    proc = subprocess.Popen(
        args,
        env={**os.environ, "SCIGATE_TEST_HOLD": str(hold)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_until(lambda: _attempts(db) >= 2, message="the run made no progress")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    _run(db, "--resume", "--trust-stored-specs", "--json")
    store = Store(db)
    rounds = sorted(a["round"] for a in store.attempts())
    assert rounds == [0, 1, 2, 3, 4]
    results = store.gate_results()
    assert len({(g["run_id"], g["candidate_id"], g["gate"], g["screen"]) for g in results}) == len(
        results
    )
    assert len({c.id for c in store.candidates()}) == len(store.candidates())
    assert store.query("PRAGMA integrity_check")[0]["integrity_check"] == "ok"
    store.close()


def test_rescreen_applies_new_screens_to_verified_candidates(tmp_path: Path) -> None:
    db = tmp_path / "run.db"
    _run(db, "--generator", GEN, "--rounds", "2", "--json", "--verify-timeout", "60")
    p = _run(db, "--rescreen", "--screen", model_spec("screens:knows_value"), "--json")
    out = json.loads(p.stdout)
    assert out["funnel"]["verified"] == 1
    assert out["funnel"]["screens"][model_spec("screens:knows_value")] == 0
    store = Store(db)
    kinds = sorted(r["kind"] for r in store.runs())
    assert kinds == ["gate", "rescreen"]
    (res,) = [g for g in store.gate_results() if g["gate"] == "screen"]
    assert res["outcome"] == "fail" and res["detail"]["solved"] is True
    store.close()


def test_bad_loop_input_exits_2(tmp_path: Path) -> None:
    p = _run(tmp_path / "x.db", "--resume", check=False)
    assert p.returncode == 2 and "not found" in p.stderr
    p = _run(tmp_path / "y.db", "--generator", "bogus", "--rounds", "1", check=False)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1
    p = _run(
        tmp_path / "z.db", "--domain", "nope", "--generator", GEN, "--rounds", "1", check=False
    )
    assert p.returncode == 2 and "unknown domain" in p.stderr


@pytest.mark.parametrize("option", ["--verify-timeout", "--time-limit"])
def test_non_positive_time_limits_exit_2_before_any_write(tmp_path: Path, option: str) -> None:
    db = tmp_path / "x.db"
    p = _run(db, "--generator", GEN, "--rounds", "1", option, "0", check=False)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert not db.exists()


@pytest.mark.parametrize(
    ("sig", "sigint"),
    [
        (signal.SIGINT, signal.SIG_DFL),
        (signal.SIGTERM, signal.SIG_DFL),
        # A job started with `&` from a script has SIGINT ignored: SIGTERM must still
        # end the run as interrupted instead of killing it with the run left 'running'.
        (signal.SIGTERM, signal.SIG_IGN),
    ],
)
def test_interrupted_run_is_marked_and_resumes(tmp_path: Path, sig: int, sigint) -> None:
    """Signalled while round 2 is held in its generation; let go after the signal."""
    db, hold = tmp_path / "run.db", tmp_path / "hold"
    args = [sys.executable, "-m", "scigate", "gate", "run", "--db", str(db), *_common(4)]
    proc = subprocess.Popen(
        args,
        env={**os.environ, "SCIGATE_TEST_HOLD": str(hold)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),
    )
    try:
        wait_until(lambda: _attempts(db) >= 2, message="the run made no progress")
        proc.send_signal(sig)
    finally:
        hold.touch()  # the held generator thread returns: the process can end
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err[-2000:]
    assert "interrupted" in err and "Traceback" not in err
    with Store(db) as s:
        assert s.runs()[0]["status"] == "interrupted"
    _run(db, "--resume", "--trust-stored-specs", "--json")
    with Store(db) as s:
        assert sorted(a["round"] for a in s.attempts()) == [0, 1, 2, 3]
        assert s.runs()[0]["status"] == "finished"


def test_rescreen_resume_with_other_screens_is_bad_input(tmp_path: Path) -> None:
    """--rescreen --resume continues the latest rescreen run; new screens must not be
    silently skipped because that run's rounds are all done."""
    import asyncio

    from scigate.errors import BadInput
    from scigate.gate._loop import rescreen

    from ._dbfactory import build_db

    store, _ = build_db(tmp_path / "runs.db")
    first, _ = asyncio.run(rescreen(store, screens=["cue/letter-A"]))
    again, _ = asyncio.run(rescreen(store, screens=["cue/letter-A"], resume=True))
    assert again == first
    before = len(store.gate_results())
    with pytest.raises(BadInput, match="cue/letter-A"):
        asyncio.run(rescreen(store, screens=["cue/largest"], resume=True))
    assert len(store.gate_results()) == before
    store.close()


def test_screen_whose_calls_fail_is_an_error_not_a_pass(tmp_path: Path) -> None:
    db = tmp_path / "run.db"
    screen = model_spec("screens:unavailable") + "?max_retries=0"
    p = _run(
        db,
        "--generator",
        GEN,
        "--rounds",
        "2",
        "--screen",
        screen,
        "--json",
        "--verify-timeout",
        "60",
    )
    funnel = json.loads(p.stdout)["funnel"]
    assert funnel["verified"] >= 1
    assert funnel["screens"][screen] == 0 and funnel["accepted"] == 0
    assert funnel["errors"] == funnel["verified"]
    with Store(db) as s:
        outcomes = {g["outcome"] for g in s.gate_results() if g["gate"] == "screen"}
        assert outcomes == {"error"}


def test_resume_with_other_screens_is_bad_input_not_ignored(tmp_path: Path) -> None:
    import asyncio

    from scigate.errors import BadInput
    from scigate.gate._loop import LoopConfig, run_loop

    from ._dbfactory import build_empty_db

    store = build_empty_db(tmp_path / "runs.db")
    cfg = LoopConfig(generator=GEN, screens=["cue/middle"], rounds=0)
    run_id, _ = asyncio.run(run_loop(cfg, store))
    same, _ = asyncio.run(run_loop(LoopConfig(generator=GEN, rounds=0), store, resume=True))
    assert same == run_id
    other = LoopConfig(generator=GEN, screens=["cue/largest"], rounds=0)
    with pytest.raises(BadInput, match="cue/middle"):
        asyncio.run(run_loop(other, store, resume=True))
    assert store.get_run(run_id)["config"]["screens"] == ["cue/middle"]
    store.close()


def test_repeat_with_another_proposal_is_its_own_record_and_is_verified(tmp_path: Path) -> None:
    """Same question and options, new proposal: identity covers the proposal, so the
    second proposal gets its own gate-1 run instead of inheriting the first one's."""
    db = tmp_path / "run.db"
    _run(db, *_common(2), env={"SCIGATE_TEST_REPROPOSE": "1"})
    store = Store(db)
    attempts = {a["round"]: a for a in store.attempts()}
    first, second = attempts[0]["candidate_id"], attempts[1]["candidate_id"]
    assert first != second
    assert store.get_candidate(second).answer == "A"
    assert store.get_candidate(second).duplicate_of == first
    verified = {g["candidate_id"]: g for g in store.gate_results() if g["gate"] == "verify"}
    assert set(verified) == {first, second}
    assert (
        "0.142857" in verified[second]["reason"]
        and "proposed option A" in verified[second]["reason"]
    )
    store.close()


def test_same_seed_same_gate_outcomes_across_runs(tmp_path: Path) -> None:
    """Cue tie-breaks and shuffles derive from --seed, not the run id."""

    def outcomes(db: Path) -> list[tuple]:
        args = [a if a != "cue/largest" else "cue/middle" for a in _common(4)]
        _run(db, *args, "--seed", "7")
        store = Store(db)
        rows = sorted(
            (
                g["candidate_id"],
                g["gate"],
                g["screen"] or "",
                g["outcome"],
                json.dumps(
                    [c.get("chosen_original") for c in (g["detail"] or {}).get("calls", [])]
                ),
            )
            for g in store.gate_results()
        )
        store.close()
        return rows

    a, b = outcomes(tmp_path / "a.db"), outcomes(tmp_path / "b.db")
    assert a == b and any(r[1] == "screen" for r in a)
