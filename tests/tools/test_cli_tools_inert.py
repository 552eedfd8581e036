"""`scigate tools ...` and results.md show untrusted text as text (issue 19, item 9).

A tool's value and error carry text from outside (a PubChem name, a downloaded paper, the
SMILES a user typed), and `agent eval`'s results.md carries a bench file's level names.
Here a light tool (EvaluateExpression, its body replaced by one that echoes or rejects
its input) returns a hostile string: ESC colour codes, an OSC 8 hyperlink, Rich markup,
a carriage return and a C1 CSI. Every print path of `tools run/chain/plan/show/search`
and the `scigate: error:` line must show them escaped and the markup as written; a
hostile level name must neither break results.md's table nor act as HTML. Each test
fails when its defence (`scigate.cli._console`, `md_text`) is taken out.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from _cli import run_main
from scigate.tools import ToolInputError, get_tool

ESC = "\x1b"
OSC8 = "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\"
LINK = "[link=https://evil.example]x[/link]"
BOLD = "[bold red]loud[/bold red]"
HOSTILE = f"{ESC}[31mred{ESC}[0m {OSC8} {LINK} {BOLD} \r\x9b2J"


def _assert_inert(out: str, *, markup: bool = True) -> None:
    """No byte that acts on a terminal; the sequences shown escaped, the markup as written."""
    for ch in (ESC, "\r", "\x9b"):
        assert ch not in out, f"{ch!r} reached the terminal: {out!r}"
    flat = " ".join(out.split())  # Rich wraps at the console width
    assert "\\x1b]8;;https://evil.example" in flat and "\\r\\x9b2J" in flat, out
    if markup:
        assert LINK in flat and BOLD in flat, out  # printed, not parsed


@pytest.fixture
def echo_tool(monkeypatch: pytest.MonkeyPatch) -> str:
    """EvaluateExpression returning its expression as it is (a value that repeats its
    input, as a name lookup does)."""
    monkeypatch.setattr(get_tool("EvaluateExpression"), "fn", lambda expression: expression)
    return "EvaluateExpression"


@pytest.fixture
def failing_tool(monkeypatch: pytest.MonkeyPatch) -> str:
    """EvaluateExpression rejecting its expression by quoting it (as a bad SMILES is)."""

    def reject(expression: str) -> None:
        raise ToolInputError(f"cannot read {expression}")

    monkeypatch.setattr(get_tool("EvaluateExpression"), "fn", reject)
    return "EvaluateExpression"


def test_run_prints_a_hostile_value_inert(echo_tool: str) -> None:
    code, out, err = run_main("tools", "run", echo_tool, "--input", HOSTILE)
    assert code == 0, (out, err)
    _assert_inert(out)
    assert out.startswith("\\x1b[31mred\\x1b[0m ")


def test_run_prints_a_hostile_error_inert(failing_tool: str) -> None:
    code, out, err = run_main("tools", "run", failing_tool, "--input", HOSTILE)
    assert code == 1 and out == "", (out, err)
    assert err.startswith("EvaluateExpression: cannot read \\x1b[31mred")
    _assert_inert(err)


def test_run_json_is_inert_and_keeps_the_text(echo_tool: str) -> None:
    code, out, _ = run_main("tools", "run", echo_tool, "--input", HOSTILE, "--json")
    assert code == 0 and ESC not in out and "\x9b" not in out and "\r" not in out
    assert json.loads(out) == {"ok": True, "value": HOSTILE, "display": HOSTILE}


def test_chain_prints_a_failed_step_inert(failing_tool: str) -> None:
    code, out, err = run_main("tools", "chain", failing_tool, "--input", HOSTILE)
    assert code == 1, (out, err)
    assert "1. EvaluateExpression failed: EvaluateExpression: cannot read" in out
    _assert_inert(out)
    _assert_inert(err)  # the 'step 1 (...)' line on stderr


def test_chain_and_plan_print_a_hostile_value_inert(echo_tool: str) -> None:
    code, out, err = run_main("tools", "chain", echo_tool, "--input", HOSTILE)
    assert code == 0 and "1. EvaluateExpression ok: " in out, (out, err)
    _assert_inert(out)
    code, out, err = run_main("tools", "plan", echo_tool, "--input", HOSTILE)
    assert code == 0 and "answer: " in out, (out, err)
    _assert_inert(out)
    flat = " ".join(out.split())
    assert flat.count(LINK) == 2  # the step's value and the answer


def test_show_and_search_print_hostile_text_inert(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(get_tool("EvaluateExpression").spec, "functionality", HOSTILE)
    code, out, err = run_main("tools", "show", "EvaluateExpression")
    assert code == 0 and "parameters (JSON Schema):" in out, (out, err)
    _assert_inert(out)
    code, out, err = run_main("tools", "search", HOSTILE, "-k", "1")
    assert code == 0 and "tools for:" in out, (out, err)
    _assert_inert(out, markup=False)  # the title is wrapped at the table's width
    assert "[link=https://evil.example]" in out and "\\x1b[31mred" in out


def test_show_prints_an_example_smarts_as_written() -> None:
    """An example's `[#8]` is a SMARTS, not a Rich tag (markup used to swallow it)."""
    from scigate.tools import load_library

    if "CountSMARTSMatches" not in load_library():
        pytest.skip("chemistry tools not present")
    code, out, err = run_main("tools", "show", "CountSMARTSMatches")
    assert code == 0, (out, err)
    assert '"smarts": "[#8]"} -> 4' in out and '"smarts": "[CX4]"} -> 2' in out


