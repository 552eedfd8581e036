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
