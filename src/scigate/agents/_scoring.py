"""Scoring a prediction: Tool Accuracy (chain vs reference) and Answer Accuracy."""

from __future__ import annotations

import contextlib
import re

from scigate.agents._records import Task

REL_TOL = 0.10  # SciToolEval's ±10% relative rule for numbers
# A number not glued to a preceding letter: the subscripts of "C9H8O4" are not answers.
_NUMBER = re.compile(r"(?<![A-Za-z_\d.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
_TRUE = {"true", "yes", "correct", "t", "y"}
_FALSE = {"false", "no", "incorrect", "f", "n"}


def canonical_names(chain: list[str], aliases: dict[str, str] | None = None) -> list[str]:
    """Tool names mapped through an alias table (lower-case keys) onto library names."""
    if not aliases:
        return list(chain)
    return [aliases.get(n.lower(), n) for n in chain]


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


def _truth(text: str) -> bool | None:
    words = re.findall(r"[a-z]+", text.lower())
    if not words:
        return None
    if words[0] in _TRUE:
        return True
    if words[0] in _FALSE:
        return False
    return None


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


def answer_match(predicted: str | None, task: Task) -> bool | None:
    """True/False when the answer can be decided without a judge, None when it cannot."""
    if task.answer is None:
        return None
    if predicted is None or not str(predicted).strip():
        return False
    ref, pred = str(task.answer), str(predicted)
    if _norm(ref) == _norm(pred):
        return True
    if task.options:
        ref_letter = _option_letter(ref, task.options)
        pred_letter = _option_letter(pred, task.options)
        if ref_letter is not None and pred_letter is not None:
            return ref_letter == pred_letter
    ref_truth = _truth(ref) if _norm(ref) in _TRUE | _FALSE else None
    if ref_truth is not None:
        pred_truth = _truth(pred)
        return None if pred_truth is None else pred_truth == ref_truth
    if _is_numeric_answer(ref):
        target = _numbers(ref)[0]
        got = _numbers(pred)
        if got:
            return any(close(g, target) for g in got)
    return None
