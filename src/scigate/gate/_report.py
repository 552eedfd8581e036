"""`scigate gate report`: one self-contained, offline HTML file plus summary.json."""

from __future__ import annotations

import base64
import datetime as dt
import gzip
import json
import re
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader
from pydantic import BaseModel

from scigate import __version__
from scigate._atomic import write_text_atomic
from scigate.errors import BadInput
from scigate.gate._audit import (
    Audit,
    Latest,
    audit,
    audit_candidates,
    audit_view,
    gate_pages,
    gate_rows,
    gc_paused,
    latest_results,
)
from scigate.gate._charts import PALETTE, columns, hbar
from scigate.gate._katex import katex_assets
from scigate.gate._workers import distinct_executors, executor_text
from scigate.store import CandidateRecord, candidate_status

#: Screen replies are cut to this many characters in the report (the database keeps them whole).
REPLY_CHARS = 1200
#: Item fields the browser's list needs at once (filtering, rows); the rest of each item
#: is packed in blocks of DETAIL_BLOCK items, decompressed only when an item is opened.
INDEX_FIELDS = ("id", "status", "family", "question", "duplicate_of")
DETAIL_BLOCK = 250
#: gates in the order a candidate meets them (the item browser lists records so)
GATE_ORDER = ("verify", "invariance", "screen", "solve")
#: gzip level of the embedded item data (6 halves the size of level 1 for a few 100 ms).
GZIP_LEVEL = 6


class ReportFiles(BaseModel):
    """Where the report was written."""

    html: Path
    summary: Path


def build_report(store: Any, out_dir: Path) -> ReportFiles:
    """Audit the database and write report.html and summary.json into `out_dir`."""
    if out_dir.exists() and not out_dir.is_dir():
        raise BadInput(f"--out must be a directory, not the file {out_dir}")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BadInput(f"cannot create {out_dir}: {e.strerror or e}") from None
    with gc_paused():  # see gc_paused: many long-lived containers, no cycles
        candidates = audit_candidates(store, solutions=True)  # no meta: neither reads it
        # one pass over the gate results, page by page: each row becomes its browser
        # record and its audit view, and is not kept whole (replies and transcripts)
        records: dict[str, list[dict[str, Any]]] = {}

        def views() -> Any:
            for page in gate_pages(store):
                for g in page:
                    records.setdefault(g["candidate_id"], []).append(_record(g))
                    yield audit_view(g)

        latest = latest_results(store, views())
        result = audit(store, candidates=candidates, latest=latest)
        items = browser_items(store, candidates=candidates, latest=latest, records=records)
        runs = runs_with_executors(store)
        summary = {
            "scigate_version": __version__,
            "database": str(store.path),
            "generated_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "funnel": result.funnel,
            "audit": result.model_dump(exclude={"funnel"}),
            "runs": runs,
        }
        summary_path = out_dir / "summary.json"
        write_text_atomic(summary_path, json.dumps(summary, indent=2, default=str))
        html_path = out_dir / "report.html"
        write_text_atomic(html_path, render_html(result, items, runs, summary))
    return ReportFiles(html=html_path, summary=summary_path)


def runs_with_executors(store: Any) -> list[dict[str, Any]]:
    """Every run with the executors that ran it: `executors` holds one `executor` event's
    data per start and resume, oldest first (a resume may have run elsewhere)."""
    ran_on: dict[str, list[dict[str, Any]]] = {}
    for event in store.events(kind="executor"):
        ran_on.setdefault(event["run_id"], []).append(event["data"])
    return [
        {k: r.get(k) for k in ("id", "kind", "domain", "status", "created_at", "config")}
        | {"executors": ran_on.get(r["id"], [])}
        for r in store.runs()
    ]


