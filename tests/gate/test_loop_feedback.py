"""Generation-loop records that mean what they say: fresh feedback at any concurrency,
the generator's own time, balance and seed controls, near-duplicate rejection, and the
in-loop funnel apart from post-generation rescreens."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from _gate_runs import scigate_in_process
from scigate.store import Store

from .conftest import model_spec

GEN = model_spec("generator:writes_candidates")
SLOW_SCREEN = model_spec("screens:slow_largest")


def _run(db: Path, *args: str, env: dict | None = None, check: bool = True):
    """`scigate gate run` in this process (what the run records is under test, not the
    process: the warm sandbox servers of earlier runs are reused)."""
    p = scigate_in_process("gate", "run", "--db", str(db), *args, env=env)
    if check:
        assert p.returncode == 0, p.stderr[-2000:]
    return p


def _prompts(path: Path) -> dict[int, str]:
    return {
        (row := json.loads(line))["round"]: row["user"] for line in path.read_text().splitlines()
    }


def _audit(db: Path) -> dict:
    p = subprocess.run(
        [sys.executable, "-m", "scigate", "gate", "audit", "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_next_prompt_holds_previous_verification_at_concurrency_4(tmp_path: Path) -> None:
    """Round r+1 is generated only after round r's gate 1: its prompt holds that outcome
    (round 0 is still in its slow screen then), and the run's letter and value-rank
    counts with a request for balance."""
    db, prompts = tmp_path / "run.db", tmp_path / "prompts.jsonl"
    _run(
        db,
        *("--generator", GEN, "--screen", SLOW_SCREEN, "--calls", "1", "--rounds", "3"),
        *("--concurrency", "4", "--verify-timeout", "60", "--near-duplicate", "0"),
        env={"SCIGATE_TEST_PROMPTS": str(prompts), "SCIGATE_TEST_SCREEN_SLEEP": "3"},
    )
    seen = _prompts(prompts)
    assert "No earlier rounds" in seen[0]
    # round 0 passed gate 1 and is still being screened when round 1 is generated
    assert "round 0" in seen[1] and "verify: pass" in seen[1]
    assert "in-progress" in seen[1]
    # round 1's gate-1 failure is in round 2's prompt
    assert "round 1" in seen[2] and "rejected-verify" in seen[2]
    assert "several output lines" in seen[2]
    # balance: round 0 proposed B, the 2nd smallest value; round 1 also B
    assert "Proposed answer letters: A 0, B 1, C 0, D 0." in seen[1]
    assert "1st 0, 2nd 1, 3rd 0, 4th 0" in seen[1]
    assert "Proposed answer letters: A 0, B 2, C 0, D 0." in seen[2]
    assert "least used" in seen[2]


def test_agent_hours_are_each_gates_own_time(tmp_path: Path) -> None:
    """The generator sleeps 0.5 s per round and the screen 1 s per call: "generate"
    holds the generator's time only, not verification or the screen's time. Checked by
    construction rather than against the clock (a loaded machine slows every part): a
    round generates and then runs its gates one after the other, so its wall time holds
    the generator's time and each gate's time; a generator time that also held a gate's
    would not fit beside that gate's own time."""
    db = tmp_path / "run.db"
    gen_sleep, screen_sleep = 0.5, 1.0
    _run(
        db,
        *("--generator", GEN, "--screen", SLOW_SCREEN, "--calls", "1", "--rounds", "3"),
        *("--concurrency", "4", "--verify-timeout", "60", "--near-duplicate", "0"),
        env={
            "SCIGATE_TEST_GEN_SLEEP": str(gen_sleep),
            "SCIGATE_TEST_SCREEN_SLEEP": str(screen_sleep),
        },
    )
    with Store(db) as s:
        attempts = s.attempts()
        gates = s.gate_results()
    screened = {g["candidate_id"]: g for g in gates if g["gate"] == "screen"}
    assert len(attempts) == 3 and len(screened) == 2
    for a in attempts:
        own_gates = [g for g in gates if g["candidate_id"] == a["candidate_id"]]
        gate_seconds = sum(g["seconds"] for g in own_gates)
        assert a["gen_seconds"] >= gen_sleep, a
        # rounded to the millisecond when stored: 0.01 s of slack, no clock bound
        assert a["gen_seconds"] + gate_seconds <= a["seconds"] + 0.01, (a, own_gates)
        if a["candidate_id"] in screened:
            assert screened[a["candidate_id"]]["seconds"] >= screen_sleep
            # control: the round's wall time in place of the generator's (the mistake
            # this guards against) does not fit beside the screen's own time
            assert a["seconds"] + gate_seconds > a["seconds"] + 0.01
    cost = {(r["gate"], r["spec"]): r for r in _audit(db)["cost"]}
    gen = cost[("generate", "")]
    assert gen["items"] == 3
    assert gen["seconds"] == pytest.approx(sum(a["gen_seconds"] for a in attempts), abs=0.01)
    assert cost[("screen", SLOW_SCREEN)]["seconds"] >= 2 * screen_sleep


