"""Untrusted text is inert in datasheets and reports (issue 19, item 9).

A generator writes meta.json (its family lands in DATASHEET.md, the report's charts
and the item browser), the question and the options; a screen spec and the reasons
that quote a candidate's output come from the run database. None of it may act as
HTML or Markdown: `<script>` stays text, `[x](javascript:...)` is no link, a `|` or a
line break does not break a table. The tests fail when `md_text`/`md_code` or the
report's autoescape are taken out.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from scigate._text import md_code, md_text
from scigate.bench import datasheet
from scigate.gate._export import export_release
from scigate.gate._report import build_report, embedded_items
from scigate.store import CandidateRecord, Store

from .conftest import cli

SCRIPT = "<script>alert(1)</script>"
JS_LINK = "[x](javascript:alert(1))"
IMG = "<img src=x onerror=\"document.title='pwned'\">"
#: a meta.json family with everything at once: HTML, a javascript: link, a table pipe,
#: a code span, a heading after a line break, an ESC sequence
FAMILY = f"{SCRIPT} {JS_LINK} a|b `tick`\n# heading \x1b[31m"
SCREEN = f"python/evil.py:{JS_LINK}|<b>x</b>"
QUESTION = f"Compute 2/7 to six decimals. {IMG} {SCRIPT}"
OPTIONS = {"A": "0.142857", "B": "0.285714", "C": "0.428571", "D": f"{SCRIPT}"}
CHROMIUM = next(
    (shutil.which(n) for n in ("chromium", "chromium-browser") if shutil.which(n)), None
)


def _render(markdown: str) -> str:
    return MarkdownIt("commonmark").enable("table").render(markdown)


def _assert_inert_html(html: str) -> None:
    assert "<script" not in html and "<img" not in html and "<b>" not in html, html
    assert "javascript:" not in "".join(re.findall(r'href="[^"]*"', html))
    assert "<a " not in html and "\x1b" not in html


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory: pytest.TempPathFactory):
    """One accepted candidate whose generator, meta.json, question, options, screen
    spec and reasons are all hostile."""
    store = Store(tmp_path_factory.mktemp("hostile") / "runs.db")
    config = {
        "domain": "fenicsx",
        "generator": f"python/gen.py:{JS_LINK}",
        "screens": [SCREEN],
        "calls": 1,
        "seed": 0,
        "verify_timeout": 60.0,
    }
    run = store.create_run("gate", domain="fenicsx", config=config, run_id="run-1")
    cid, _ = store.add_candidate(
        CandidateRecord(
            run_id=run,
            question=QUESTION,
            options=OPTIONS,
            answer="B",
            answer_value="0.285714",
            solution="print('0.285714')\n",
            meta={"family": FAMILY, "topic": JS_LINK},
            family=FAMILY,
            generator=config["generator"],
            created_at=1000.0,
        )
    )
    store.add_gate_result(
        run,
        cid,
        "verify",
        outcome="pass",
        reason=f"printed 0.285714 {SCRIPT}",
        detail={"printed": "0.285714", "matched_option": "B", "proposed": "B"},
        seconds=1.0,
    )
    store.add_gate_result(
        run,
        cid,
        "screen",
        screen=SCREEN,
        outcome="pass",
        reason=f"{SCREEN}: 0 of 1 calls correct",
        detail={
            "screen": SCREEN,
            "solved": False,
            "correct_calls": 0,
            "planned_calls": 1,
            "shuffled": True,
            "calls": [
                {
                    "index": 0,
                    "order": list("ABCD"),
                    "reply": f"Answer: D {SCRIPT}",
                    "chosen_letter": "D",
                    "chosen_original": "D",
                    "chosen_value": SCRIPT,
                    "correct": False,
                    "error": None,
                }
            ],
        },
        seconds=1.0,
    )
    store.set_run_status(run, "finished")
    yield store
    store.close()


def test_md_text_escapes_html_links_tables_and_line_breaks() -> None:
    assert md_text(SCRIPT) == "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert md_text(JS_LINK) == "\\[x\\](javascript:alert(1))"
    assert md_text("a|b\nc") == "a\\|b\\\\nc"  # one cell, the line break shown as \n
    assert md_text("# h") == "\\# h" and md_text("- x") == "\\- x" and md_text("1. x") == "1\\. x"
    assert md_text("`x` *y* _z_ ~w~ \\") == "\\`x\\` \\*y\\* \\_z\\_ \\~w\\~ \\\\"
    assert md_text("\x1b[31m") == "\\\\x1b\\[31m"
    assert md_text("cue/letter-C (CC BY 4.0) 0.5") == "cue/letter-C (CC BY 4.0) 0.5"
    assert md_code("cue/letter-C") == "`cue/letter-C`"
    assert md_code(f"a`b {SCRIPT}") == md_text(f"a`b {SCRIPT}")  # no code span for those
    for value in (FAMILY, SCREEN, QUESTION, IMG):
        rendered = _render(
            f"- value: {md_text(value)}\n\n| a | b |\n| --- | --- |\n| {md_text(value)} | x |\n"
        )
        _assert_inert_html(rendered)
        assert rendered.count("<tr>") == 2 and rendered.count("<td>") == 2  # one row, two cells


def test_datasheet_shows_a_generators_meta_json_as_text(hostile_db, tmp_path: Path) -> None:
    files = export_release(hostile_db, tmp_path / "release", release_seed=1)
    sheet = files.datasheet.read_text()
    assert SCRIPT not in sheet and JS_LINK not in sheet and "<b>" not in sheet
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in sheet
    assert "\\[x\\](javascript:alert(1))" in sheet
    families = next(ln for ln in sheet.splitlines() if ln.startswith("- families:"))
    assert "heading" in families  # the family's line break did not start a heading
    assert not any(ln.startswith("# heading") for ln in sheet.splitlines())
    _assert_inert_html(_render(sheet))


def test_html_report_escapes_every_untrusted_value(hostile_db, tmp_path: Path) -> None:
    files = build_report(hostile_db, tmp_path / "report")
    html = files.html.read_text()
    # the page without its data block and the bundled KaTeX (third-party code, as shipped)
    page = re.sub(r'<script id="(items-data|katex-js)".*?</script>', "", html, flags=re.S)
    assert SCRIPT not in page and "<img" not in page and "<b>x</b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # the families chart's label
    assert "&lt;b&gt;x&lt;/b&gt;" in page  # the screen spec in the screens table
    (item,) = embedded_items(html)  # the item data keeps the text as it was
    assert item["family"] == FAMILY and item["question"] == QUESTION


@pytest.mark.browser
@pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium)"
)
def test_report_item_browser_renders_hostile_text_as_text(hostile_db, tmp_path: Path) -> None:
    """The page's own script puts the question, options, family and reasons into the
    DOM: none of it becomes an element, and the image's handler never runs."""
    files = build_report(hostile_db, tmp_path / "report")
    done = subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'chromium-profile'}",
            "--virtual-time-budget=5000",
            "--dump-dom",
            files.html.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    assert "Solution script" in dom  # the item's detail was rendered
    assert "pwned" not in re.search(r"<title>(.*?)</title>", dom, re.S).group(1)
    body = re.sub(r"<script\b[^>]*>.*?</script>", "", dom, flags=re.S)  # the page's own
    assert "<img" not in body and "<script" not in body and "<b>x</b>" not in body
    assert "&lt;img src=x onerror=" in body and "&lt;script&gt;alert(1)&lt;/script&gt;" in body


