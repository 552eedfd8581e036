"""Screen responders: language models (no tools) and cue baselines (no model at all)."""

from __future__ import annotations

import random
import re
import statistics
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scigate.errors import BadInput
from scigate.gate._candidate import LETTERS, Candidate
from scigate.gate._screen import SCREEN_SYSTEM, Reply, render_question
from scigate.gate._values import numeric_values, parse_number

if TYPE_CHECKING:
    from scigate.store import Store


class ModelResponder:
    """A no-tool screen backed by a model spec: only the question and options are sent."""

    def __init__(
        self,
        spec: str,
        *,
        store: Store | None = None,
        run_id: str | None = None,
        recorder: Callable[[Any], None] | None = None,
    ):
        """`store`: record each call in the run database (and reuse it on resume);
        `recorder`: without a store, receive each call's record (a worker sends them back)."""
        from scigate.llm import get_model

        self.name = spec
        self.store = store
        self.run_id = run_id
        self._model = get_model(spec, recorder=recorder)
        self._get_model = get_model

    async def respond(
        self,
        candidate: Candidate,
        shown: dict[str, str],
        call_index: int,
        call_key: str,
        *,
        tie_key: str = "",
    ) -> Reply:
        """Ask the model once; reuse a recorded answer with the same key on resume."""
        if self.store is not None:
            previous = self.store.model_call(call_key)
            if previous and not previous.get("error"):
                response = previous.get("response") or {}
                return Reply(
                    text=response.get("text"),
                    input_tokens=previous.get("input_tokens") or 0,
                    output_tokens=previous.get("output_tokens") or 0,
                    cost=previous.get("cost"),
                )
        model = self._model
        if self.store is not None:
            model = self._get_model(
                self.name,
                recorder=self.store.recorder(
                    run_id=self.run_id, candidate_id=candidate.id, role="screen", call_key=call_key
                ),
            )
        messages = [
            {"role": "system", "content": SCREEN_SYSTEM},
            {"role": "user", "content": render_question(candidate.question, shown)},
        ]
        try:
            out = await model.generate(messages)
        except Exception as exc:  # a failed call is kept and replaced by the screen
            return Reply(text=None, error=f"{type(exc).__name__}: {exc}")
        return Reply(
            text=out.text,
            input_tokens=out.usage.input_tokens,
            output_tokens=out.usage.output_tokens,
            cost=out.cost,
            queued=out.queued,
        )


CueRule = Callable[[dict[str, str], random.Random], str | None]


def _by_value(pick: Callable[[list[tuple[float, str]], random.Random], str]) -> CueRule:
    def rule(shown: dict[str, str], rng: random.Random) -> str | None:
        values = numeric_values(shown)
        if values is None:
            return None
        ranked = sorted((v, letter) for letter, v in values.items())
        return pick(ranked, rng)

    return rule


def _closest_to_mean(ranked: list[tuple[float, str]], rng: random.Random) -> str:
    mean = statistics.fmean(v for v, _ in ranked)
    return min(ranked, key=lambda p: abs(p[0] - mean))[1]


def _median_distance(ranked: list[tuple[float, str]], rng: random.Random) -> str:
    median = statistics.median(v for v, _ in ranked)
    return min(ranked, key=lambda p: abs(p[0] - median))[1]


def _format_of(text: str) -> tuple:
    """How an option is written, apart from its digits: sign, decimals, exponent, units."""
    t = text.strip()
    number = parse_number(t)
    if number is None:
        return ("text", re.sub(r"[A-Za-z]+", "a", re.sub(r"\d+", "0", t)))
    mantissa = re.split(r"[eE]", t.replace("\u2212", "-"))[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else -1
    return ("number", t[:1] in "+-\u2212", decimals, bool(re.search(r"[eE]", t)))


def _odd_format(shown: dict[str, str], rng: random.Random) -> str | None:
    """The one option written unlike the three others (a generator that printed the right
    value at the question's precision and the distractors at another); None otherwise."""
    formats = {letter: _format_of(value) for letter, value in shown.items()}
    odd = [k for k, f in formats.items() if list(formats.values()).count(f) == 1]
    return odd[0] if len(odd) == 1 and len(set(formats.values())) == 2 else None


def _always(letter: str) -> CueRule:
    return lambda shown, rng: letter


CUES: dict[str, tuple[str, CueRule]] = {
    "middle": (
        "one of the two middle values, at random",
        _by_value(lambda r, g: g.choice(r[1:3])[1]),
    ),
    "second-smallest": ("the second-smallest value", _by_value(lambda r, g: r[1][1])),
    "second-largest": ("the second-largest value", _by_value(lambda r, g: r[2][1])),
    "smallest": ("the smallest value", _by_value(lambda r, g: r[0][1])),
    "largest": ("the largest value", _by_value(lambda r, g: r[-1][1])),
    "closest-to-mean": ("the value closest to the mean of the four", _by_value(_closest_to_mean)),
    "closest-to-median": ("the value closest to the median", _by_value(_median_distance)),
    "random": ("a uniformly random letter", lambda s, g: g.choice(LETTERS)),
    "longest": ("the longest option text", lambda s, g: max(LETTERS, key=lambda k: (len(s[k]), k))),
    "odd-format": ("the one option written unlike the other three", _odd_format),
    **{f"letter-{x}": (f"always the letter {x}", _always(x)) for x in LETTERS},
}


class CueResponder:
    """A screen that answers from a surface cue (position, value rank), never the content."""

    def __init__(self, spec: str):
        cue = spec.split("/", 1)[1] if "/" in spec else ""
        if cue not in CUES:
            raise BadInput(
                f"unknown cue screen {spec!r}; known: {', '.join('cue/' + c for c in CUES)}"
            )
        self.name = spec
        self.description, self._rule = CUES[cue]

    async def respond(
        self,
        candidate: Candidate,
        shown: dict[str, str],
        call_index: int,
        call_key: str,
        *,
        tie_key: str = "",
    ) -> Reply:
        """Answer 'Answer: X' by the cue's rule; ties are seeded by the presentation
        (`tie_key`: seed, candidate, screen, call), never by the run."""
        rng = random.Random(tie_key or call_key)
        letter = self._rule(shown, rng)
        if letter is None:
            return Reply(text=f"(cue {self.name} does not apply to these options)", declined=True)
        return Reply(text=f"Answer: {letter}")


def make_responder(
    spec: str,
    *,
    store: Store | None = None,
    run_id: str | None = None,
    recorder: Callable[[Any], None] | None = None,
):
    """A responder for a screen spec: `cue/NAME` or any model spec (its calls recorded in
    `store`, or handed to `recorder`)."""
    if spec.startswith("cue/"):
        return CueResponder(spec)
    return ModelResponder(spec, store=store, run_id=run_id, recorder=recorder)
