"""`scigate gate report`: one self-contained, offline HTML file plus summary.json."""

from __future__ import annotations

import base64
import csv
import datetime as dt
import gzip
import json
import re
import secrets
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader
from pydantic import BaseModel

from scigate import __version__
from scigate._atomic import atomic_writer, write_text_atomic
from scigate.errors import BadInput, BadValue
from scigate.gate._audit import (
    Audit,
    Latest,
    audit,
    audit_view,
    candidate_domains,
    candidate_records,
    gate_rows,
    gc_paused,
    latest_results,
    pool_scopes,
)
from scigate.gate._charts import PALETTE, columns, hbar
from scigate.gate._katex import katex_assets
from scigate.gate._workers import distinct_executors, executor_text
from scigate.store import CandidateRecord, Store, candidate_status

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
    #: every candidate's id, status, family and question (None: not written)
    items: Path | None = None


def build_report(store: Store, out_dir: Path) -> ReportFiles:
    """Audit the database and write report.html and summary.json into `out_dir`."""
    if out_dir.exists() and not out_dir.is_dir():
        raise BadValue("out_dir", f"must be a directory, not the file {out_dir}")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BadInput(f"cannot create {out_dir}: {e.strerror or e}") from None
    with gc_paused():  # see gc_paused: many long-lived containers, no cycles
        # one pass over the candidates in browser order, DETAIL_BLOCK at a time: each
        # block's item data is packed at once (replies are not kept), the audit gets
        # its slim records and gate-result views
        items = _ItemPass(store)
        latest = items.latest()
        domains = candidate_domains(store)  # read once: the statuses and the audit's
        statuses = _statuses(store, latest, domains)
        candidates = items.candidates()
        accepted = [c.id for c in candidates if statuses[c.id] == "accepted"]
        result = audit(
            store, candidates=candidates, latest=latest, accepted=accepted, domains=domains
        )
        del latest
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
        csv_path = out_dir / ITEMS_CSV
        with atomic_writer(csv_path) as fh:
            payload = items.payload(statuses, fh)
        html_path = out_dir / "report.html"
        write_text_atomic(html_path, render_html(result, payload, runs, summary, ITEMS_CSV))
    return ReportFiles(html=html_path, summary=summary_path, items=csv_path)


#: The complete item list beside the page (the page shows it 50 items a page).
ITEMS_CSV = "items.csv"
ITEMS_CSV_FIELDS = ("id", "status", "family", "duplicate_of", "answer", "question")
#: What `_ItemPass` keeps of each item until the statuses are known.
_KEPT = ("id", "family", "question", "duplicate_of", "answer")


class _ItemPass:
    """The report's one read of the database: the candidates in browser order
    (created_at, id), _READ_BLOCKS blocks of DETAIL_BLOCK at a time, their candidates and
    gate results by id (indexed). Each block's item details are packed (`_pack`) as it is read; what the
    audit needs is kept (candidate records without solution, `audit_view` of each gate
    result) and, until the statuses are known, the `_KEPT` fields of each item."""

    def __init__(self, store: Store, block: int = DETAIL_BLOCK) -> None:
        self.store, self.block = store, block
        self.order = store.candidate_ids_by_age()
        self.kept: list[tuple[Any, ...]] = []
        self.details: list[str] = []
        self._records: list[tuple[int, CandidateRecord]] = []
        #: candidate id -> the id of its first gate result (rows come in id order per
        #: candidate, and each candidate's rows in one query)
        self._first: dict[str, int] = {}

    def latest(self) -> Latest:
        """Read everything; the latest gate results, candidates in the order in which
        their first gate result was stored (as `latest_results` over `audit_rows`)."""
        latest = latest_results(self.store, self._views())
        out: Latest = defaultdict(dict)
        for cid in sorted(self._first, key=self._first.__getitem__):
            out[cid] = latest[cid]
        return out

    def candidates(self) -> list[CandidateRecord]:
        """The candidates as `audit_candidates` gives them (rowid order, no solution)."""
        self._records.sort(key=lambda r: r[0])
        return [c for _, c in self._records]

    def _views(self) -> Iterator[dict[str, Any]]:
        step, first = self.block * _READ_BLOCKS, self._first
        for k in range(0, len(self.order), step):
            ids = self.order[k : k + step]
            rows = {}
            for row in self.store.candidates_with_rowid(ids):
                rows[row["id"]] = row
                slim = {c: v for c, v in row.items() if c not in _NOT_AUDITED}
                self._records.append((row["rowid"], next(candidate_records([slim]))))
            records: dict[str, list[dict[str, Any]]] = {}
            for g in self.store.gate_results_of_candidates(ids, texts=True):
                text = g.pop("detail_text")
                cid = g["candidate_id"]
                first.setdefault(cid, g["id"])
                records.setdefault(cid, []).append(_record(g, text))
                yield audit_view(g)
            for b in range(0, len(ids), self.block):
                items = [
                    _item_of_row(rows[cid], records.get(cid, [])) for cid in ids[b : b + self.block]
                ]
                self.kept += [tuple(i[f] for f in _KEPT) for i in items]
                self.details.append(
                    _pack([{f: v for f, v in i.items() if f not in INDEX_FIELDS} for i in items])
                )
        # gate results of no stored candidate count in the audit (as `audit_rows` has them)
        for g in self.store.gate_results_without_candidate():
            first.setdefault(g["candidate_id"], g["id"])
            yield audit_view(g)

    def payload(self, statuses: dict[str, str], fh: Any) -> dict[str, Any]:
        """The item data as `pack_items` has it, the index compressed as a stream; each
        item's ITEMS_CSV_FIELDS written to `fh` as CSV."""
        writer = csv.writer(fh)
        writer.writerow(ITEMS_CSV_FIELDS)
        index = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 31)  # 31: a gzip stream
        chunks = [index.compress(b"[")]
        for k in range(0, len(self.kept), self.block):
            entries = [
                dict(zip(_KEPT, kept, strict=True)) | {"status": statuses[kept[0]]}
                for kept in self.kept[k : k + self.block]
            ]
            writer.writerows([_csv_cell(e.get(f)) for f in ITEMS_CSV_FIELDS] for e in entries)
            raw = _json_bytes([{f: e[f] for f in INDEX_FIELDS} for e in entries])
            chunks.append(index.compress((b"," if k else b"") + raw[1:-1]))
        chunks += [index.compress(b"]"), index.flush()]
        return {
            "encoding": "gzip+base64",
            "count": len(self.kept),
            "block": DETAIL_BLOCK,
            "index": base64.b64encode(b"".join(chunks)).decode("ascii"),
            "details": self.details,
        }


