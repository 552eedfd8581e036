"""Offline review: the queue as a spreadsheet (one row per item) and its verdicts back in.

`export_csv` writes item_id, item_kind, protocol, the machine's status, question,
options, proposed and gold answer, then for each criterion of the protocol a verdict
column (yes / no / unsure / empty) and a `<criterion>_note` column. `import_csv` checks
every row before it stores anything, with the web app's rules, and stores them all in
one transaction.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scigate.errors import BadInput, BadValue
from scigate.review._items import Item
from scigate.review._protocols import Protocol, get_protocol
from scigate.review._verdicts import Verdict, check_name, check_verdict

if TYPE_CHECKING:
    from scigate.store import Store

FIXED = (
    "item_id",
    "item_kind",
    "protocol",
    "reviewer",
    "machine_status",
    "question",
    "options",
    "proposed",
    "gold",
)


def _cell(value: Any) -> str:
    """Spreadsheet-safe text: a leading = + - @ would be read as a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def export_csv(
    store: Store,
    items: list[Item],
    protocol: Protocol,
    out: Path,
    reviewer: str | None = None,
    bench: Path | None = None,
) -> int:
    """Write the items with empty verdict columns (the reviewer's own verdicts filled in
    when `reviewer` is given; a bench task's options and gold answer from `bench`);
    returns the number of rows."""
    from scigate.review._items import _bench_tasks

    tasks = _bench_tasks(bench)
    mine: dict[tuple[str, str], dict[str, Any]] = {}
    if reviewer:
        for r in store.reviews(protocol=protocol.name):
            if r["reviewer"] == reviewer:
                mine[(r["item_id"], r["criterion"])] = r
    header = [*FIXED]
    for k in protocol.criterion_keys():
        header += [k, f"{k}_note"]
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(header)
    for item in items:
        cand = store.get_candidate(item.id) if item.kind == "candidate" else None
        task = tasks.get(item.id, {})
        options = cand.options if cand else task.get("options")
        gold = task.get("answer")
        row = [
            item.id,
            item.kind,
            protocol.name,
            reviewer or "",
            item.status,
            _cell(item.question),
            _cell(json.dumps(options, ensure_ascii=False) if options else ""),
            _cell(cand.answer if cand else ""),
            _cell(gold if isinstance(gold, str) or gold is None else json.dumps(gold)),
        ]
        for k in protocol.criterion_keys():
            got = mine.get((item.id, k)) or {}
            row += [got.get("verdict", ""), _cell(got.get("note", ""))]
        writer.writerow(row)
    _write_atomic(out, buf.getvalue())
    return len(items)


def _write_atomic(path: Path, text: str) -> None:
    """Write through a temporary file beside `path`, renamed into place (never half a CSV)."""
    if path.is_dir():
        raise BadValue("out", f"must be a file, not the directory {path}")
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError as e:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise BadInput(f"cannot write {path}: {e.strerror or e}") from None


def read_csv_verdicts(
    path: Path,
    *,
    items: list[Item],
    reviewers: set[str],
    reviewer: str | None,
    protocol: Protocol | None,
) -> list[Verdict]:
    """Every verdict of the file, checked; BadInput (naming the line) at the first problem."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise BadInput(f"CSV file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
    reader = csv.DictReader(io.StringIO(text))
    columns = [c.strip() for c in reader.fieldnames or []]
    if "item_id" not in columns:
        raise BadInput(f"{path}: no item_id column (export one with `scigate review export`)")
    kinds = {i.id: i.kind for i in items}
    given = reviewer and check_name(reviewer)
    out: list[Verdict] = []
    for n, raw in enumerate(reader, start=2):
        row = {(k or "").strip(): (v or "") for k, v in raw.items() if k is not None}
        if None in raw:
            raise BadInput(f"{path}:{n}: more cells than columns")
        where = f"{path}:{n}"
        proto = protocol
        if row.get("protocol", "").strip():
            named = get_protocol(row["protocol"])
            if proto is not None and named.name != proto.name:
                raise BadValue(
                    "protocol", f"is {proto.name!r} but {where} names protocol {named.name!r}"
                )
            proto = named
        if proto is None:
            raise BadValue("protocol", f"is needed: {where} has no protocol column value")
        keys = proto.criterion_keys()
        for col in row:
            base = col[: -len("_note")] if col.endswith("_note") else col
            if col not in FIXED and base not in keys:
                raise BadInput(
                    f"{where}: criterion {col!r} is not in the {proto.name} protocol "
                    f"({', '.join(keys)})"
                )
        who = row.get("reviewer", "").strip() or given or ""
        for k in keys:
            verdict = row.get(k, "").strip()
            note = row.get(f"{k}_note", "").strip().removeprefix("'")
            if not verdict:
                if note:
                    raise BadInput(f"{where}: a note for {k!r} without a verdict")
                continue
            out.append(
                check_verdict(
                    {
                        "item_id": row.get("item_id", ""),
                        "reviewer": who,
                        "criterion": k,
                        "verdict": verdict,
                        "note": note,
                    },
                    protocol=proto,
                    kinds=kinds,
                    reviewers=reviewers,
                    where=where,
                )
            )
    if not out:
        raise BadInput(f"{path}: no verdicts to import")
    return out