def test_near_duplicate_is_rejected_before_verification(tmp_path: Path) -> None:
    """Rounds 2 and 3 nearly repeat round 0's surviving question: rejected with their own
    outcome before gate 1 runs (round 1's re-proposal would be gated: see test_loop)."""
    db = tmp_path / "run.db"
    p = _run(
        db,
        *("--generator", GEN, "--screen", "cue/largest", "--rounds", "4", "--json"),
        *("--concurrency", "1", "--verify-timeout", "60"),
    )
    funnel = json.loads(p.stdout)["funnel"]
    assert funnel["generated"] == 4 and funnel["near_duplicates"] == 2
    assert funnel["verified"] == 1
    with Store(db) as s:
        attempts = {a["round"]: a for a in s.attempts()}
        first = attempts[0]["candidate_id"]
        for r in (2, 3):
            a = attempts[r]
            assert a["status"] == "rejected-duplicate", a
            assert a["detail"]["duplicate_of"] == first and a["detail"]["jaccard"] >= 0.7
            assert "near duplicate" in a["reason"]
            assert s.gate_result(a["run_id"], a["candidate_id"], "verify") is None
        status = {
            r["candidate_id"]: r["status"] for r in s.query("SELECT * FROM v_candidate_status")
        }
        assert status[attempts[3]["candidate_id"]] == "rejected-duplicate"
    assert _audit(db)["funnel"]["near_duplicates"] == 2


def test_in_loop_funnel_apart_from_rescreens_and_rescreen_on_survivors(tmp_path: Path) -> None:
    """Rescreen rows are no generation rounds; --rescreen starts from the survivors of the
    earlier screens, and from every verified candidate with --all."""
    db = tmp_path / "run.db"
    knows = model_spec("screens:knows_value_else_largest")
    env = {"SCIGATE_TEST_DISTINCT": "1"}
    _run(
        db,
        *("--generator", GEN, "--screen", knows, "--rounds", "5", "--concurrency", "1"),
        *("--verify-timeout", "60", "--json"),
        env=env,
    )
    # rounds 0 and 2 (value 0.285714) are solved by the screen; 3 and 4 survive it
    p = _run(db, "--rescreen", "--screen", "cue/largest", "--json")
    survivors = json.loads(p.stdout)["funnel"]
    assert survivors["generated"] == survivors["verified"] == 2
    p = _run(db, "--rescreen", "--all", "--screen", "cue/smallest", "--json")
    everyone = json.loads(p.stdout)["funnel"]
    assert everyone["verified"] == 4
    with Store(db) as s:
        runs = {r["id"]: r for r in s.runs()}
        gate_run = next(r for r in runs.values() if r["kind"] == "gate")["id"]
        solved_in_loop = {
            g["candidate_id"]
            for g in s.gate_results(run_id=gate_run, gate="screen")
            if g["outcome"] == "fail"
        }
        rescreened = {
            a["run_id"]: {a["candidate_id"] for a in s.attempts(a["run_id"])}
            for a in s.attempts()
            if runs[a["run_id"]]["kind"] == "rescreen"
        }
    first, second = sorted(rescreened, key=lambda r: runs[r]["created_at"])
    assert len(solved_in_loop) == 2 and not rescreened[first] & solved_in_loop
    assert solved_in_loop <= rescreened[second]

    a = _audit(db)
    assert a["funnel"]["attempts"] == 5  # generation rounds only, not the 6 rescreen rows
    assert list(a["funnel"]["screens"]) == [knows]
    assert [(r["input"], r["verified"]) for r in a["rescreens"]] == [
        ("screen survivors", 2),
        ("all verified", 4),
    ]