def test_the_error_line_is_inert(tmp_path: Path) -> None:
    """BadInput quotes the --input file it could not read; the error line escapes it."""
    missing = tmp_path / f"x{ESC}]8;;evil{ESC}\\{BOLD}\r\x9b"
    code, out, err = run_main("tools", "run", "EvaluateExpression", "--input", f"@{missing}")
    assert code == 2 and out == ""
    assert err.startswith("scigate: error: ") and len(err.strip().splitlines()) == 1
    assert ESC not in err and "\r" not in err and "\x9b" not in err
    assert "x\\x1b]8;;evil\\x1b\\" + BOLD + "\\r\\x9b" in err


def test_results_md_renders_a_hostile_level_name_as_text() -> None:
    from scigate.agents import render_markdown
    from scigate.agents._eval import EvalResult

    level = "<script>alert(1)</script> a|b\n# heading [x](javascript:alert(1))"
    block = {
        "n": 1,
        **{k: {"mean": 100.0, "std": 0.0} for k in ("tool", "tool_set_f1", "tool_lcs")},
        **{k: {"mean": 50.0, "std": 0.0} for k in ("answer", "answer_decided")},
        "unjudged": 0,
        "errors": 0,
    }
    cost = {
        k: 1.0
        for k in (
            "llm_calls",
            "input_tokens",
            "output_tokens",
            "total_tokens",
            "model_latency",
            "wall_seconds",
            "reranker_calls",
            "reranker_tokens",
        )
    }
    result = EvalResult(
        config={
            "method": "<b>evo</b>|x",
            "tasks": 1,
            "runs": 1,
            "known_ratio": 0.5,
            "split_seed": 0,
            "executor": {"name": "local|<i>x</i>", "workers": 1},
        },
        rows=[],
        summary={
            "levels": {level: block},
            "overall": block,
            "cost": {**cost, "api_cost": None, "estimated_tokens": False},
        },
    )
    md = render_markdown(result)
    rows = [line for line in md.splitlines() if line.startswith("| ")]
    assert len(rows) == 7  # two tables (header, rule): the level, overall, cost; none split
    assert all(len(re.findall(r"(?<!\\)\|", r)) == 10 for r in rows)  # 9 cells each
    assert "| overall | 1 | 100.00 ± 0.00 | 100.00 ± 0.00 | 100.00 ± 0.00 | 50.00" in md
    assert "&lt;script&gt;alert(1)&lt;/script&gt; a\\|b\\\\n# heading \\[x\\]" in md
    assert md.startswith("# Agent evaluation: &lt;b&gt;evo&lt;/b&gt;\\|x\n")
    assert ", executor local\\|&lt;i&gt;x&lt;/i&gt; (1 workers)" in md
    html = MarkdownIt("commonmark").enable("table").render(md)
    assert "<script" not in html and "<b>" not in html and "<i>" not in html, html
    assert "<a " not in html and html.count("<h1>") == 1
    assert "<td>&lt;script&gt;alert(1)&lt;/script&gt; a|b\\n# heading [x](javascript:" in html
