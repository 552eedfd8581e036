"""`scigate gate report`: one self-contained, offline HTML file plus summary.json."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from pydantic import BaseModel

from scigate import __version__
from scigate.gate._audit import Audit, audit, latest_results
from scigate.gate._charts import PALETTE, columns, hbar


class ReportFiles(BaseModel):
    """Where the report was written."""

    html: Path
    summary: Path


def build_report(store: Any, out_dir: Path) -> ReportFiles:
    """Audit the database and write report.html and summary.json into `out_dir`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    result = audit(store)
    items = browser_items(store)
    runs = [
        {k: r.get(k) for k in ("id", "kind", "domain", "status", "created_at", "config")}
        for r in store.runs()
    ]
    summary = {
        "scigate_version": __version__,
        "database": str(store.path),
        "generated_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "funnel": result.funnel,
        "audit": result.model_dump(exclude={"funnel"}),
        "runs": runs,
    }
    summary_path = out_dir / "summary.json"
    tmp = summary_path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(summary, indent=2, default=str))
    tmp.replace(summary_path)
    html = render_html(result, items, runs, summary)
    html_path = out_dir / "report.html"
    tmp = html_path.with_suffix(".html.tmp")
    tmp.write_text(html, encoding="utf-8")
    tmp.replace(html_path)
    return ReportFiles(html=html_path, summary=summary_path)


def browser_items(store: Any) -> list[dict[str, Any]]:
    """One record per candidate for the item browser, with every gate record."""
    latest = latest_results(store)
    status: dict[str, str] = {}
    for a in sorted(store.attempts(), key=lambda a: a.get("created_at") or 0):
        if a.get("candidate_id"):
            status[a["candidate_id"]] = a["status"]
    records: dict[str, list[dict[str, Any]]] = {}
    for g in store.gate_results():
        records.setdefault(g["candidate_id"], []).append(
            {
                "gate": g["gate"],
                "screen": g["screen"],
                "outcome": g["outcome"],
                "reason": g["reason"],
                "seconds": g["seconds"],
                "run": g["run_id"],
                "detail": _slim(g.get("detail") or {}),
            }
        )
    items = []
    for c in sorted(store.candidates(), key=lambda c: (c.created_at, c.id)):
        per = latest.get(c.id, {})
        st = status.get(c.id) or _stage(per)
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
                    key=lambda r: (
                        ["verify", "screen", "solve"].index(r["gate"])
                        if r["gate"] in ("verify", "screen", "solve")
                        else 9
                    ),
                ),
            }
        )
    return items


def _stage(per: dict) -> str:
    v = per.get(("verify", ""))
    if v is None:
        return "unverified"
    if v["outcome"] != "pass":
        return "rejected-verify"
    if any(k[0] == "screen" and g["outcome"] != "pass" for k, g in per.items()):
        return "rejected-screen"
    solves = [g for k, g in per.items() if k[0] == "solve"]
    if solves:
        return "accepted" if any(g["outcome"] == "pass" for g in solves) else "unsolved"
    return "screened"


def _slim(detail: dict[str, Any]) -> dict[str, Any]:
    """Gate details without bulky transcripts (kept in the database)."""
    out = dict(detail)
    out.pop("transcript_tail", None)
    for call in out.get("calls", []) or []:
        if isinstance(call.get("reply"), str) and len(call["reply"]) > 1500:
            call["reply"] = call["reply"][:1500] + " …"
    return out


def render_html(result: Audit, items: list[dict], runs: list[dict], summary: dict) -> str:
    """Render the template with inline charts and the embedded item data."""
    env = Environment(
        loader=PackageLoader("scigate.gate", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
    )
    f = result.funnel
    funnel_rows: list[tuple[str, float]] = [
        ("attempts", f["attempts"]),
        ("generated", f["generated"]),
        ("verified", f["verified"]),
    ]
    funnel_rows += [(f"passed {s}", n) for s, n in f["screens"].items()]
    if f["solved"] is not None:
        funnel_rows.append(("solved by tool agent", f["solved"]))
    funnel_rows.append(("unique", f["unique"]))
    charts = {
        "funnel": hbar(funnel_rows, width=720),
        "letters": columns(result.letter_distribution, colour=PALETTE[0]),
        "ranks": columns(
            {f"rank {k}": v for k, v in result.value_rank_distribution.items()}, colour=PALETTE[1]
        ),
        "families": hbar(list(result.families.items())[:12], colour=PALETTE[2]),
        "screens": {
            s.screen: columns(
                {
                    k: (v * 100 if v is not None else 0)
                    for k, v in s.accuracy_by_correct_position.items()
                },
                width=240,
                height=130,
                colour=PALETTE[3],
            )
            for s in result.screens
        },
    }
    data_json = json.dumps(items, default=str).replace("</", "<\\/")
    return env.get_template("report.html.j2").render(
        a=result,
        f=f,
        runs=runs,
        charts=charts,
        items_json=data_json,
        n_items=len(items),
        summary=summary,
        version=__version__,
    )
