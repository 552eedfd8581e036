"""The report as a reader sees it in headless Chromium, on a phone (390 px) and a wide
screen (1400 px): no sideways scrolling of the page, LaTeX typeset by the bundled KaTeX,
an item opened by its #item-<id> address, sortable tables, and nothing fetched."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from scigate.gate._report import build_report
from scigate.store import CandidateRecord

from ._dbfactory import build_db

CHROMIUM = next(
    (shutil.which(n) for n in ("chromium", "chromium-browser") if shutil.which(n)), None
)
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium)"
)
# A FEniCSx-style question with inline and display math, and a long unbroken token.
LATEX_QUESTION = (
    r"Solve $-\nabla\cdot(\kappa\nabla u) = f$ on $\Omega = [0,1]^2$ with "
    r"$\kappa = 1 + x_0^2$ and report $$J(u) = \int_\Omega u^2\,\mathrm{d}x$$ "
    "for mesh_" + "x" * 120 + r". Hostile: $\href{javascript:alert(1)}{x}\includegraphics{y.png}$"
)
# Written into the page copy the test opens: what the page looks like once its scripts ran,
# posted to the harness page around it.
MEASURE = """<script>
setTimeout(() => {
  const th = document.querySelector("th.sortable");
  const table = th.closest("table"), col = [...th.parentNode.cells].indexOf(th);
  th.click(); th.click();  // descending
  const question = document.querySelector("#item-detail .question").cloneNode(true);
  question.querySelectorAll(".katex").forEach((k) => k.remove());
  parent.postMessage(JSON.stringify({
    untypeset: question.textContent,
    links: document.querySelectorAll("#item-detail .question a, #item-detail .question img").length,
    inner: window.innerWidth,
    doc: document.documentElement.scrollWidth,
    body: document.body.scrollWidth,
    katex: document.querySelectorAll("#item-detail .katex").length,
    katexFont: getComputedStyle(document.querySelector("#item-detail .katex")).fontFamily,
    fontsLoaded: [...document.fonts].filter((f) => f.status === "loaded").map((f) => f.family),
    opened: document.querySelector("#item-detail h3 code").textContent,
    sortedBy: th.getAttribute("aria-sort"),
    column: [...table.rows].slice(1).map((r) => r.cells[col].textContent.trim()),
    detailWidth: document.getElementById("item-detail").getBoundingClientRect().width,
  }), "*");
}, 1500);
</script>
</body>"""
# Chromium's windows are at least 500 px wide: the page runs in a frame of the width tested,
# which is its viewport (media queries, innerWidth), inside a harness that keeps the message.
HARNESS = """<!doctype html><html><body style="margin:0">
<iframe src="{src}" style="border:0;display:block;width:{width}px;height:1960px"></iframe>
<script>addEventListener("message", (e) => {{
  const out = document.createElement("pre"); out.id = "measure"; out.textContent = e.data;
  document.body.appendChild(out);
}});</script></body></html>"""
# Namespace names inside KaTeX's and the charts' code: identifiers, never fetched.
NAMESPACES = {"http://www.w3.org/1998/Math/MathML", "http://www.w3.org/2000/svg"}


@pytest.fixture(scope="module")
def latex_report(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("layout")
    store, _ = build_db(base / "runs.db")
    cid, _ = store.add_candidate(
        CandidateRecord(
            run_id="run-1",
            question=LATEX_QUESTION,
            options={"A": "0.125", "B": "0.25", "C": "0.5", "D": "1.0"},
            answer="B",
            answer_value="0.25",
            solution="print(0.25)\n",
            family="deformed-mesh",
            generator="python/gen.py:gen",
            created_at=2000.0,
        )
    )
    files = build_report(store, base / "out")
    store.close()
    return files.html, cid


def _chromium(tmp_path: Path, width: int, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            f"--user-data-dir={tmp_path / f'profile-{width}'}",
            f"--window-size={max(width, 500)},2000",
            "--virtual-time-budget=8000",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_report_has_no_external_url(latex_report) -> None:
    html = latex_report[0].read_text()
    markup = re.sub(r"<(script|style)\b[^>]*>.*?</\1>", "", html, flags=re.S)
    refs = re.findall(r"""(?:src|href|action)\s*=\s*["']?([^"'\s>]+)""", markup, re.I)
    assert refs and all(r.startswith("#") for r in refs), refs
    assert set(re.findall(r"""https?://[^\s"'()<>]+""", html)) <= NAMESPACES
    assert not re.search(r"url\(\s*['\"]?(?:https?:)?//", html) and "@import" not in html
    # the fonts KaTeX needs are inside the page
    assert html.count("url(data:font/woff2;base64,") >= 19 and "url(fonts/" not in html


@pytest.mark.browser
@needs_chromium
@pytest.mark.parametrize("width", [390, 1400])
def test_report_layout_in_chromium(latex_report, tmp_path: Path, width: int) -> None:
    html, cid = latex_report
    page = tmp_path / "report.html"
    page.write_text(html.read_text().replace("</body>", MEASURE, 1))
    harness = tmp_path / "harness.html"
    harness.write_text(HARNESS.format(src=f"report.html#item-{cid}", width=width))
    url = harness.resolve().as_uri()
    done = _chromium(tmp_path, width, "--dump-dom", url)
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(r'<pre id="measure">(.*?)</pre>', done.stdout, re.S)
    assert found, done.stdout[-2000:]
    m = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert m["inner"] == width
    # the page never scrolls sideways: wide tables and the long token stay in their boxes
    assert m["doc"] <= width and m["body"] <= width, m
    # the linked item is open, its LaTeX typeset with the embedded KaTeX fonts
    assert m["opened"] == cid
    assert m["katex"] >= 4, m
    assert "KaTeX_Main" in m["katexFont"] and "KaTeX_Math" in m["fontsLoaded"], m
    assert "$" not in m["untypeset"] and "for mesh_x" in m["untypeset"], m["untypeset"]
    assert m["links"] == 0  # KaTeX's trust is off: no LaTeX command makes a link or image
    # the item pane is a column of its own on a wide screen, the full width on a phone
    assert m["detailWidth"] > (300 if width == 390 else 600), m
    # the first sortable column, sorted twice: descending
    assert m["sortedBy"] == "descending"
    assert m["column"] == sorted(m["column"], reverse=True) or all(
        _n(a) >= _n(b) for a, b in zip(m["column"], m["column"][1:], strict=False)
    ), m["column"]
    shot = tmp_path / f"report-{width}.png"
    done = _chromium(tmp_path, width, f"--screenshot={shot}", url)
    assert done.returncode == 0 and shot.stat().st_size > 10_000, done.stderr[-2000:]


def _n(text: str) -> float:
    return float(re.match(r"[-+]?[\d.]+", text.replace(",", "")).group(0))
