"""Gate 2, no-tool screens: a model sees only the question and shuffled options.

A screen is one model spec with its settings. It makes up to three calls, each with an
independently shuffled option order seeded from (seed, candidate, screen, call). Each
chosen option is mapped back to its value and graded by value. Two correct calls out of
three mean the screen solves the candidate, which is then rejected as too easy.

Only answered calls count. A call that fails (the model errors after the model layer's
retries, or its reply cannot be read) is kept and replaced by a further call with a
fresh presentation, up to `MAX_EXTRA_CALLS` replacements. If the answered calls still
cannot decide the majority, the outcome is inconclusive (`error`), never a pass. Early
stopping looks at answered calls only.
"""

from __future__ import annotations

import random
import re
import time
from typing import Any, Protocol

from pydantic import BaseModel, Field

from scigate.gate._candidate import LETTERS, Candidate
from scigate.gate._values import values_match

MAX_EXTRA_CALLS = 3  # replacements for failed calls, on top of the planned calls

SCREEN_SYSTEM = (
    "You are answering a multiple-choice question. You have no tools, no code execution, "
    "no files and no internet: answer from your own knowledge and reasoning. "
    "End your reply with a final line of the form 'Answer: X', where X is one of A, B, C, D."
)


class ScreenCall(BaseModel):
    """One presentation of the candidate to a screen."""

    index: int
    order: list[str]  # original letters in the order shown as A, B, C, D
    reply: str | None = None  # kept verbatim, even when unparseable
    chosen_letter: str | None = None  # the letter as shown
    chosen_original: str | None = None  # mapped back to the original letter
    chosen_value: str | None = None
    correct: bool = False
    error: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    seconds: float = 0.0


class ScreenResult(BaseModel):
    """The screen's verdict on one candidate."""

    screen: str
    solved: bool
    correct_calls: int
    calls: list[ScreenCall] = Field(default_factory=list)
    early_stop: bool = False
    planned_calls: int = 3
    shuffled: bool = True
    seconds: float = 0.0

    @property
    def failed_calls(self) -> int:
        """Calls that got no readable answer (model error or unparseable reply)."""
        return sum(c.error is not None for c in self.calls)

    @property
    def answered_calls(self) -> int:
        """Calls that gave a readable answer; only these count towards the verdict."""
        return len(self.calls) - self.failed_calls

    @property
    def inconclusive(self) -> bool:
        """Not solved, and the answered calls are too few to rule a majority out."""
        needed = self.planned_calls // 2 + 1
        wrong = self.answered_calls - self.correct_calls
        return not self.solved and wrong <= self.planned_calls - needed

    @property
    def reason(self) -> str:
        n = self.answered_calls
        if self.inconclusive:
            last = next((c.error for c in reversed(self.calls) if c.error), "too few calls")
            return (
                f"{self.screen} could not decide: {self.failed_calls} of {len(self.calls)} "
                f"calls failed ({last}); {n} answered, {self.correct_calls} correct"
            )
        verdict = "solved it (rejected as too easy)" if self.solved else "did not solve it"
        stop = "; stopped early, majority decided" if self.early_stop else ""
        failed = f" ({self.failed_calls} failed calls replaced)" if self.failed_calls else ""
        return (
            f"{self.screen} {verdict}: {self.correct_calls} of {n} answered calls correct"
            f"{failed}{stop}"
        )

    def summary(self) -> dict[str, Any]:
        """The JSON shape of interfaces.md plus the extra fields."""
        data = self.model_dump()
        data["reason"] = self.reason
        data["inconclusive"] = self.inconclusive
        data["answered_calls"] = self.answered_calls
        data["failed_calls"] = self.failed_calls
        return data


class Reply(BaseModel):
    """What a responder answered for one presentation."""

    text: str | None
    error: str | None = None
    declined: bool = False  # a deliberate non-answer (a cue that does not apply): wrong
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    queued: float = 0.0  # seconds waiting for a free endpoint slot (not the screen's work)


class Responder(Protocol):
    """Anything that can answer a shown question: a model or a cue baseline."""

    name: str

    async def respond(
        self,
        candidate: Candidate,
        shown: dict[str, str],
        call_index: int,
        call_key: str,
        *,
        tie_key: str = "",
    ) -> Reply: ...


def presentation_order(seed: int, candidate_id: str, screen: str, call_index: int) -> list[str]:
    """The original letters in shown order, seeded from candidate, screen and call."""
    order = list(LETTERS)
    random.Random(f"{seed}|{candidate_id}|{screen}|{call_index}").shuffle(order)
    return order