def test_gate_audit_prints_the_databases_text_inert(hostile_db) -> None:
    """Family, screen spec and reasons from the database reach the terminal as written."""
    r = cli("gate", "audit", "--db", str(hostile_db.path))
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout and "\\x1b[31m" in r.stdout
    flat = "".join(r.stdout.split())  # tables wrap cells at the console width
    assert "".join(SCREEN.split()) in flat  # [x](...) and <b> as written, not parsed


def test_bench_datasheet_escapes_the_bench_files_values() -> None:
    conditions = {
        "bench_file": f"{SCRIPT}.jsonl",
        "tasks": 1,
        "by_level_format": {f"L1/{JS_LINK}|x": 1},
        "by_domain": {f"{SCRIPT}\n# h": 1},
        "run_id": "run-1",
        "generator": f"python/g.py:`{SCRIPT}`",
        "seed": 0,
        "batch": 1,
        "versions": {"scigate": "1"},
        "entity_sets": {},
        "checks": {
            "screens": {SCREEN: {"spec": SCREEN, "reached": 1, "passed": 1, "pass_rate": 1.0}},
            "judge": None,
            "solver": None,
        },
        "funnel": {
            "accepted": 1,
            "attempts": 1,
            "status": "finished",
            "cells": {f"L1/{JS_LINK}|x": {"attempts": 1, "accepted": 1, "rejected": {}}},
        },
    }
    sheet = datasheet(conditions)
    assert SCRIPT not in sheet and JS_LINK not in sheet
    html = _render(sheet)
    _assert_inert_html(html)
    # every table row keeps its columns: the pipe in a format or spec is escaped
    for table in re.findall(r"<table>.*?</table>", html, re.S):
        counts = {
            len(re.findall(r"<t[hd]", row)) for row in re.findall(r"<tr>.*?</tr>", table, re.S)
        }
        assert len(counts) == 1, table