def test_all_without_rescreen_is_bad_input(tmp_path: Path) -> None:
    p = _run(tmp_path / "x.db", "--generator", GEN, "--all", check=False)
    assert p.returncode == 2 and "--all" in p.stderr


@pytest.mark.parametrize("value", ["9", "-1"])
def test_seeds_in_prompt_out_of_range_is_bad_input(tmp_path: Path, value: str) -> None:
    db = tmp_path / "x.db"
    p = _run(db, "--generator", GEN, "--seeds-in-prompt", value, check=False)
    assert p.returncode == 2 and "--seeds-in-prompt" in p.stderr and not db.exists()


def test_seeds_in_prompt_and_rotation(tmp_path: Path) -> None:
    """--seeds-in-prompt 2 --rotate-seeds: two seed items a round, a different pair each
    round, the same pairs for the same --seed."""

    def seeds_shown(name: str, *extra: str) -> dict[int, list[str]]:
        db, prompts = tmp_path / f"{name}.db", tmp_path / f"{name}.jsonl"
        _run(
            db,
            *("--generator", GEN, "--rounds", "3", "--concurrency", "1", "--seed", "3"),
            *("--verify-timeout", "60", "--near-duplicate", "0", *extra),
            env={"SCIGATE_TEST_PROMPTS": str(prompts)},
        )
        seen = _prompts(prompts)
        with Store(db) as s:
            recorded = {a["round"]: a["detail"]["generation"]["seeds"] for a in s.attempts()}
        for r, user in seen.items():
            assert user.count("### Seed ") == len(recorded[r])
        return recorded

    fixed = seeds_shown("fixed", "--seeds-in-prompt", "2")
    assert fixed[0] == fixed[1] == fixed[2] == ["seed_01", "seed_02"]
    rotated = seeds_shown("rot", "--seeds-in-prompt", "2", "--rotate-seeds")
    assert all(len(v) == 2 for v in rotated.values())
    assert rotated[0] != rotated[1] and set(rotated[0]).isdisjoint(rotated[1])
    assert seeds_shown("rot2", "--seeds-in-prompt", "2", "--rotate-seeds") == rotated
    none = seeds_shown("none", "--seeds-in-prompt", "0")
    assert none[0] == []


def test_seed_selection_covers_every_seed_before_repeating() -> None:
    from scigate.gate._generator import seed_selection

    shown = [seed_selection(5, 2, round_index=r, seed=1, rotate=True) for r in range(3)]
    assert {i for s in shown for i in s} == {0, 1, 2, 3, 4}
    assert set(shown[0]).isdisjoint(shown[1])
    assert seed_selection(5, 2, round_index=7, seed=1, rotate=False) == [0, 1]


def test_near_duplicate_compares_with_in_loop_survivors_only(tmp_path: Path) -> None:
    """Reference set: verified in a generation run and failed by no later in-loop gate;
    a rescreen's rejection does not count, and a re-proposal of the same item is gated."""
    from scigate.gate._novelty import near_duplicate
    from scigate.store import CandidateRecord

    q = "Compute 2/7 rounded to exactly six decimal places."
    near = "Compute 2/9 rounded to exactly six decimal places."
    opts = {"A": "1", "B": "2", "C": "3", "D": "4"}
    with Store(tmp_path / "n.db") as s:
        run = s.create_run("gate")
        cid, _ = s.add_candidate(CandidateRecord(question=q, options=opts, answer="A"))
        assert near_duplicate(s, near, opts, 0.7) is None  # not verified yet
        s.add_gate_result(run, cid, "verify", outcome="pass")
        dup = near_duplicate(s, near, opts, 0.7)
        assert dup is not None and dup.duplicate_of == cid and dup.jaccard == 0.8
        assert near_duplicate(s, near, opts, 0.9) is None
        assert near_duplicate(s, near, opts, 0) is None  # off
        assert near_duplicate(s, q, opts, 0.7) is None  # same item, another proposal
        assert near_duplicate(s, q, {**opts, "D": "5"}, 0.7) is not None
        rescreen = s.create_run("rescreen")
        s.add_gate_result(rescreen, cid, "screen", screen="cue/x", outcome="fail")
        assert near_duplicate(s, near, opts, 0.7) is not None  # post-generation: ignored
        s.add_gate_result(run, cid, "screen", screen="cue/x", outcome="fail")
        assert near_duplicate(s, near, opts, 0.7) is None  # rejected in the loop


