"""Matching by value at the options' printed precision."""

import pytest

from scigate.gate import match_option, value_rank, values_match


@pytest.mark.parametrize(
    ("printed", "option", "same"),
    [
        ("0.060723", "0.060723", True),
        ("0.060723", "0.0607230", True),
        ("0.0607234", "0.060723", True),  # rounded to the option's precision
        ("0.0607236", "0.060723", False),
        ("0.06", "0.060723", False),
        ("6.0723e-2", "0.060723", True),
        ("-1.5", "−1.5", True),  # unicode minus
        ("17", "17.0", True),
        ("  Nedelec  ", "nedelec", True),
        ("P1", "P2", False),
        ("nan", "nan", False),  # a failed computation proves no option
        ("inf", "Infinity", False),
        ("-inf", "−inf", False),
    ],
)
def test_values_match(printed: str, option: str, same: bool) -> None:
    assert values_match(printed, option) is same


def test_match_option_and_rank() -> None:
    options = {"A": "0.058996", "B": "0.060723", "C": "0.060074", "D": "0.061291"}
    assert match_option("0.0607230", options) == ["B"]
    assert match_option("0.5", options) == []
    assert [value_rank(options, k) for k in "ABCD"] == [1, 3, 2, 4]
    assert value_rank({"A": "x", "B": "1", "C": "2", "D": "3"}, "B") is None
