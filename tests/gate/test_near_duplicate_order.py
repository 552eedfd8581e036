"""The near-duplicate check of a template run in the order of generation (issue 27):
every round's outcome is that of a sequential run whatever the completion order, and a
round whose every parameter draw nearly repeats a survivor is dropped before its
candidate (correct value, distractors) is computed. Fake generator and gate 1, no
DOLFINx: the real template run's funnel is compared in tests/gate/test_templates_e2e.py."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from scigate.gate import GateWorkers
from scigate.gate import _loop as loop_module
from scigate.gate._candidate import Candidate
from scigate.gate._generator import Feedback, Generated
from scigate.gate._loop import LoopConfig, run_loop
from scigate.gate._novelty import near_duplicate
from scigate.gate._verify import VerifyResult
from scigate.store import CandidateRecord, Store

ROUNDS = 24
WORDS = {
    0: "solve the nonlinear poisson problem on the punctured unit square and report the "
    "integral of the solution rounded to six decimals with forcing amplitude",
    1: "tabulate the lagrange basis functions of degree three on the reference triangle "
    "and report the value of basis function number at point coordinate",
}
OTHER = "an unrelated question about the eigenvalues of a random sparse matrix number"


def _plans(seed: int) -> dict[int, list[str]]:
    """Eight draws per round; the family is r % 2; some draws are unlike their family."""
    rng = random.Random(f"plans:{seed}")
    plans = {}
    for r in range(ROUNDS):
        draws = []
        for a in range(8):
            text = OTHER if rng.random() < 0.08 else WORDS[r % 2]
            draws.append(f"{text} {r}.{a} {rng.randint(1, 4)}")
        plans[r] = draws
    return plans


class FakeTemplates:
    """Template-like generator: knows each round's possible questions; the draw that
    succeeds (as the distractors would decide) is fixed per round."""

    name = "templates"
    uses_feedback = False

    def __init__(self, seed: int, *, plans_known: bool, delays: random.Random | None):
        self.plans = _plans(seed)
        rng = random.Random(f"final:{seed}")
        self.final = {r: rng.choice([0, 0, 0, 1, 2, 7]) for r in range(ROUNDS)}
        self.delays = delays
        self.generated: list[int] = []
        if plans_known:
            self.questions = lambda r: list(self.plans[r])
            self.family_for = lambda r: f"family{r % 2}"

    async def generate(self, round_index: int, feedback: Feedback) -> Generated:
        self.generated.append(round_index)
        if self.delays is not None:
            await asyncio.sleep(self.delays.random() * 0.02)
        question = self.plans[round_index][self.final[round_index]]
        options = {c: f"{round_index}.{i}" for i, c in enumerate("ABCD")}
        cand = Candidate(
            question=question,
            options=options,
            answer="A",
            solution=f"print('{round_index}.0')\n",
            meta={"family": f"family{round_index % 2}"},
        )
        return Generated(candidate=cand, reason="fake", seconds=0.01)


class FakeGate1(GateWorkers):
    """Gate 1 fails the candidates of rounds 1 and 3, after a random delay."""

    def __init__(self, delays: random.Random | None):
        self.delays = delays

    async def verify(self, cand: Candidate, *, timeout: float, domain: str) -> VerifyResult:
        if self.delays is not None:
            await asyncio.sleep(self.delays.random() * 0.03)
        bad = int(cand.solution.split("'")[1].split(".")[0]) in (1, 3)
        return VerifyResult(
            passed=not bad,
            printed=cand.options["A"],
            matched_option=None if bad else "A",
            proposed="A",
            reason="fake gate 1",
            seconds=0.0,
        )


def _run(
    tmp_path: Path, name: str, seed: int, *, ordered: bool, concurrency: int, jitter: int | None
) -> tuple[list[tuple[int, str]], set[str], FakeTemplates]:
    delays = random.Random(jitter) if jitter is not None else None
    gen = FakeTemplates(seed, plans_known=ordered, delays=delays)
    cfg = LoopConfig(
        generator="templates",
        rounds=ROUNDS,
        concurrency=concurrency,
        fem_workers=min(2, concurrency),
        invariance=False,
    )
    with Store(tmp_path / f"{name}.db") as store:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(loop_module, "make_generator", lambda *a, **k: gen)
            run_id, _ = asyncio.run(run_loop(cfg, store, workers=FakeGate1(delays)))
        outcomes = [(a["round"], a["status"]) for a in store.attempts(run_id)]
        gated = {g["candidate_id"] for g in store.gate_results(run_id=run_id, gate="verify")}
    return sorted(outcomes), gated, gen


@pytest.mark.parametrize("seed", [1, 2])
def test_ordered_check_gives_the_sequential_funnel_whatever_the_completion_order(
    tmp_path: Path, seed: int
) -> None:
    # the reference: one round at a time, every candidate generated, checked after it
    reference, gated_ref, full = _run(
        tmp_path, "seq", seed, ordered=False, concurrency=1, jitter=None
    )
    assert sorted(full.generated) == list(range(ROUNDS))
    statuses = {s for _, s in reference}
    assert {"rejected-duplicate", "rejected-verify", "screened"} <= statuses
    for jitter in range(3):
        got, gated, gen = _run(
            tmp_path, f"c{jitter}", seed, ordered=True, concurrency=4, jitter=jitter
        )
        assert got == reference  # every round's outcome
        assert gated == gated_ref  # the same candidates reach gate 1
        dropped = set(range(ROUNDS)) - set(gen.generated)
        assert dropped  # dropped before generation: nothing computed for them
        assert all(dict(reference)[r] == "rejected-duplicate" for r in dropped)


def test_near_duplicate_with_unknown_options_and_excluded_survivors(tmp_path: Path) -> None:
    q = "Compute 2/7 rounded to exactly six decimal places."
    near = "Compute 2/9 rounded to exactly six decimal places."
    opts = {"A": "1", "B": "2", "C": "3", "D": "4"}
    with Store(tmp_path / "n.db") as s:
        run = s.create_run("gate")
        cid, _ = s.add_candidate(CandidateRecord(question=q, options=opts, answer="A"))
        s.add_gate_result(run, cid, "verify", outcome="pass")
        dup = near_duplicate(s, near, None, 0.7)  # options unknown: not needed here
        assert dup is not None and dup.duplicate_of == cid
        assert near_duplicate(s, near, None, 0.7, exclude={cid}) is None
        # the same question: a re-proposal or not depends on the options
        assert near_duplicate(s, q, None, 0.7) is None
        assert near_duplicate(s, q, {**opts, "D": "5"}, 0.7) is not None
