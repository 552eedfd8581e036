"""The bundled KaTeX (0.19.1, MIT, templates/katex/LICENSE) inlined into a report page.

The report is one offline file: KaTeX's script, its auto-render extension and its
style sheet go into the page as they are, and each font the style sheet names is
embedded as a `data:` URI (woff2 only: every browser that runs the page's script reads
it), so rendering LaTeX fetches nothing at view time.
"""

from __future__ import annotations

import base64
import re
from functools import cache
from pathlib import Path

from pydantic import BaseModel

KATEX_DIR = Path(__file__).parent / "templates" / "katex"
KATEX_VERSION = "0.19.1"
# One src descriptor list of an @font-face rule: url(fonts/X.woff2) format("woff2"),...
_FONT_SRC = re.compile(r"src:url\(fonts/([A-Za-z0-9_-]+)\.woff2\) format\(\"woff2\"\)[^;}]*")


class KatexAssets(BaseModel):
    """What a page inlines: one style sheet (fonts included) and one script."""

    css: str
    js: str


def _font_src(match: re.Match[str]) -> str:
    font = KATEX_DIR / "fonts" / f"{match.group(1)}.woff2"
    data = base64.b64encode(font.read_bytes()).decode("ascii")
    return f'src:url(data:font/woff2;base64,{data}) format("woff2")'


@cache
def katex_assets() -> KatexAssets:
    """KaTeX's CSS with its fonts as data URIs, and its script plus auto-render."""
    css = _FONT_SRC.sub(_font_src, (KATEX_DIR / "katex.min.css").read_text(encoding="utf-8"))
    if "url(fonts/" in css:
        raise RuntimeError("katex.min.css names a font this bundle does not embed")
    js = "\n".join(
        (KATEX_DIR / name).read_text(encoding="utf-8")
        for name in ("katex.min.js", "auto-render.min.js")
    )
    # Inlined in <script>/<style>: neither may end its own block early.
    if "</script" in js.lower() or "</style" in css.lower():
        raise RuntimeError("the KaTeX bundle cannot be inlined as it is")
    return KatexAssets(css=css, js=js)
