"""Scoring a prediction: Tool Accuracy (chain vs reference) and Answer Accuracy."""

from __future__ import annotations

import contextlib
import json
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

from scigate.agents._parse import final_answer
from scigate.agents._records import Task

Outcome = Literal["correct", "wrong", "unjudged"]
Kind = Literal[
    "number", "chemical", "formula", "sequence", "categorical", "multi", "truth", "choice", "text"
]


class Verdict(BaseModel):
    """The rules' decision on one reply: correct, wrong or unjudged, the answer kind the
    task asked for, and the reason in plain words."""

    model_config = ConfigDict(frozen=True)

    outcome: Outcome
    kind: Kind
    reason: str

    @property
    def correct(self) -> bool:
        """True only for a correct reply (unjudged is not correct)."""
        return self.outcome == "correct"

    def as_bool(self) -> bool | None:
        """True/False/None for correct/wrong/unjudged (the old `answer_match` result)."""
        return {"correct": True, "wrong": False}.get(self.outcome)


# Numbers compare within a relative 1e-2 (46.07 vs 46.069); references written as integers
# (counts, ring numbers) must match exactly.
REL_TOL = 1e-2
# A number not glued to a preceding letter: the subscripts of "C9H8O4" are not answers.
_NUMBER = re.compile(r"(?<![A-Za-z_\d.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
_ELEMENT = re.compile(r"([A-Z][a-z]?)(\d*)")
_FORMULA = re.compile(r"(?:[A-Z][a-z]?\d*)+")
_TRUE = {"true", "yes", "correct", "t", "y"}
_FALSE = {"false", "no", "incorrect", "f", "n"}


def canonical_names(chain: list[str], aliases: dict[str, str] | None = None) -> list[str]:
    """A chain as Tool Accuracy compares it, the same for a predicted and a reference chain:
    names trimmed, mapped through an alias table (lower-case keys) onto library names, each
    tool once in order of first use (the agents list a tool once however many entities it
    processes). A name no table knows (a made-up tool) is kept as written: it counts
    against the chain, never silently drops out of it."""
    names = (str(n).strip() for n in chain)
    mapped = ((aliases or {}).get(n.lower(), n) for n in names if n)
    return list(dict.fromkeys(mapped))


def lcs_length(a: list[str], b: list[str]) -> int:
    """Length of the longest common subsequence."""
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, 1):
            cur.append(prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


def tool_scores(predicted: list[str], reference: list[str]) -> dict[str, float]:
    """exact (sequence match), set_f1 (tools as sets) and lcs (LCS / longer chain)."""
    exact = float(predicted == reference)
    p, r = set(predicted), set(reference)
    if not p and not r:
        f1 = 1.0
    elif not p or not r:
        f1 = 0.0
    else:
        inter = len(p & r)
        prec, rec = inter / len(p), inter / len(r)
        f1 = 0.0 if inter == 0 else 2 * prec * rec / (prec + rec)
    longest = max(len(predicted), len(reference))
    lcs = 1.0 if longest == 0 else lcs_length(predicted, reference) / longest
    return {"exact": exact, "set_f1": f1, "lcs": lcs}


def _norm(text: str) -> str:
    return " ".join(str(text).strip().strip(".").lower().split())


def _option_letter(text: str, options: dict[str, str]) -> str | None:
    t = text.strip()
    letters = {k.upper(): k for k in options}
    m = re.match(r"^\(?\s*([A-Za-z])\s*(?:[).:\]]|$|\s)", t)
    if m and m.group(1).upper() in letters:
        return letters[m.group(1).upper()]
    for k, v in options.items():
        if _norm(v) == _norm(t):
            return k
    m = re.search(r"\b(?:option|answer)\s*(?:is\s*)?\(?([A-Za-z])\)?\b", t, re.I)
    if m and m.group(1).upper() in letters:
        return letters[m.group(1).upper()]
    return None


def _case_tells_apart(ref: str, pred: str, fmt: str, options: dict[str, str] | None = None) -> bool:
    """True when `ref` is a formula and case is meaning ("CO" is carbon monoxide, "Co"
    cobalt): one of the two has several capitals and they differ in case."""
    if options or fmt in ("multiple choice", "true/false") or _norm(ref) in _TRUE | _FALSE:
        return False
    t, p = (x.strip().strip(".").replace(" ", "") for x in (ref, pred))
    capitals = max(sum(c.isupper() for c in t), sum(c.isupper() for c in p))
    return _formula(t) is not None and capitals >= 2 and t != p


def _names_several(text: str, options: dict[str, str]) -> bool:
    """True when `text` names two or more option letters joined as alternatives."""
    keys = "".join(re.escape(k.upper()) for k in options)
    pair = rf"(?<![A-Za-z])([{keys}])\)?\s*(?:or|and|/|,|&)\s*\(?([{keys}])(?![A-Za-z])"
    # lower-case letters only where nothing follows ("b or a", not "B, a good one")
    lower = pair.lower() + r"\)?\s*(?:$|[.;)])"
    found = re.findall(pair, text) + re.findall(lower, text.lower().strip())
    return any(a.upper() != b.upper() for a, b in found)


def _truth(text: str) -> bool | None:
    """True/False from the answer's words, None when they name both ("true or false") or
    neither. The one-letter forms count only alone ("n/a" is no "no")."""
    words = _words(text)
    said = _truth_words(text)
    if not words or len(said) != 1 or (words[0] not in _TRUE | _FALSE):
        return None
    return said.pop()


def _words(text: str) -> list[str]:
    words = re.findall(r"[a-z]+", text.lower())
    return [w for w in words if len(w) > 1] if len(words) > 1 else words


def _truth_words(text: str) -> set[bool]:
    """The truth values `text`'s words name (both for a hedge)."""
    words = _words(text)
    return {True for w in words if w in _TRUE} | {False for w in words if w in _FALSE}


def _numbers(text: str) -> list[float]:
    out = []
    for m in _NUMBER.findall(text.replace(",", "")):
        with contextlib.suppress(ValueError):
            out.append(float(m))
    return out


def _is_numeric_answer(text: str) -> bool:
    """A reference that is one number, possibly with a unit (e.g. '46.07 g/mol')."""
    stripped = _NUMBER.sub("", text.replace(",", ""), count=1)
    return len(_numbers(text)) == 1 and len(re.findall(r"[A-Za-z]", stripped)) <= 6


def close(a: float, b: float, rel_tol: float = REL_TOL) -> bool:
    """|a − b| ≤ rel_tol·|b| (exact equality when b is 0)."""
    return a == b if b == 0 else abs(a - b) <= rel_tol * abs(b)


def _formula(text: str) -> dict[str, int] | None:
    """Element counts of a molecular formula ('C8H10N4O2'), None if `text` is not one."""
    t = text.strip().strip(".").replace(" ", "")
    if not _FORMULA.fullmatch(t) or not re.search(r"[A-Z]", t):
        return None
    counts: dict[str, int] = {}
    for element, n in _ELEMENT.findall(t):
        counts[element] = counts.get(element, 0) + (int(n) if n else 1)
    return counts


def _number_match(pred: str, ref: str) -> bool:
    """One number in the prediction, equal to the reference: integers exactly, others within
    REL_TOL. Several different numbers are a hedge, never a match."""
    target = _numbers(ref)[0]
    got = set(_numbers(pred))
    if len(got) != 1:
        return False
    value = got.pop()
    is_integer = re.fullmatch(r"[-+]?\d+", _NUMBER.search(ref.replace(",", "")).group(0))
    return value == target if is_integer else close(value, target)


def _items(text: str) -> list[str]:
    return [i.strip().strip(".") for i in re.split(r"[;,\n]|\band\b", text) if _norm(i)]


def answer_kind(reference: str, task: Task) -> Kind:
    """The kind of answer the task asks for (provisional: refined below)."""
    fmt = (task.format or "").strip().lower()
    if task.options or fmt == "multiple choice":
        return "choice"
    if fmt == "true/false" or _norm(reference) in _TRUE | _FALSE:
        return "truth"
    if _formula(reference) is not None and re.search(r"\d", reference):
        return "formula"
    if _is_numeric_answer(reference):
        return "number"
    if len(_items(reference)) > 1:
        return "multi"
    return "text"


def score_answer(reply: str | None, reference: str | None, task: Task) -> Verdict:
    """Score `reply` against `reference` for `task` (provisional body: today's rules)."""
    ref = reference if reference is not None else task.answer
    kind = answer_kind(str(ref), task) if ref is not None else "text"
    decided = _legacy_match(reply, task.model_copy(update={"answer": ref}))
    outcome: Outcome = {True: "correct", False: "wrong", None: "unjudged"}[decided]
    return Verdict(outcome=outcome, kind=kind, reason=f"{kind} rules: {outcome}")


def answer_match(predicted: str | None, task: Task) -> bool | None:
    """True/False when the rules decide the answer, None when they cannot (judge or
    `unjudged`). The answer is the agent's last "Answer:" line, else its whole reply."""
    return score_answer(predicted, task.answer, task).as_bool()


def _legacy_match(predicted: str | None, task: Task) -> bool | None:
    if task.answer is None:
        return None
    pred = final_answer(str(predicted)) if predicted is not None else None
    if pred is None or not pred.strip():
        return False
    ref = str(task.answer)
    fmt = (task.format or "").strip().lower()
    if _norm(ref) == _norm(pred) and not _case_tells_apart(ref, pred, fmt, task.options):
        return True
    if task.options or fmt == "multiple choice":
        options = task.options or {}
        ref_letter = _option_letter(ref, options) if options else None
        pred_letter = _option_letter(pred, options) if options else None
        if options and _names_several(pred, options):
            return False  # "B or A" is a hedge, never a match
        if ref_letter is not None and pred_letter is not None:
            return ref_letter == pred_letter
        return None
    ref_truth = _truth(ref) if _norm(ref) in _TRUE | _FALSE else None
    if ref_truth is not None or fmt == "true/false":
        if ref_truth is not None and _truth_words(pred) == {True, False}:
            return False  # "true or false" is a hedge, never a match
        pred_truth = _truth(pred)
        return None if pred_truth is None or ref_truth is None else pred_truth == ref_truth
    ref_formula = _formula(ref)
    if ref_formula is not None and (re.search(r"\d", ref) or _case_tells_apart(ref, pred, fmt)):
        pred_formula = _formula(pred)
        return None if pred_formula is None else pred_formula == ref_formula
    if _is_numeric_answer(ref):
        return _number_match(pred, ref) if _numbers(pred) else None
    ref_items = _items(ref)
    if len(ref_items) > 1:
        pred_items = _items(pred)
        if {_norm(i) for i in pred_items} == {_norm(i) for i in ref_items}:
            return True
        decidable = all(
            _formula(i) is not None or _is_numeric_answer(i) for i in ref_items + pred_items
        )
        return False if decidable else None
    return None


class _TwoDecisions(ValueError):
    pass


def _one_decision(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A JSON object hook refusing a repeated key: json keeps the last of
    {"decision": "No", "decision": "Yes"} silently."""
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise _TwoDecisions("a key given twice")
    return dict(pairs)


_FENCE = re.compile(r"^```(?:json)?\s*\n?(.*?)\n?```$", re.S)


def parse_judge_reply(text: str | None) -> bool | None:
    """The judge's verdict from its reply, read strictly: the whole reply (a ```json fence
    allowed) must be one JSON object whose "decision" is "Yes" or "No"; anything else
    (prose around it, "Yes / No", a missing decision) is None, i.e. unjudged."""
    body = (text or "").strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        value = json.loads(body, object_pairs_hook=_one_decision)
    except (json.JSONDecodeError, ValueError):  # _TwoDecisions is a ValueError
        return None
    if not isinstance(value, dict) or not isinstance(value.get("decision"), str):
        return None
    decision = value["decision"].strip().lower()
    return {"yes": True, "no": False}.get(decision)
