"""Gate 2: no-tool screens see shuffled options and are graded by value."""

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from scigate.gate import load_candidate, make_responder, presentation_order, run_screen
from scigate.gate._screen import MAX_EXTRA_CALLS, Reply

from .conftest import model_spec


def _screen(cand_dir: Path, spec: str, **kw):
    cand = load_candidate(cand_dir)
    return asyncio.run(run_screen(cand, make_responder(spec), **kw))


def test_screen_that_knows_the_value_solves_it(candidate_dir: Path) -> None:
    r = _screen(candidate_dir, model_spec("screens:knows_value"))
    assert r.solved and r.correct_calls == 2
    assert r.early_stop and len(r.calls) == 2  # the first two agree: majority decided
    for call in r.calls:
        assert call.chosen_value == "0.285714" and call.correct
        assert call.chosen_original == "B"  # mapped back through the shown order
        assert call.order[["A", "B", "C", "D"].index(call.chosen_letter)] == "B"


def test_letter_prior_is_graded_by_value_not_letter(candidate_dir: Path) -> None:
    r = _screen(candidate_dir, model_spec("screens:always_a"), early_stop=False)
    assert len(r.calls) == 3
    for call in r.calls:
        assert call.chosen_letter == "A"
        # correct exactly when the shuffle put the proposed option (B) first
        assert call.correct == (call.order[0] == "B")
    assert r.correct_calls == sum(c.order[0] == "B" for c in r.calls)
    assert len({tuple(c.order) for c in r.calls}) > 1  # independently shuffled


def test_orders_are_seeded_from_candidate_screen_and_call() -> None:
    a = presentation_order(0, "abc", "m", 0)
    assert a == presentation_order(0, "abc", "m", 0)
    orders = {
        tuple(presentation_order(s, c, m, i))
        for s in (0, 1)
        for c in ("abc", "abd")
        for m in ("m", "n")
        for i in range(3)
    }
    assert len(orders) > 6


def test_unparseable_replies_are_kept_replaced_and_never_pass(candidate_dir: Path) -> None:
    r = _screen(candidate_dir, model_spec("screens:mumbles"))
    assert not r.solved and r.correct_calls == 0 and r.inconclusive
    assert r.calls[0].reply.startswith("It depends on the mesh") and r.calls[0].chosen_value is None
    assert len(r.calls) == 3 + MAX_EXTRA_CALLS and r.answered_calls == 0
    assert "unparseable" in r.reason


def test_cue_screens(candidate_dir: Path) -> None:
    # options 0.142857 < 0.285714 < 0.428571 < 0.571429: the answer is rank 2
    assert _screen(candidate_dir, "cue/second-smallest").solved
    assert not _screen(candidate_dir, "cue/largest").solved
    r = _screen(candidate_dir, "cue/letter-C", early_stop=False)
    assert all(c.chosen_letter == "C" for c in r.calls)


def test_cli_screen_json(candidate_dir: Path) -> None:
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "scigate",
            "gate",
            "screen",
            str(candidate_dir),
            "--model",
            model_spec("screens:always_a"),
            "--json",
            "--seed",
            "3",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    data = json.loads(p.stdout)
    assert p.returncode == (1 if data["solved"] else 0)
    assert {"solved", "correct_calls", "calls"} <= data.keys()
    assert all({"order", "chosen_value", "correct"} <= c.keys() for c in data["calls"])
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "scigate",
            "gate",
            "screen",
            str(candidate_dir),
            "--model",
            "nosuch/x",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1


def test_failed_calls_do_not_pass_the_screen(candidate_dir: Path) -> None:
    """Calls that fail (outage, bad key) are no evidence that the model cannot solve it."""
    r = _screen(candidate_dir, model_spec("screens:unavailable") + "?max_retries=0")
    assert not r.solved and r.inconclusive
    assert "could not decide" in r.reason and "503" in r.reason
    assert r.summary()["inconclusive"] is True
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "scigate",
            "gate",
            "screen",
            str(candidate_dir),
            "--model",
            model_spec("screens:unavailable") + "?max_retries=0",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 1, p.stdout + p.stderr
    assert len(r.calls) == 3 + MAX_EXTRA_CALLS  # each failed call was replaced, up to the limit


