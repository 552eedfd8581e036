"""The offline HTML report and summary.json, checked as data and as a page Chromium renders."""

from __future__ import annotations

import base64
import gzip
import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from scigate.errors import BadInput
from scigate.gate import _report
from scigate.gate._report import (
    INDEX_FIELDS,
    browser_items,
    build_report,
    embedded_items,
    pack_items,
    unpack_items,
)

from ._dbfactory import FIXED, SHUFFLED, build_db, build_empty_db

CHROMIUM = next(
    (shutil.which(n) for n in ("chromium", "chromium-browser") if shutil.which(n)), None
)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("report")
    store, ids = build_db(base / "runs.db")
    files = build_report(store, base / "out")
    yield files, store, ids
    store.close()


@pytest.fixture(scope="module")
def empty_report(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("empty")
    store = build_empty_db(base / "empty.db")
    files = build_report(store, base / "out")
    store.close()
    return files


def test_summary_json(report) -> None:
    files, _, _ = report
    data = json.loads(files.summary.read_text())
    f = data["funnel"]
    assert {"generated", "verified", "screens", "solved", "unique"} <= set(f)
    # the in-loop funnel (run-1); the rescreen (run-2) is reported on its own
    assert (f["generated"], f["verified"], f["solved"], f["unique"]) == (11, 10, 4, 3)
    assert f["screens"] == {FIXED: 5}
    (r2,) = data["audit"]["rescreens"]
    assert r2["run_id"] == "run-2" and r2["screens"] == {SHUFFLED: 6}
    assert data["audit"]["letter_distribution"] == {"A": 1, "B": 2, "C": 5, "D": 2}
    assert [r["id"] for r in data["runs"]] == ["run-1", "run-2"]


def test_html_holds_audit_and_items(report) -> None:
    files, _, ids = report
    html = files.html.read_text()
    for text in (
        "Funnel",
        "Answer presentation",
        "no (fixed order)",
        "Agreement between screens",
        "Time and tokens per gate",
        "Item browser",
        "77.8%",
        "38.9%",
        "50.0%",
    ):
        assert text in html, text
    payload = json.loads(
        re.search(
            r'<script id="items-data" type="application/json">(.*?)</script>', html, re.S
        ).group(1)
    )
    # gzip + base64: the index (list fields) and the other fields in blocks, in one order
    assert payload["encoding"] == "gzip+base64" and payload["count"] == 11
    index = json.loads(gzip.decompress(base64.b64decode(payload["index"])))
    rest = [d for b in payload["details"] for d in json.loads(gzip.decompress(base64.b64decode(b)))]
    data = [i | d for i, d in zip(index, rest, strict=True)]
    assert data == embedded_items(html) == browser_items(report[1])
    assert set(index[0]) == set(INDEX_FIELDS)
    assert [i["id"] for i in data] == ids
    by_id = {i["id"]: i for i in data}
    assert by_id[ids[9]]["status"] == "rejected-verify"
    assert (
        by_id[ids[4]]["status"] == "rejected-screen"
    )  # the loop accepted it; the rescreen rejected it
    assert by_id[ids[5]]["status"] == "accepted"
    assert by_id[ids[7]]["status"] == "rejected-screen"
    # bulky transcripts stay in the database
    assert all("transcript_tail" not in g["detail"] for i in data for g in i["gates"])


def test_item_data_cannot_break_out_of_its_script_block(tmp_path: Path) -> None:
    from scigate.store import CandidateRecord

    store = build_empty_db(tmp_path / "x.db")
    store.add_candidate(
        CandidateRecord(
            question="</script><script>alert(1)</script><!-- x",
            options={"A": "1", "B": "2", "C": "3", "D": "4"},
            answer="A",
        )
    )
    html = build_report(store, tmp_path / "out").html.read_text()
    assert "<script>alert(1)" not in html
    # the data block, the bundled KaTeX, the table and LaTeX helpers, the browser script
    assert html.count("</script>") == 4
    # the question survives the trip through the page intact
    assert embedded_items(html)[0]["question"] == "</script><script>alert(1)</script><!-- x"
    store.close()


def test_packed_items_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    monkeypatch.setattr(_report, "DETAIL_BLOCK", 4)
    for n in (0, 1, 4, 9):
        items = [
            {
                "id": f"{k:016x}",
                "family": rng.choice(["", "fam-ü", "deformed-mesh"]),
                "status": rng.choice(["accepted", "rejected-screen"]),
                "question": "".join(rng.choice("ab <>&\"'é∫\n") for _ in range(rng.randint(0, 40))),
                "options": {"A": "1", "B": "2", "C": "3", "D": "4"},
                "answer": "C",
                "solution": "print('</script>')\n" * rng.randint(0, 3),
                "duplicate_of": None,
                "generator": "",
                "gates": [{"gate": "verify", "detail": {"calls": [], "x": rng.random()}}],
            }
            for k in range(n)
        ]
        payload = pack_items(items)
        assert len(payload["details"]) == -(-n // 4) and payload["block"] == 4
        assert json.dumps(payload).isascii() and "<" not in json.dumps(payload)
        assert unpack_items(payload) == items
    with pytest.raises(ValueError):
        unpack_items({"encoding": "json"})
    with pytest.raises(ValueError):
        embedded_items("<html></html>")


def test_empty_database_report(empty_report) -> None:
    html = empty_report.html.read_text()
    assert "No candidates in this database yet" in html
    assert "No screens were run." in html
    assert "No gate results yet" in html
    assert "No screen or tool-enabled solver has run" in html
    assert "no data" in html
    data = json.loads(empty_report.summary.read_text())
    assert data["funnel"]["generated"] == 0 and data["funnel"]["unique"] == 0


def test_no_external_urls(report, empty_report) -> None:
    for files in (report[0], empty_report):
        html = files.html.read_text()
        markup = re.sub(r"<(script|style)\b[^>]*>.*?</\1>", "", html, flags=re.S)
        refs = re.findall(r"""(?:src|href|action)\s*=\s*["']?([^"'\s>]+)""", markup, re.I)
        assert refs and all(r.startswith("#") for r in refs), refs
        assert not re.search(r"url\(\s*['\"]?(?:https?:)?//", html)
        assert not re.search(r"@import", html)


def test_out_must_be_a_directory(tmp_path: Path) -> None:
    store = build_empty_db(tmp_path / "x.db")
    (tmp_path / "file").write_text("")
    with pytest.raises(BadInput):
        build_report(store, tmp_path / "file")
    store.close()


def test_browser_items_standalone(report) -> None:
    _, store, ids = report
    items = browser_items(store)
    assert len(items) == 11 and items[0]["id"] == ids[0]
    screen = [g for g in items[0]["gates"] if g["gate"] == "screen"]
    assert [g["screen"] for g in screen] == [FIXED, SHUFFLED]
    assert screen[1]["detail"]["calls"][0]["order"] == list("BCDA")


def test_report_cli(tmp_path: Path, report) -> None:
    from typer.testing import CliRunner

    from scigate.cli import app

    res = CliRunner().invoke(
        app, ["gate", "report", "--db", str(report[1].path), "--out", str(tmp_path / "r")]
    )
    assert res.exit_code == 0, res.output
    assert (tmp_path / "r" / "report.html").exists() and (tmp_path / "r" / "summary.json").exists()


def _dump_dom(html: Path, tmp_path: Path) -> str:
    cmd = [
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
        html.resolve().as_uri(),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.browser
@pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium)"
)
def test_chromium_renders_funnel_and_item_browser(report, tmp_path: Path) -> None:
    files, _, ids = report
    dom = _dump_dom(files.html, tmp_path)
    assert 'id="funnel"' in dom and "solved by tool agent" in dom
    # rows and the selected candidate's detail are rendered by the page's script
    rows = re.findall(r'<div class="row( sel)?" data-id="([0-9a-f]{16})">', dom)
    assert [r[1] for r in rows] == ids
    assert [bool(r[0]) for r in rows] == [True] + [False] * 10  # the first one is selected
    assert "Solution script" in dom
    assert f"Candidate <code>{ids[0]}</code>" in dom
    assert "page 1 of 1" in dom and "11 shown" in dom
    assert "BCDA→B ✓" in dom  # the shown orders of the selected candidate's screen calls


@pytest.mark.browser
@pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium)"
)
def test_chromium_renders_empty_report(empty_report, tmp_path: Path) -> None:
    dom = _dump_dom(empty_report.html, tmp_path)
    assert "no candidates match" in dom and "0 shown" in dom


