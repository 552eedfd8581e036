"""`gate audit` and `gate report` show the review beside the machine's verdicts."""

from __future__ import annotations

import json
from pathlib import Path

from _cli import run_main
from scigate.gate._export import accepted_records
from scigate.store import Store

from .conftest import vote


def test_audit_and_html_report_show_the_review(
    gate_db: tuple[Path, list[str]], tmp_path: Path
) -> None:
    path, _ = gate_db
    with Store(path) as store:
        first, second = (r["id"] for r in accepted_records(store))
        for name in ("Ada", "Bo", "Cy"):
            vote(store, first, name, "yes")
        vote(store, second, "Bo", {"correct": "no"})
    code, stdout, stderr = run_main("gate", "audit", "--db", str(path))
    assert code == 0, stderr
    assert "review (toolgate" in stdout
    assert "approved 1, rejected 0, sent-back 1" in stdout
    code, stdout, _ = run_main("gate", "audit", "--db", str(path), "--json")
    review = json.loads(stdout)["review"]
    assert review["decisions"]["approved"] == 1 and review["reviewers"] == ["Ada", "Bo", "Cy"]
    assert review["agreement_with_majority"]["Ada"] == {"subjects": 4, "agree": 4, "rate": 1.0}
    out = tmp_path / "report"
    code, _, stderr = run_main("gate", "report", "--db", str(path), "--out", str(out))
    assert code == 0, stderr
    html = (out / "report.html").read_text()
    assert '<section id="review">' in html and "Expert review" in html
    assert "any &#39;no&#39; on correct sends the item back" in html
    summary = json.loads((out / "summary.json").read_text())
    assert summary["audit"]["review"]["decisions"]["sent-back"] == 1


def test_the_report_summarises_the_same_items_as_the_audit(
    gate_db: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """The report passes its own statuses as the accepted items (it does not load the
    review queue); the summary must equal the audit's, which loads every item: accepted
    items plus any other reviewed candidate (here a rejected one)."""
    path, _ = gate_db
    with Store(path) as store:
        status = {
            r["candidate_id"]: r["status"]
            for r in store.query("SELECT candidate_id, status FROM v_candidate_status")
        }
        accepted = [i for i, s in status.items() if s == "accepted"]
        rejected = next(i for i, s in status.items() if s != "accepted")
        for name in ("Ada", "Bo"):
            vote(store, accepted[0], name, "yes")
            vote(store, rejected, name, "no")
    code, stdout, stderr = run_main("gate", "audit", "--db", str(path), "--json")
    assert code == 0, stderr
    audited = json.loads(stdout)["review"]
    assert audited["items"] == len(accepted) + 1 and audited["reviewed"] == 2
    out = tmp_path / "report"
    code, _, stderr = run_main("gate", "report", "--db", str(path), "--out", str(out))
    assert code == 0, stderr
    assert json.loads((out / "summary.json").read_text())["audit"]["review"] == audited