class _Scripted:
    """A responder that answers a fixed sequence: 'fail', 'wrong', 'right' or 'mumble'."""

    def __init__(self, script: list[str]) -> None:
        self.name, self.script = "scripted", script

    async def respond(self, candidate, shown, call_index, call_key, *, tie_key=""):
        step = self.script[call_index]
        if step == "fail":
            return Reply(text=None, error="RuntimeError: HTTP 503")
        if step == "mumble":
            return Reply(text="I cannot say.")
        want = candidate.answer_value if step == "right" else candidate.options["A"]
        letter = next(k for k, v in shown.items() if v == want)
        return Reply(text=f"Answer: {letter}")


@pytest.mark.parametrize(
    ("script", "solved", "inconclusive", "calls"),
    [
        (["fail", "wrong", "right", "right"], True, False, 4),  # fail replaced: 2 of 3
        (["mumble", "wrong", "right", "right"], True, False, 4),
        (["fail", "wrong", "wrong", "right"], False, False, 3),  # 2 wrong answered: decided
        (["fail", "wrong", "fail", "fail", "fail", "right"], False, True, 6),  # limit reached
        (["fail"] * 6, False, True, 6),
    ],
)
def test_verdict_counts_answered_calls_only(
    candidate_dir: Path, script: list[str], solved: bool, inconclusive: bool, calls: int
) -> None:
    cand = load_candidate(candidate_dir)
    r = asyncio.run(run_screen(cand, _Scripted(script), calls=3))
    assert (r.solved, r.inconclusive, len(r.calls)) == (solved, inconclusive, calls), r.reason
    if inconclusive:
        assert "could not decide" in r.reason


def test_cue_tie_breaks_follow_the_seed_not_the_run(candidate_dir: Path) -> None:
    """Same seed, different run ids: identical choices; another seed may differ."""
    cand = load_candidate(candidate_dir)

    def choices(seed: int, prefix: str) -> list[tuple]:
        out = []
        for i in range(8):
            c = cand.model_copy(update={"question": f"{cand.question} ({i})"})
            r = asyncio.run(
                run_screen(
                    c, make_responder("cue/middle"), seed=seed, key_prefix=prefix, early_stop=False
                )
            )
            out.append(tuple((x.chosen_original, tuple(x.order)) for x in r.calls))
        return out

    assert choices(5, "run-one:") == choices(5, "run-two:")
    assert choices(5, "run-one:") != choices(6, "run-one:")


_SHOWN = {"A": "0.1", "B": "0.2", "C": "0.3", "D": "0.4"}


@pytest.mark.parametrize(
    ("reply", "letter"),
    [
        ("Answer: B", "B"),
        ("Answer: **B**", "B"),
        ("I first thought the answer is A.\nFinal answer: C", "C"),  # the last statement
        ("Answer: A or B", None),  # a hedge names no one option
        ("The answer is B/C", None),
        ("Answer: **B** or **D**", None),
        ("Answer: A, C", None),
        ("The answer is a bit above 0.2", None),  # the article "a" is no letter
        ("Answer: B, because C is too small", "B"),
    ],
)
def test_parse_choice_reads_one_stated_letter(reply: str, letter: str | None) -> None:
    from scigate.gate._screen import parse_choice

    assert parse_choice(reply, _SHOWN) == letter


def test_odd_format_cue_solves_an_item_whose_answer_alone_has_the_questions_precision(
    tmp_path: Path,
) -> None:
    """The right value at six decimals, the distractors at two: the demo's cue screens miss
    it, the odd-format cue sees it (and the candidate is rejected as leaking its answer)."""
    from .conftest import write_candidate

    options = {"A": "0.14", "B": "0.785714", "C": "0.43", "D": "0.57"}
    d = write_candidate(tmp_path / "c", options=options, answer="B")
    assert _screen(d, "cue/odd-format").solved
    for cue in ("middle", "closest-to-mean", "closest-to-median", "letter-C"):
        assert not _screen(d, f"cue/{cue}", early_stop=False).solved, cue
    same = write_candidate(tmp_path / "s", answer="B")  # all four at six decimals
    r = _screen(same, "cue/odd-format")
    assert not r.solved and all(c.chosen_letter is None for c in r.calls)