#: `_ItemPass` reads this many blocks of candidates per query (fewer statements).
_READ_BLOCKS = 4
#: Candidate columns the audit does not read (`audit_candidates` leaves them out).
_NOT_AUDITED = frozenset({"rowid", "solution", "generator", "answer_value"})


def _status_of(
    store: Store, latest: Latest, domains: dict[str, str] | None = None
) -> Callable[[str], str]:
    """candidate id -> its status (`scigate.store.candidate_status`), each candidate held
    to the screens and tool gate of its own domain when the database has several, as
    `v_candidate_status` and the release pool (`pool_scopes`) hold it (`domains`:
    `candidate_domains(store)`, read when not given)."""
    screens = sorted({k[1] for per in latest.values() for k in per if k[0] == "screen"})
    domains = domains if domains is not None else candidate_domains(store)
    scope = pool_scopes(latest, screens, domains.keys() | latest.keys(), domains)
    any_solve = any(k[0] == "solve" for per in latest.values() for k in per)

    def status(cid: str) -> str:
        own, solve = scope.get(cid, (screens, any_solve))
        return candidate_status(latest.get(cid, {}), screens=len(own), any_solve=solve)

    return status


def _statuses(
    store: Store, latest: Latest, domains: dict[str, str] | None = None
) -> dict[str, str]:
    """Each candidate's status as `browser_items` has it (`_status_of`)."""
    status = _status_of(store, latest, domains)
    return defaultdict(lambda: status(""), {cid: status(cid) for cid in latest})


def _csv_cell(value: Any) -> str:
    """A CSV cell; text a spreadsheet would read as a formula (=, +, -, @, tab, CR first)
    gets a leading apostrophe (questions and families are model-written)."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def runs_with_executors(store: Store) -> list[dict[str, Any]]:
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
    store: Store,
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
    status = _status_of(store, latest)
    return [
        _item(c, status(c.id), records.get(c.id, []))
        for c in sorted(cands, key=lambda c: (c.created_at, c.id))
    ]


def _item(c: CandidateRecord, status: str, records: list[dict[str, Any]]) -> dict[str, Any]:
    """One candidate's record in the item browser (`records`: its gate records, id order)."""
    return {
        "id": c.id,
        "family": c.family or "",
        "status": status,
        "question": c.question,
        "options": c.options,
        "answer": c.answer,
        "solution": c.solution,
        "duplicate_of": c.duplicate_of,
        "generator": c.generator or "",
        "gates": sorted(records, key=_gate_rank),
    }


def _item_of_row(row: dict[str, Any], records: list[dict[str, Any]]) -> dict[str, Any]:
    """`_item` of a candidate row (status left out: `_ItemPass` adds it to the index)."""
    return {
        "id": row["id"],
        "family": row["family"] or "",
        "question": row["question"],
        "options": row["options"],
        "answer": row["answer"],
        "solution": row["solution"],
        "duplicate_of": row["duplicate_of"],
        "generator": row["generator"] or "",
        "gates": sorted(records, key=_gate_rank),
    }


#: gate -> its place in GATE_ORDER (other gates after those)
_GATE_RANK = {gate: k for k, gate in enumerate(GATE_ORDER)}


def _gate_rank(record: dict[str, Any]) -> int:
    return _GATE_RANK.get(record["gate"], 9)


