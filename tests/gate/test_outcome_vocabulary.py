"""One outcome vocabulary (docs/outcomes.md): the views, the CLI's funnel, the report, the
export and the loop name and count outcomes alike."""

from __future__ import annotations

import ast
import json
import re
import sqlite3
from pathlib import Path

import pytest

from _gate_runs import scigate_in_process
from scigate.gate import _loop
from scigate.gate._export import accepted_records
from scigate.gate._funnel import funnel_of_run
from scigate.gate._report import browser_items, build_report, embedded_items
from scigate.store import (
    ATTEMPT_STATUSES,
    CANDIDATE_STATUSES,
    GATE_OUTCOMES,
    CandidateRecord,
    Store,
)

from ._dbfactory import FIXED, build_db

DOC = Path(__file__).resolve().parents[2] / "docs" / "outcomes.md"
# v_funnel's column for each field of the CLI's funnel (`Funnel`) it also counts
SAME = {
    "generated": "generated",
    "generator_failed": "generator_failed",
    "near_duplicates": "near_duplicates",
    "verified": "verified",
    "solved": "solved",
    "unsolved": "unsolved",
    "accepted": "accepted",
    "unique": "accepted_unique",
    "duplicates": "duplicates",
    "errors": "errors",
}


def _table(heading: str) -> list[str]:
    """The first column of the table under `heading` in docs/outcomes.md."""
    section = DOC.read_text().split(heading, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([a-z-]+)` \|", section, re.M)


def test_the_doc_table_is_the_exported_vocabulary() -> None:
    assert sorted(_table("## Gate outcomes")) == sorted(GATE_OUTCOMES)
    assert sorted(_table("## Candidate statuses")) == sorted(CANDIDATE_STATUSES)
    assert sorted(_table("## Attempt statuses")) == sorted(ATTEMPT_STATUSES)


def test_the_loop_writes_only_attempt_statuses() -> None:
    """Every status the loop returns or records is in the vocabulary."""
    tree = ast.parse(Path(_loop.__file__).read_text())
    written: set[str] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.keyword)
            and node.arg == "status"
            and isinstance(node.value, ast.Constant)
        ):
            written.add(node.value.value)
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
            first = node.value.elts[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                written.add(first.value)
        if (  # status, reason, detail = "rejected-...", ...
            isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Tuple)
            and isinstance(node.targets[0].elts[0], ast.Name)
            and node.targets[0].elts[0].id == "status"
            and isinstance(node.value, ast.Tuple)
            and isinstance(node.value.elts[0], ast.Constant)
        ):
            written.add(node.value.elts[0].value)
    assert {"accepted", "screened", "unsolved", "rejected-verify", "rejected-duplicate"} <= written
    assert written <= set(ATTEMPT_STATUSES), written - set(ATTEMPT_STATUSES)


def _view_statuses(store: Store) -> dict[str, str]:
    rows = store.query("SELECT candidate_id, status FROM v_candidate_status")
    return {r["candidate_id"]: r["status"] for r in rows}


def test_view_report_funnel_and_export_agree_on_the_hand_made_database(tmp_path: Path) -> None:
    store, _ = build_db(tmp_path / "runs.db")
    # and one candidate only gate 1 has seen, one a near duplicate: pending, rejected-duplicate
    for k, gate in enumerate(("verify", "duplicate")):
        cid, _ = store.add_candidate(
            CandidateRecord(run_id="run-1", question=f"extra {k}?", options={"A": "1"}, answer="A")
        )
        store.add_gate_result("run-1", cid, gate, outcome="pass" if k == 0 else "fail")
    view = _view_statuses(store)
    report = {i["id"]: i["status"] for i in browser_items(store)}
    assert report == view
    assert set(view.values()) <= set(CANDIDATE_STATUSES)
    assert {"accepted", "rejected-screen", "rejected-verify", "pending"} <= set(view.values())
    assert "rejected-duplicate" in view.values()
    # the export ships the accepted candidates, exact duplicates removed
    accepted = {cid for cid, s in view.items() if s == "accepted"}
    shipped = {r["id"] for r in accepted_records(store, include_duplicates=True)}
    assert shipped == accepted
    # v_funnel is the CLI's funnel of the run
    row = store.query("SELECT * FROM v_funnel WHERE run_id = 'run-1'")[0]
    cli = funnel_of_run(store, "run-1", [FIXED], tool_gate=True).model_dump()
    assert {k: cli[k] for k in SAME} == {k: row[v] for k, v in SAME.items()}
    assert row["screen_passed"] == cli["screens"][FIXED]
    store.close()


def test_without_a_tool_gate_screened_candidates_are_accepted(tmp_path: Path) -> None:
    """A run with screens and no solver: the CLI, the view, the report and the export
    all call the survivors accepted (the demo's case)."""
    store = Store(tmp_path / "runs.db")
    run = store.create_run("gate", config={"screens": ["cue/middle"], "solver": None})
    for k, screen in enumerate(("pass", "pass", "fail")):
        cid, _ = store.add_candidate(
            CandidateRecord(run_id=run, question=f"q{k}?", options={"A": "1"}, answer="A")
        )
        store.add_gate_result(run, cid, "verify", outcome="pass")
        store.add_gate_result(run, cid, "screen", screen="cue/middle", outcome=screen)
        status = "screened" if screen == "pass" else "rejected-screen"
        store.add_attempt(run, k, candidate_id=cid, status=status)
    cli = funnel_of_run(store, run, ["cue/middle"], tool_gate=False)
    row = store.query("SELECT * FROM v_funnel")[0]
    assert cli.accepted == row["accepted"] == 2 and cli.unique == row["accepted_unique"] == 2
    files = build_report(store, tmp_path / "report")
    shown = sorted(i["status"] for i in embedded_items(files.html.read_text()))
    assert (
        shown
        == sorted(_view_statuses(store).values())
        == [
            "accepted",
            "accepted",
            "rejected-screen",
        ]
    )
    assert len(accepted_records(store)) == 2
    store.close()


@pytest.mark.slow
def test_v_funnel_is_the_funnel_the_cli_prints_on_a_template_run(tmp_path: Path) -> None:
    """`scigate gate run` on FEniCSx templates with cue screens and no solver, as the demo
    runs it: the funnel it prints is the run's row of v_funnel."""
    db = tmp_path / "tg.db"
    run = scigate_in_process(
        *("gate", "run", "--domain", "fenicsx", "--generator", "templates"),
        *("--rounds", "4", "--seed", "1", "--screen", "cue/middle", "--screen", "cue/letter-C"),
        *("--db", str(db), "--json"),
    )
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout)
    funnel = out["funnel"]
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    (row,) = [dict(r) for r in conn.execute("SELECT * FROM v_funnel")]
    statuses = [r[0] for r in conn.execute("SELECT status FROM v_candidate_status")]
    conn.close()
    assert {k: funnel[k] for k in SAME} == {k: row[v] for k, v in SAME.items()}, (funnel, row)
    assert row["screen_passed"] == list(funnel["screens"].values())[-1]
    assert funnel["generated"] == 4 and funnel["verified"] == 4
    assert statuses.count("accepted") == funnel["accepted"] > 0
    assert set(statuses) <= set(CANDIDATE_STATUSES)
