"""Small inline SVG charts for the offline HTML report (no JavaScript library, no CDN)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

PALETTE = ["#3b6ea8", "#e07b39", "#5a9e6f", "#b5525c", "#8a6bb5", "#c2a03a", "#4aa3a8"]


def hbar(
    rows: Sequence[tuple[str, float]], *, width: int = 560, unit: str = "", colour: str = PALETTE[0]
) -> str:
    """A horizontal bar chart: one labelled bar per row, value printed at its end."""
    if not rows:
        return '<p class="muted">no data</p>'
    bar_h, gap = 22, 6
    label_w = min(max(90, 7 * max(len(_clip(label)) for label, _ in rows) + 16), width // 2)
    top = max((v for _, v in rows), default=0) or 1
    height = len(rows) * (bar_h + gap) + gap
    avail = width - label_w - 70
    parts = [
        f'<svg class="chart" width="{width}" height="{height}" role="img" viewBox="0 0 {width} {height}">'
    ]
    for i, (label, value) in enumerate(rows):
        y = gap + i * (bar_h + gap)
        w = max(1.0, avail * value / top) if value else 0
        text = f"{value:g}{unit}" if isinstance(value, float) else f"{value}{unit}"
        parts.append(
            f'<text x="{label_w - 8}" y="{y + bar_h * 0.7:.1f}" text-anchor="end" class="lbl">{escape(_clip(label))}</text>'
            f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h}" rx="3" fill="{colour}"><title>{escape(label)}: {text}</title></rect>'
            f'<text x="{label_w + w + 6:.1f}" y="{y + bar_h * 0.7:.1f}" class="val">{text}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def columns(
    counts: Mapping[str, float | None],
    *,
    width: int = 300,
    height: int = 150,
    colour: str = PALETTE[1],
    unit: str = "",
    top: float | None = None,
) -> str:
    """A vertical column chart for a small categorical distribution (letters, ranks).

    A None value (no data for that column) is drawn as "—" with no bar; `top` fixes the
    scale (e.g. 100 for percentages) instead of the largest value.
    """
    if not counts or all(v is None for v in counts.values()):
        return '<p class="muted">no data</p>'
    n = len(counts)
    top = top or max(v or 0 for v in counts.values()) or 1
    base = height - 22
    col_w = (width - 20) / n
    parts = [
        f'<svg class="chart" width="{width}" height="{height}" role="img" viewBox="0 0 {width} {height}">'
    ]
    parts.append(
        f'<line x1="6" y1="{base}" x2="{width - 6}" y2="{base}" stroke="#c5ccd8" stroke-width="1"/>'
    )
    for i, (label, value) in enumerate(counts.items()):
        h = (base - 18) * (value or 0) / top
        x = 10 + i * col_w + col_w * 0.15
        w = col_w * 0.7
        text = "—" if value is None else f"{value:.0f}{unit}" if unit else f"{value:g}"
        parts.append(
            f'<rect x="{x:.1f}" y="{base - h:.1f}" width="{w:.1f}" height="{h:.1f}" rx="3" fill="{colour}"><title>{escape(str(label))}: {text}</title></rect>'
            f'<text x="{x + w / 2:.1f}" y="{base - h - 4:.1f}" text-anchor="middle" class="val">{text}</text>'
            f'<text x="{x + w / 2:.1f}" y="{height - 6}" text-anchor="middle" class="lbl">{escape(str(label))}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _clip(text: str, n: int = 44) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