def test_report_shows_rescreens_apart_from_the_in_loop_funnel(tmp_path: Path) -> None:
    from scigate.gate._report import build_report

    from ._dbfactory import SHUFFLED, build_db

    store, _ = build_db(tmp_path / "runs.db")
    files = build_report(store, tmp_path / "out")
    store.close()
    html = files.html.read_text()
    assert "Post-generation rescreens" in html and "screen survivors" in html
    assert f"{SHUFFLED}: 6" in html
    summary = json.loads(files.summary.read_text())
    assert SHUFFLED not in summary["funnel"]["screens"]


def test_waiting_for_an_endpoint_slot_is_not_a_screens_work(monkeypatch) -> None:
    """Two screens share an endpoint limited to one call at a time; each call takes
    1 s. The second waits for the slot: its time is its own call's, not the wait.
    By construction, not against the clock: a screen's time and its wait add up to no
    more than the wall time of both screens; with the wait counted twice (in its time
    too) they would exceed it by the wait: the other call's 1 s less the moment between
    the two screens' calls (half of it is allowed for that moment)."""
    import asyncio
    import time

    from scigate.gate import Candidate, make_responder, run_screen

    monkeypatch.setenv("SCIGATE_TEST_SCREEN_SLEEP", "1.0")
    spec = SLOW_SCREEN + "?concurrency=1"
    cand = Candidate(
        question="Compute 2/7 to six decimals.",
        options={"A": "0.142857", "B": "0.285714", "C": "0.428571", "D": "0.571429"},
        answer="B",
        solution="print('0.285714')\n",
    )

    class Watched:
        """A responder of its own (the endpoint's slot is shared), noting its wait."""

        def __init__(self) -> None:
            self.inner = make_responder(spec)
            self.name, self.wait = self.inner.name, 0.0

        async def respond(self, *args, **kwargs):
            reply = await self.inner.respond(*args, **kwargs)
            self.wait += reply.queued
            return reply

    watched = [Watched(), Watched()]

    async def both():
        return await asyncio.gather(
            *(run_screen(cand, w, calls=1, seed=s) for s, w in zip((1, 2), watched, strict=True))
        )

    start = time.monotonic()
    results = asyncio.run(both())
    wall = time.monotonic() - start
    seconds, waits = [r.seconds for r in results], [w.wait for w in watched]
    assert all(s >= 1.0 for s in seconds), seconds
    assert max(waits) >= 0.5  # one screen waited while the other's call held the slot
    for own, wait in zip(seconds, waits, strict=True):
        assert own + wait <= wall + 0.001, (seconds, waits, wall)
    # control: the waiting screen's time with its wait counted in it does not fit
    waited = seconds[waits.index(max(waits))]
    assert (waited + max(waits)) + max(waits) > wall


def test_model_output_reports_its_queueing(monkeypatch) -> None:
    import asyncio

    from scigate.llm import get_model

    monkeypatch.setenv("SCIGATE_TEST_SCREEN_SLEEP", "1.0")
    model = get_model(SLOW_SCREEN + "?concurrency=1")
    msgs = [{"role": "user", "content": "(A) 1\n(B) 2"}]

    async def both():
        return await asyncio.gather(model.generate(msgs), model.generate(msgs))

    first, second = sorted(asyncio.run(both()), key=lambda o: o.queued)
    # the second waited for most of the first's 1 s call, and its latency counts the wait
    assert first.queued < second.queued and 0.5 <= second.queued < second.latency
