"""Strict answer scoring on tricky answer/reference pairs (None = unjudged without a judge)."""

import pytest

from scigate.agents import Task, answer_match

CASES = [
    # (prediction, reference, expected)
    ("0.5 1 1.5 2 2.5 3", "2", False),  # a list of candidates is a hedge
    ("12", "13", False),  # integers exactly
    ("13", "13", True),
    ("C8H10N4O", "C8H10N4O2", False),  # formulas exactly
    ("C8H10N4O2", "C8H10N4O2", True),
    ("H10C8N4O2", "C8H10N4O2", True),  # same element counts
    ("194.19 g/mol", "194.2", True),  # relative 1e-2
    ("198", "194.2", False),  # 2% off
    ("I think 5, maybe 7.\nAnswer: 7", "7", True),  # the last Answer: line decides
    ("Answer: 5\nlater 7", "7", False),
    ("ethanol, methanol", "methanol, ethanol", True),  # lists as sets
    ("C2H6O, CH4O", "CH4O, C2H6O, C3H8O", False),
    ("aspirin is the safer option", "aspirin is safer", None),  # undecidable: unjudged
    ("", "2", False),
    ("the answer is 2", "2", True),
    ("Co", "CO", False),  # case is meaning in a formula: cobalt is not carbon monoxide
    ("CO", "Co", False),
    ("co", "CO", None),
    ("Answer: CO.", "CO", True),
    ("ethanol", "Ethanol", True),  # a name is not a formula
]


@pytest.mark.parametrize(("pred", "ref", "expected"), CASES)
def test_tricky_pairs(pred, ref, expected):
    assert answer_match(pred, Task(question="q", answer=ref)) is expected


def test_formats_from_the_bench_file():
    mc = Task(question="q", answer="B", options={"A": "x", "B": "y"}, format="multiple choice")
    assert answer_match("Answer: B", mc) is True and answer_match("Answer: A", mc) is False
    assert answer_match("Answer: I cannot tell", mc) is None
    tf = Task(question="q", answer="False", format="true/false")
    assert answer_match("Answer: false", tf) is True and answer_match("Answer: true", tf) is False
    completion = Task(question="q", answer="benzene ring", format="content completion")
    assert answer_match("Answer: Benzene ring.", completion) is True
    assert answer_match("Answer: an aromatic ring", completion) is None


_MC = Task(
    question="q",
    answer="B",
    options={"A": "x", "B": "y", "C": "z", "D": "w"},
    format="multiple choice",
)


@pytest.mark.parametrize(
    ("pred", "expected"),
    [
        ("Answer: B or A", False),  # a hedge naming the right letter first
        ("Answer: A or B", False),
        ("Answer: b or a", False),
        ("Answer: (B) or (C)", False),
        ("Answer: B/D", False),
        ("Answer: (B)", True),
        ("Answer: B, a good one", None),  # an article, not option A
    ],
)
def test_multiple_choice_hedges_never_match(pred: str, expected: bool | None) -> None:
    assert answer_match(pred, _MC) is expected


@pytest.mark.parametrize(
    ("pred", "expected_if_false", "expected_if_true"),
    [
        ("Answer: true or false", False, False),  # both polarities: a hedge
        ("Answer: True/False", False, False),
        ("Answer: no, it is true", False, False),
        ("Answer: n/a", None, None),  # "n" of "n/a" is not "no"
        ("Answer: F", True, False),
        ("Answer: Yes, it is correct", False, True),
    ],
)
def test_true_false_hedges_are_not_read_as_their_first_word(
    pred: str, expected_if_false: bool | None, expected_if_true: bool | None
) -> None:
    false, true = (Task(question="q", answer=a, format="true/false") for a in ("False", "True"))
    assert answer_match(pred, false) is expected_if_false
    assert answer_match(pred, true) is expected_if_true