def browser_items(
    store: Any,
    *,
    candidates: list[CandidateRecord] | None = None,
    latest: Latest | None = None,
    rows: list[dict[str, Any]] | None = None,
    records: dict[str, list[dict[str, Any]]] | None = None,
) -> list[dict[str, Any]]:
    """One record per candidate for the item browser, with every gate record.

    The status comes from the latest result of each gate across all runs, so a rescreen
    that rejects a candidate the loop accepted shows it as rejected; it is the status
    `v_candidate_status` gives (`scigate.store.candidate_status`, docs/outcomes.md).
    `candidates`, `latest` and `rows` (from `gate_rows`) or `records` (candidate id ->
    `_record` of each of its gate results, in id order) may be passed in when already loaded.
    """
    if records is None:
        rows = rows if rows is not None else gate_rows(store)
        latest = latest if latest is not None else latest_results(store, rows)
        records = {}
        for g in rows:
            records.setdefault(g["candidate_id"], []).append(_record(g))
    latest = latest if latest is not None else latest_results(store)
    cands = candidates if candidates is not None else store.candidates()
    screens = len({k for per in latest.values() for k in per if k[0] == "screen"})
    any_solve = any(k[0] == "solve" for per in latest.values() for k in per)
    items = []
    for c in sorted(cands, key=lambda c: (c.created_at, c.id)):
        st = candidate_status(latest.get(c.id, {}), screens=screens, any_solve=any_solve)
        items.append(
            {
                "id": c.id,
                "family": c.family or "",
                "status": st,
                "question": c.question,
                "options": c.options,
                "answer": c.answer,
                "solution": c.solution,
                "duplicate_of": c.duplicate_of,
                "generator": c.generator or "",
                "gates": sorted(
                    records.get(c.id, []),
                    key=lambda r: GATE_ORDER.index(r["gate"]) if r["gate"] in GATE_ORDER else 9,
                ),
            }
        )
    return items


def _record(g: dict[str, Any]) -> dict[str, Any]:
    """A gate result as the item browser shows it."""
    return {
        "gate": g["gate"],
        "screen": g["screen"],
        "outcome": g["outcome"],
        "reason": g["reason"],
        "seconds": g["seconds"],
        "run": g["run_id"],
        "detail": _slim(g.get("detail") or {}),
    }


def _slim(detail: dict[str, Any]) -> dict[str, Any]:
    """Gate details without bulky transcripts (kept in the database)."""
    out = dict(detail)
    out.pop("transcript_tail", None)
    calls = []
    for call in out.get("calls", []) or []:
        call = dict(call)
        if isinstance(call.get("reply"), str) and len(call["reply"]) > REPLY_CHARS:
            call["reply"] = call["reply"][:REPLY_CHARS] + " …"
        calls.append(call)
    if calls:
        out["calls"] = calls
    return out


def render_html(result: Audit, items: list[dict], runs: list[dict], summary: dict) -> str:
    """Render the template with inline charts and the embedded item data.

    Every value is HTML-escaped (autoescape on for every template, whatever its name):
    questions, options, families, reasons and specs come from generators, candidates
    and models. The template's only `|safe` values are the SVG charts (`_charts`
    escapes each label), the item data (base64 in JSON, `<` written as `\\u003c`) and
    the bundled KaTeX (`_katex`); the page's script escapes whatever it puts into the
    item browser, and KaTeX typesets that escaped text with `trust` off (no links)."""
    env = Environment(loader=PackageLoader("scigate.gate", "templates"), autoescape=True)
    f = result.funnel
    funnel_rows: list[tuple[str, float]] = [
        ("attempts", f["attempts"]),
        ("generated", f["generated"]),
        ("verified", f["verified"]),
    ]
    if f.get("invariant") is not None:
        funnel_rows.append(("invariant (gate 1b)", f["invariant"]))
    funnel_rows += [(f"passed {s}", n) for s, n in f["screens"].items()]
    if f["solved"] is not None:
        funnel_rows.append(("solved by tool agent", f["solved"]))
    funnel_rows.append(("unique", f["unique"]))
    charts = {
        "funnel": hbar(funnel_rows, width=720),
        "letters": columns(
            result.letter_distribution if result.verified else {}, colour=PALETTE[0]
        ),
        "ranks": columns(
            {
                ("n/a" if k == "non-numeric" else k): v
                for k, v in result.value_rank_distribution.items()
            }
            if result.verified
            else {},
            width=340,
            colour=PALETTE[1],
        ),
        "families": hbar(list(result.families.items())[:12], colour=PALETTE[2]),
        "screens": {
            s.screen: columns(
                {
                    k: (v * 100 if v is not None else None)
                    for k, v in s.accuracy_by_correct_position.items()
                },
                width=260,
                height=140,
                colour=PALETTE[3],
                unit="%",
                top=100,
            )
            for s in result.screens
        },
    }
    charts |= _pool_and_gate_charts(result)
    # The payload is ASCII (base64); "<" as \u003c would keep "</script>" from ending the block.
    data_json = json.dumps(pack_items(items)).replace("<", "\\u003c")
    return env.get_template("report.html.j2").render(
        a=result,
        f=f,
        runs=runs,
        charts=charts,
        items_json=data_json,
        n_items=len(items),
        summary=summary,
        version=__version__,
        executor_text=executor_text,
        ran_on=distinct_executors([e for r in runs for e in r.get("executors", [])]),
        katex=katex_assets(),
    )


