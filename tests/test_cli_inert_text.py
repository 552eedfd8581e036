"""Untrusted text is inert on the terminal (issue 19, item 9).

A candidate's output, a model's reply, an option or a run database's spec reaches the
terminal through `gate verify`'s reason, `gate screen`'s call lines, `agent run`'s
trajectory and the `scigate: error:` line. Control characters (ESC sequences, OSC 8
hyperlinks, carriage returns, backspaces, C1 controls) must show as escapes and Rich
markup (`[link=...]`, `[bold red]`) as written; each test fails when the defence in
`scigate.cli._console` is taken out.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _cli import run_main
from scigate.cli._console import inert, inert_markup, json_text, one_line, untrusted

ESC = "\x1b"
OSC8 = "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\"
LINK = "[link=https://evil.example]click[/link]"
BOLD = "[bold red]loud[/bold red]"
#: one line of everything at once: colour, an OSC 8 hyperlink, Rich markup, a carriage
#: return and backspace that would overwrite the line, a C1 CSI that clears the screen
HOSTILE = f"{ESC}[31mred{ESC}[0m {OSC8} {LINK} {BOLD} \r\x08\x9b2J"

OPTIONS = {"A": "0.142857", "B": "0.285714", "C": "0.428571", "D": "0.571429"}


def _candidate(directory: Path, solution: str, options: dict[str, str] | None = None) -> Path:
    directory.mkdir(parents=True)
    (directory / "question.md").write_text("Compute 2/7 to six decimals.\n")
    (directory / "options.json").write_text(json.dumps(options or OPTIONS))
    (directory / "answer.txt").write_text("B\n")
    (directory / "solution.py").write_text(solution)
    return directory


def _assert_inert(out: str) -> None:
    """No byte that acts on a terminal, and the markup shown as written."""
    for ch in (ESC, "\x07", "\x08", "\r", "\x9b"):
        assert ch not in out, f"{ch!r} reached the terminal: {out!r}"
    assert "\x1b]8" not in out  # no OSC 8 hyperlink
    flat = " ".join(out.split())  # Rich wraps at the console width
    assert LINK in flat and BOLD in flat, out  # markup printed, not parsed
    assert "\\x1b]8;;https://evil.example" in flat  # the sequence is shown, escaped
    assert "\\x08\\x9b2J" in flat  # (a stderr tail has its carriage return as a line break)


def test_helpers_escape_controls_and_markup() -> None:
    assert inert(HOSTILE).count("\\x1b") == 6 and ESC not in inert(HOSTILE)
    assert inert("a\n\tb") == "a\n\tb"  # line breaks and tabs stay
    assert inert("\u202eevil\u200b") == "\\u202eevil\\u200b"  # bidi override, zero width
    assert inert("α β, 0.5 µm — ✓") == "α β, 0.5 µm — ✓"  # any script prints as it is
    assert inert_markup(LINK) == "\\[link=https://evil.example]click\\[/link]"
    assert untrusted(BOLD).plain == BOLD
    assert one_line(" a\nb\x1b ") == "a\\nb\\x1b"
    text = json_text({"reply": "\x9b2J\u202e\x7f\x1b α"})
    assert "\x9b" not in text and "\u202e" not in text and "\x7f" not in text
    assert json.loads(text) == {"reply": "\x9b2J\u202e\x7f\x1b α"} and "α" in text


@pytest.mark.parametrize(
    "solution",
    [
        pytest.param(f"print({HOSTILE!r})\n", id="one-line"),
        pytest.param(f"print({HOSTILE!r})\nprint({HOSTILE!r})\n", id="several-lines"),
        pytest.param(
            f"import sys\nsys.stderr.write({HOSTILE!r} + '\\n')\nsys.exit(3)\n", id="stderr"
        ),
    ],
)
def test_gate_verify_prints_a_hostile_candidates_output_inert(
    tmp_path: Path, solution: str
) -> None:
    cand = _candidate(tmp_path / "c", solution)
    code, out, err = run_main("gate", "verify", str(cand), "--timeout", "60")
    assert code == 1, (out, err)
    assert "FAIL" in out
    _assert_inert(out + err)


def test_gate_verify_json_is_inert_and_keeps_the_text(tmp_path: Path) -> None:
    cand = _candidate(tmp_path / "c", f"print({HOSTILE!r})\n")
    code, out, _ = run_main("gate", "verify", str(cand), "--timeout", "60", "--json")
    assert code == 1 and ESC not in out and "\x9b" not in out
    assert HOSTILE in json.loads(out)["reason"]  # the record itself is not rewritten


def test_gate_screen_prints_a_hostile_option_inert(tmp_path: Path) -> None:
    """A cue screen's chosen value is the candidate's option text, printed per call."""
    options = {**OPTIONS, "C": HOSTILE}
    cand = _candidate(tmp_path / "c", "print('0.285714')\n", options)
    code, out, err = run_main("gate", "screen", str(cand), "--model", "cue/letter-C")
    assert code == 0, (out, err)
    assert "chose C =" in out
    _assert_inert(out)


def test_the_error_line_is_inert(tmp_path: Path) -> None:
    """BadInput quotes what it was given (here a path); the error line escapes it."""
    missing = tmp_path / f"x{ESC}]8;;evil{ESC}\\{BOLD}\r\x9b"
    code, out, err = run_main("gate", "verify", str(missing))
    assert code == 2 and out == ""
    assert err.startswith("scigate: error: ") and len(err.strip().splitlines()) == 1
    assert ESC not in err and "\r" not in err and "\x9b" not in err
    assert "x\\x1b]8;;evil\\x1b\\" + BOLD + "\\r\\x9b" in err


def test_agent_trajectory_events_are_inert(capsys: pytest.CaptureFixture[str]) -> None:
    """A model's thought, a tool's output and the answer go through the same helper."""
    from scigate.cli._agent import _show_event

    _show_event({"kind": "llm", "purpose": "react", "text": HOSTILE})
    _show_event(
        {"kind": "tool", "tool": "t", "ok": True, "arguments": {"q": LINK}, "output": HOSTILE}
    )
    _show_event({"kind": "answer", "answer": HOSTILE})
    out = capsys.readouterr().out
    _assert_inert(out)
    assert out.count(LINK) >= 3
