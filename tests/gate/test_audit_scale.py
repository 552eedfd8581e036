"""The streaming audit and report against kept references, on a few hundred candidates.

`data/audit_reference.json` is the audit JSON the previous (load-everything)
implementation produced on `build_scale_db`'s database; the audit must reproduce it
exactly. One value was corrected since: `invariance_unchecked` is 122 (the verified
candidates with no gate-1b result, checked in SQL), where the old code counted 60 after
the screens had thinned the candidates out. The report must carry every candidate, each with all of its gate records, as
`browser_items` (the reference, which loads everything at once) lists them.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from scigate.gate._audit import audit, audit_candidates, audit_rows, latest_results
from scigate.gate._report import (
    _MARK,
    REPLY_CHARS,
    _csv_cell,
    _ItemPass,
    _json_bytes,
    _slim,
    _statuses,
    _Stored,
    browser_items,
    build_report,
    embedded_items,
    unpack_items,
)
from scigate.store import Store

from ._scaledb import build_scale_db

REFERENCE = Path(__file__).parent / "data" / "audit_reference.json"


@pytest.fixture(scope="module")
def scale_db(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("scale") / "runs.db"
    ids = build_scale_db(path)
    store = Store(path, create=False)
    yield store, ids
    store.close()


def test_csv_cells_that_a_spreadsheet_would_run_are_inert() -> None:
    assert _csv_cell("=HYPERLINK(1)") == "'=HYPERLINK(1)"
    assert _csv_cell("@SUM(A1)") == "'@SUM(A1)"
    assert _csv_cell(None) == "" and _csv_cell("Solve -div") == "Solve -div"


def test_audit_json_equals_the_kept_reference(scale_db) -> None:
    store, _ = scale_db
    got = json.loads(audit(store).model_dump_json())
    assert got == json.loads(REFERENCE.read_text())


def test_report_carries_every_candidate_with_all_its_records(scale_db, tmp_path: Path) -> None:
    store, ids = scale_db
    files = build_report(store, tmp_path / "out")
    items = embedded_items(files.html.read_text(encoding="utf-8"))
    assert sorted(i["id"] for i in items) == sorted(ids)
    assert items == json.loads(json.dumps(browser_items(store), default=str))
    # the complete list beside the page: every candidate, as the browser lists it
    with files.items.open(newline="", encoding="utf-8") as fh:
        listed = list(csv.DictReader(fh))
    assert [r["id"] for r in listed] == [i["id"] for i in items]
    assert [r["status"] for r in listed] == [i["status"] for i in items]
    assert [r["question"] for r in listed] == [i["question"] for i in items]
    assert "<code>items.csv</code>" in files.html.read_text(encoding="utf-8")
    summary = json.loads(files.summary.read_text(encoding="utf-8"))
    reference = json.loads(REFERENCE.read_text())
    assert summary["funnel"] == reference.pop("funnel")
    assert summary["audit"] == reference


def test_slim_cuts_long_replies_and_transcripts_and_keeps_the_rest() -> None:
    short = {"calls": [{"reply": "x" * REPLY_CHARS, "order": ["A"]}], "shuffled": True}
    assert _slim(short) is short  # nothing to cut: not copied
    long = {"calls": [{"reply": "y" * (REPLY_CHARS + 1)}, {"reply": "z"}], "transcript_tail": "t"}
    got = _slim(long)
    assert got == {"calls": [{"reply": "y" * REPLY_CHARS + " …"}, {"reply": "z"}]}
    assert long["calls"][0]["reply"] == "y" * (REPLY_CHARS + 1)  # the row is not changed
    assert _slim({"calls": None, "a": 1}) == {"calls": None, "a": 1}


def test_stored_details_are_spliced_in_as_stored_and_decode_the_same() -> None:
    """`_json_bytes` writes a `_Stored` detail's text as it is; a string of the data that
    holds the mark it splices at is detected, and the block is then encoded anew."""
    text = '{"calls": [{"reply": "\\u00e9t\\u00e9", "order": ["B", "A"]}], "x": 1.50}'
    value = [{"gate": "screen", "detail": _Stored(text)}, {"gate": "verify", "detail": {}}]
    out = _json_bytes(value).decode()
    assert text in out  # spliced as stored (white space and escapes kept)
    expected = [{"gate": "screen", "detail": json.loads(text)}, {"gate": "verify", "detail": {}}]
    assert json.loads(out) == expected
    # a reply holding the mark: where its encoding holds the encoded mark (quotes
    # included), the block is decoded and encoded anew; either way the data is the same
    for forged, anew in ((_MARK, True), ('x"' + _MARK, True), ("a" + _MARK, False)):
        out = _json_bytes([*value, {"reply": forged}]).decode()
        assert (text not in out) is anew
        assert json.loads(out) == [*expected, {"reply": forged}]


def test_item_pass_in_small_blocks_reads_what_the_whole_database_gives(scale_db) -> None:
    store, _ = scale_db
    items = _ItemPass(store, block=7)  # 43 detail blocks, read 28 candidates at a time
    latest = items.latest()
    assert latest == latest_results(store, audit_rows(store))
    assert list(latest) == list(latest_results(store, audit_rows(store)))  # same order
    assert items.candidates() == audit_candidates(store)
    listed = io.StringIO()
    payload = items.payload(_statuses(store, latest), listed)
    assert len(payload["details"]) == 43
    assert unpack_items(payload) == json.loads(json.dumps(browser_items(store), default=str))
    assert len(listed.getvalue().splitlines()) == 301