def _record(g: dict[str, Any], text: str | None = None) -> dict[str, Any]:
    """A gate result as the item browser shows it. `text`, the detail's JSON as stored,
    is written out as it is (`_Stored`) when `_slim` leaves the detail unchanged."""
    detail = g.get("detail") or {}
    slim = _slim(detail)
    return {
        "gate": g["gate"],
        "screen": g["screen"],
        "outcome": g["outcome"],
        "reason": g["reason"],
        "seconds": g["seconds"],
        "run": g["run_id"],
        "detail": _Stored(text) if text is not None and slim is detail and detail else slim,
    }


class _Stored:
    """A gate detail's JSON text as the database holds it, put into the item data as it
    is (`_json_bytes`): the detail is not encoded again (the stored text differs from a
    new encoding only in white space: `json.dumps`' default ", " and ": ")."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _slim(detail: dict[str, Any]) -> dict[str, Any]:
    """Gate details without bulky transcripts (kept in the database). Details with
    nothing to cut are returned as they are (the records are only serialized)."""
    if isinstance(detail, dict) and "transcript_tail" not in detail:
        calls = detail.get("calls")
        if calls is None:
            return detail
        if isinstance(calls, list):
            for c in calls:
                if type(c) is not dict:
                    break
                reply = c.get("reply")
                if type(reply) is str and len(reply) > REPLY_CHARS:
                    break
            else:
                return detail
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


def render_html(
    result: Audit,
    items: list[dict] | dict[str, Any],
    runs: list[dict],
    summary: dict,
    items_csv: str | None = None,
) -> str:
    """Render the template with inline charts and the embedded item data.

    Every value is HTML-escaped (autoescape on for every template, whatever its name):
    questions, options, families, reasons and specs come from generators, candidates
    and models. The template's only `|safe` values are the SVG charts (`_charts`
    escapes each label), the item data (base64 in JSON, `<` written as `\\u003c`) and
    the bundled KaTeX (`_katex`); the page's script escapes whatever it puts into the
    item browser, and KaTeX typesets that escaped text with `trust` off (no links).
    `items` is the item list or its payload, already packed (`pack_item_blocks`);
    `items_csv` names the complete item list written beside the page, if any."""
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
    payload = items if isinstance(items, dict) else pack_items(items)
    data_json = json.dumps(payload).replace("<", "\\u003c")
    return env.get_template("report.html.j2").render(
        a=result,
        f=f,
        runs=runs,
        charts=charts,
        items_json=data_json,
        n_items=payload["count"],
        items_csv=items_csv,
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
    blocks = (items[k : k + DETAIL_BLOCK] for k in range(0, len(items), DETAIL_BLOCK))
    return pack_item_blocks(blocks, len(items))


def pack_item_blocks(blocks: Iterable[list[dict[str, Any]]], count: int) -> dict[str, Any]:
    """`pack_items` of the items given DETAIL_BLOCK at a time (the last block may be
    shorter): each block is packed as it comes and the index is compressed as a stream,
    so only one block's items are held."""
    index = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 31)  # 31: a gzip stream
    chunks: list[bytes] = [index.compress(b"[")]
    details = []
    first = True
    for items in blocks:
        if items:  # one dumps per block: the list's brackets off, its items comma-joined
            entries = _json_bytes([{k: item.get(k) for k in INDEX_FIELDS} for item in items])
            chunks.append(index.compress((b"" if first else b",") + entries[1:-1]))
            first = False
        details.append(
            _pack([{k: v for k, v in i.items() if k not in INDEX_FIELDS} for i in items])
        )
    chunks += [index.compress(b"]"), index.flush()]
    return {
        "encoding": "gzip+base64",
        "count": count,
        "block": DETAIL_BLOCK,
        "index": base64.b64encode(b"".join(chunks)).decode("ascii"),
        "details": details,
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


def _json_bytes(value: Any) -> bytes:
    """`value` as compact JSON (UTF-8); each `_Stored` in it is its text, spliced in."""
    stored: list[str] = []

    def marked(o: Any) -> Any:
        if type(o) is _Stored:
            stored.append(o.text)
            return _MARK
        return str(o)

    text = json.dumps(value, default=marked, ensure_ascii=False, separators=(",", ":"))
    if stored:
        parts = text.split(_MARKED)
        if len(parts) != len(stored) + 1:  # a string of the data holds the mark: decode
            return json.dumps(
                value, default=_decoded, ensure_ascii=False, separators=(",", ":")
            ).encode()
        pairs = zip(parts[:-1], stored, strict=True)
        text = "".join([p for pair in pairs for p in pair] + [parts[-1]])
    return text.encode()


#: What `_json_bytes` writes in place of a `_Stored` and then replaces by its text: a
#: NUL and a random tag (no stored string holds it, and the count is checked anyway).
_MARK = "\x00" + secrets.token_hex(8)
_MARKED = json.dumps(_MARK)


def _decoded(o: Any) -> Any:
    return json.loads(o.text) if type(o) is _Stored else str(o)


def _pack(value: Any) -> str:
    raw = _json_bytes(value)
    return base64.b64encode(gzip.compress(raw, compresslevel=GZIP_LEVEL, mtime=0)).decode("ascii")


def _unpack(blob: str) -> Any:
    return json.loads(gzip.decompress(base64.b64decode(blob)))
