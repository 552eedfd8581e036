"""Gates 1 and 1b say what a run printed (issue 19, item 10): a single line too long
for the output cap is not "3 lines" (the capture's head, its marker line and its tail),
and a carriage return inside a line does not make it two."""

from __future__ import annotations

from pathlib import Path

from scigate.gate import Candidate, verify
from scigate.gate._invariance import judge_check
from scigate.gate._verify import judge_run, output_lines
from scigate.sandbox._capture import BoundedCapture

from .conftest import write_candidate
from .test_dependence import DONE
from .test_dependence import _judge as judge_dependence
from .test_invariance import APPLIED, REORDER, _result

OPTIONS = {"A": "0.142857", "B": "0.285714", "C": "0.428571", "D": "0.571429"}
CAND = Candidate(question="q", options=OPTIONS, answer="B", solution="print(2/7)\n")
CAP = 1 << 20
CUT = (
    "too much output: printed more than the output cap (1 MiB) on stdout; expected exactly one line"
)


def _captured(data: bytes) -> tuple[str, bool]:
    """What the sandbox keeps of `data` written to stdout: (text, truncated)."""
    capture = BoundedCapture(CAP)
    for k in range(0, len(data), 65536):
        capture.feed(data[k : k + 65536])
    return capture.text(), capture.truncated


def test_a_single_line_over_the_cap_is_named_as_such() -> None:
    stdout, truncated = _captured(b"0" * (3 << 20) + b"\n")
    assert truncated and len(output_lines(stdout)) == 3  # head, marker, tail
    r = judge_run(CAND, _result(stdout, stdout_truncated=True))
    assert not r.passed and r.reason == CUT
    assert "3 lines" not in r.reason


def test_output_over_the_cap_never_passes_even_ending_in_the_answer() -> None:
    stdout, truncated = _captured(b"\n" * (2 << 20) + b"0.285714\n")
    assert truncated
    assert judge_run(CAND, _result(stdout, stdout_truncated=True)).reason == CUT


def test_a_carriage_return_inside_a_line_is_one_line() -> None:
    r = judge_run(CAND, _result("progress 50%\rprogress 100%\r0.285714\n"))
    assert r.reason.startswith("value matches no option"), r.reason
    assert judge_run(CAND, _result("0.285714\r\n")).passed  # a CRLF line ending
    r = judge_run(CAND, _result("0.285714\r\ndone\r\n"))
    assert r.reason.startswith("several output lines: printed 2 lines"), r.reason


def test_a_long_line_is_quoted_with_its_length() -> None:
    r = judge_run(CAND, _result("7" * 500_000 + "\n"))
    assert r.reason.startswith("value matches no option: printed 777")
    assert r.reason.endswith("... (a line of 500000 characters)") and len(r.reason) < 300
    assert r.printed == "7" * 500_000  # the record keeps the whole line


def test_invariance_and_dependence_name_the_cap() -> None:
    stdout, _ = _captured(b"0" * (3 << 20) + b"\n")
    r = judge_check(
        REORDER,
        _result(stdout, APPLIED, stdout_truncated=True),
        [stdout],
        reference="0.5",
        like="0.5",
    )
    assert r.outcome == "fail" and r.printed is None
    assert r.reason == (
        "printed more than the output cap (1 MiB) under reordered-mesh, expected exactly one line"
    )
    r = judge_dependence(stdout, APPLIED + DONE, stdout_truncated=True)
    assert r.outcome == "error"
    assert r.reason.startswith("cannot decide: printed more than the output cap (1 MiB)")
    ok = judge_check(REORDER, _result("0.5\r\n", APPLIED), ["0.5\r\n"], reference="0.5", like="0.5")
    assert ok.passed, ok.reason


def test_verify_of_a_script_printing_one_long_line(tmp_path: Path) -> None:
    """End to end: the real capture cuts a 3 MiB line; the reason says so."""
    d = write_candidate(tmp_path / "c", solution="print('0' * (3 << 20))\n")
    r = verify(d, timeout=60)
    assert not r.passed and r.reason == CUT