def _pool_and_gate_charts(result: Audit) -> dict[str, Any]:
    """Charts of the accepted pool's letters and value ranks and of rejections per gate."""
    pool = result.pool_size > 0
    return {
        "pool_letters": columns(
            result.pool_letter_distribution if pool else {}, width=300, colour=PALETTE[0]
        ),
        "pool_ranks": columns(
            {
                ("n/a" if k == "non-numeric" else k): v
                for k, v in result.pool_value_rank_distribution.items()
            }
            if pool
            else {},
            width=340,
            colour=PALETTE[1],
        ),
        "rejections": hbar(
            [(g.gate, g.rejected + g.errors) for g in result.rejections.gates],
            colour=PALETTE[3],
        ),
    }


def pack_items(items: list[dict[str, Any]]) -> dict[str, Any]:
    """The item browser's data as embedded in the page: gzip-compressed, base64-encoded.

    `index` holds the INDEX_FIELDS of every item (the list and its filters); `details`
    holds the other fields in blocks of `block` items, in the same order, so the page
    decompresses a block only when one of its items is opened.
    """
    index = [{k: item.get(k) for k in INDEX_FIELDS} for item in items]
    rest = [{k: v for k, v in item.items() if k not in INDEX_FIELDS} for item in items]
    return {
        "encoding": "gzip+base64",
        "count": len(items),
        "block": DETAIL_BLOCK,
        "index": _pack(index),
        "details": [_pack(rest[k : k + DETAIL_BLOCK]) for k in range(0, len(rest), DETAIL_BLOCK)],
    }


def unpack_items(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The inverse of `pack_items`: every item with all its fields."""
    if payload.get("encoding") != "gzip+base64":
        raise ValueError(f"unknown item data encoding {payload.get('encoding')!r}")
    index = _unpack(payload["index"])
    rest = [d for block in payload["details"] for d in _unpack(block)]
    return [i | d for i, d in zip(index, rest, strict=True)]


def embedded_items(html: str) -> list[dict[str, Any]]:
    """The item data embedded in a report page, decoded (for tests and other tools)."""
    found = re.search(r'<script id="items-data" type="application/json">(.*?)</script>', html, re.S)
    if found is None:
        raise ValueError("no item data in this page")
    return unpack_items(json.loads(found.group(1)))


def _pack(value: Any) -> str:
    raw = json.dumps(value, default=str, ensure_ascii=False, separators=(",", ":")).encode()
    return base64.b64encode(gzip.compress(raw, compresslevel=GZIP_LEVEL, mtime=0)).decode("ascii")


def _unpack(blob: str) -> Any:
    return json.loads(gzip.decompress(base64.b64decode(blob)))