@pytest.fixture(scope="module")
def two_family_report(tmp_path_factory: pytest.TempPathFactory):
    """The hand-made database plus a held-out family's tool agent and an unknown new gate."""
    base = tmp_path_factory.mktemp("families")
    store, ids = build_db(base / "runs.db")
    for i, outcome in ((4, "fail"), (5, "pass"), (8, "pass"), (10, "error")):
        store.add_gate_result(
            "run-2",
            ids[i],
            "solve",
            screen="anthropic/claude-opus-4-8",
            outcome=outcome,
            reason={"fail": "wrong answer: chose A", "pass": "solved", "error": "error: x"}[
                outcome
            ],
        )
    store.add_gate_result(
        "run-1", ids[2], "invariance", outcome="fail", reason="mesh reordering: 0.1 then 0.2"
    )
    files = build_report(store, base / "out")
    yield files
    store.close()


def test_report_shows_rejections_transfer_and_pool_ranks(two_family_report) -> None:
    html = two_family_report.html.read_text()
    for text in (
        "Rejections by gate and reason",
        "Reason classes",
        "mesh reordering",  # a gate the report does not know by name
        "printed value matches no option",
        "Who solved what: cross-family transfer",
        "anthropic+python",
        "Accepted pool (2 unique items)",
        "Value rank of the correct option",
        "conflicting records",
    ):
        assert text in html, text
    # the tool matrix: python solved 4 (c4 c5 c8 c10), anthropic decided 3 of them, solved 2
    matrix = html[html.index("Tool-enabled solvers") : html.index("No-tool screens")]
    cells = re.findall(r"<td class=\"num[^\"]*\"[^>]*>(\d+) / (\d+)<br>", matrix)
    assert cells == [("2", "3"), ("2", "2"), ("2", "3"), ("4", "5")]
    data = json.loads(two_family_report.summary.read_text())
    gates = [g["gate"] for g in data["audit"]["rejections"]["gates"]]
    assert gates == ["generate", "verify", "invariance", "screen", "solve"]
    assert data["audit"]["transfer"]["tool_families"] == ["anthropic", "python"]
    assert data["audit"]["pool_value_rank_distribution"]["2"] == 1


@pytest.mark.browser
@pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium)"
)
def test_chromium_renders_rejections_and_transfer(two_family_report, tmp_path: Path) -> None:
    dom = _dump_dom(two_family_report.html, tmp_path)
    assert 'id="rejections"' in dom and 'id="transfer"' in dom
    assert "Only one family ran" in dom  # the no-tool screens are all of one family
    assert re.search(r"<svg[^>]*>.*?invariance.*?</svg>", dom, re.S)  # the per-gate chart


def test_report_reads_gate_results_page_by_page(report, tmp_path: Path, monkeypatch) -> None:
    """Issue 27: pages of one row give the same report data as the whole table at once."""
    import json

    from scigate.gate import _audit

    files, store, _ = report
    monkeypatch.setattr(_audit, "PAGE", 1)
    paged = build_report(store, tmp_path / "paged")
    old, new = (json.loads(f.summary.read_text()) for f in (files, paged))
    assert old["audit"] == new["audit"] and old["funnel"] == new["funnel"]
    items = embedded_items(paged.html.read_text())
    assert items == embedded_items(files.html.read_text()) == browser_items(store)