def render_question(question: str, shown: dict[str, str]) -> str:
    """The user message: the question and the options as shown."""
    lines = [question.strip(), ""]
    lines += [f"({letter}) {shown[letter]}" for letter in LETTERS]
    return "\n".join(lines)


# The letters are upper case: "the answer is a bit above 0.2" names no option. Further
# letters joined to the stated one ("Answer: A or B", "A/B", "A, C") make it a hedge.
_ANSWER = re.compile(
    r"answer\s*(?:is)?\s*[:\-]?\s*\**\s*\(?((?-i:[A-D]))\)?(?![A-Za-z])", re.IGNORECASE
)
_MORE = re.compile(r"\**\s*(?:or|and|/|,|&)\s*\**\s*\(?((?-i:[A-D]))\)?(?![A-Za-z])", re.IGNORECASE)
_BARE = re.compile(r"^\W*\(?([A-D])\)?\W*$")


def parse_choice(reply: str | None, shown: dict[str, str]) -> str | None:
    """The shown letter a reply chose, or None when it cannot be read."""
    if not reply:
        return None
    text = reply.strip()
    stated = stated_letters(text)
    if stated:
        return stated[0] if len(stated) == 1 else None
    m = _BARE.match(text.splitlines()[-1] if text else "")
    if m:
        return m.group(1).upper()
    last = text.splitlines()[-1]
    hits = [letter for letter, value in shown.items() if values_match(last.strip(" .*"), value)]
    return hits[0] if len(hits) == 1 else None


def stated_letters(text: str) -> list[str]:
    """The distinct letters named by the last "Answer: X" statement of `text` (empty when
    there is none; more than one when it hedges, as in "Answer: A or B")."""
    found = list(_ANSWER.finditer(text))
    if not found:
        return []
    last = found[-1]
    letters = [last.group(1).upper()]
    pos = last.end()
    while more := _MORE.match(text, pos):
        letters.append(more.group(1).upper())
        pos = more.end()
    return list(dict.fromkeys(letters))


async def run_screen(
    candidate: Candidate,
    responder: Responder,
    *,
    calls: int = 3,
    seed: int = 0,
    early_stop: bool = True,
    key_prefix: str = "",
) -> ScreenResult:
    """Present the candidate `calls` times in shuffled orders and grade by value."""
    if candidate.answer is None:
        raise ValueError("a screen needs the proposed answer to grade against")
    proposed_value = candidate.options[candidate.answer]
    needed = calls // 2 + 1
    records: list[ScreenCall] = []
    stopped_early = False
    correct = wrong = 0
    for i in range(calls + MAX_EXTRA_CALLS):
        if correct + wrong >= calls:
            break
        if early_stop and (correct >= needed or wrong > calls - needed):
            stopped_early = True  # the answered calls decided the majority
            break
        order = presentation_order(seed, candidate.id, responder.name, i)
        shown = {LETTERS[k]: candidate.options[orig] for k, orig in enumerate(order)}
        # Everything random in a screen (cue tie-breaks) derives from the seed and the
        # content, never the run: the run id only keys the recorded model calls.
        tie_key = f"screen:{candidate.id}:{responder.name}:{seed}:{i}"
        t0 = time.perf_counter()
        reply = await responder.respond(
            candidate, shown, i, f"{key_prefix}{tie_key}", tie_key=tie_key
        )
        call = ScreenCall(
            index=i,
            order=order,
            reply=reply.text,
            error=reply.error,
            input_tokens=reply.input_tokens,
            output_tokens=reply.output_tokens,
            cost=reply.cost,
            seconds=round(max(0.0, time.perf_counter() - t0 - reply.queued), 3),
        )
        chosen = parse_choice(reply.text, shown)
        if chosen is not None:
            call.chosen_letter = chosen
            call.chosen_original = order[LETTERS.index(chosen)]
            call.chosen_value = shown[chosen]
            call.correct = values_match(call.chosen_value, proposed_value)
        elif call.error is None and not reply.declined:
            call.error = "unparseable reply: no option letter could be read"
        records.append(call)
        if call.error is None:
            correct += call.correct
            wrong += not call.correct
    return ScreenResult(
        screen=responder.name,
        solved=correct >= needed,
        correct_calls=correct,
        calls=records,
        early_stop=stopped_early,
        planned_calls=calls,
        # the calls' own time: the screen's work, not waits for an endpoint slot
        seconds=round(sum(c.seconds for c in records), 3),
    )
