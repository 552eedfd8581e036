"""A database holding several domains releases each domain's survivors (issue 25).

Each domain ran its own screens (FEniCSx a model screen and a tool gate, chemistry a
cue screen and no tool gate). Before, the pool of such a database asked every candidate
to pass every screen of the database and the tool gate, so no chemistry candidate could
reach it; now each candidate meets only its own domain's screens and tool gate, in the
Python pool (surviving_candidates, db_funnel, the export) and in v_candidate_status."""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

from scigate.gate import audit
from scigate.gate._audit import (
    candidate_domains,
    db_funnel,
    latest_results,
    screens_in_order,
    surviving_candidates,
)
from scigate.gate._export import accepted_records, export_release
from scigate.gate._report import browser_items, build_report
from scigate.store import CandidateRecord, Store

from ._dbfactory import options_for

FEM_SCREEN = "python/fem_screen.py:screen"
CUE = "cue/middle"
SOLVER = "python/solver.py:codex"

# (domain, question, screen outcome, tool gate outcome or None)
ITEMS = [
    ("fenicsx", "P1 energy on a moved 17 by 14 mesh, six decimals?", "pass", "pass"),
    ("fenicsx", "Flux through the right edge of a 9 by 9 mesh, six decimals?", "fail", None),
    ("fenicsx", "Dirichlet energy of the P2 solution on 12 by 10 cells?", "pass", "fail"),
    ("chemistry", "Monoisotopic mass of caffeine, in Da, four decimals?", "pass", None),
    ("chemistry", "Gasteiger charge on the carbonyl carbon of acetone?", "fail", None),
    ("chemistry", "Crippen logP of aspirin, three decimals?", "pass", None),
]


def _build(path: Path) -> tuple[Store, list[str]]:
    store = Store(path)
    runs = {
        "fenicsx": store.create_run(
            "gate",
            domain="fenicsx",
            config={"screens": [FEM_SCREEN], "solver": SOLVER},
            run_id="run-fem",
        ),
        "chemistry": store.create_run(
            "gate", domain="chemistry", config={"screens": [CUE]}, run_id="run-chem"
        ),
    }
    ids = []
    for i, (domain, question, screened, solved) in enumerate(ITEMS):
        run = runs[domain]
        options = options_for(i, "B", 2)
        cid, _ = store.add_candidate(
            CandidateRecord(
                run_id=run,
                question=question,
                options=options,
                answer="B",
                answer_value=options["B"],
                solution="print(1)\n",
                family=f"{domain}-family",
                created_at=1000.0 + i,
            )
        )
        ids.append(cid)
        store.add_gate_result(run, cid, "verify", outcome="pass")
        store.add_gate_result(run, cid, "invariance", outcome="pass")
        screen = FEM_SCREEN if domain == "fenicsx" else CUE
        store.add_gate_result(run, cid, "screen", screen=screen, outcome=screened)
        if solved is not None:
            store.add_gate_result(run, cid, "solve", screen=SOLVER, outcome=solved)
    return store, ids


def test_each_domain_releases_its_own_survivors(tmp_path: Path) -> None:
    store, ids = _build(tmp_path / "two.db")
    # FEniCSx: 0 passed its screen and was solved (2 was not, 1 was solved by the
    # screen); chemistry: 3 and 5 passed cue/middle, and no tool gate ran on chemistry
    expected = [ids[0], ids[3], ids[5]]
    with store:
        latest = latest_results(store)
        screens = screens_in_order(store)
        cands = {c.id: c for c in store.candidates()}
        domains = candidate_domains(store, cands)
        assert domains[ids[0]] == "fenicsx" and domains[ids[3]] == "chemistry"
        assert surviving_candidates(latest, screens, cands, domains) == expected
        funnel = db_funnel(store, latest, screens, cands)
        assert funnel["pool_ids"] == expected
        # sequential; a screen removes only its own domain's candidates (1, then 4)
        assert funnel["screens"] == {FEM_SCREEN: 5, CUE: 4}
        assert funnel["solved"] == 1 and funnel["unique"] == 3
        assert audit(store).pool_size == 3
        status = {
            r["candidate_id"]: r["status"]
            for r in store.query("SELECT candidate_id, status FROM v_candidate_status")
        }
        assert status == {
            ids[0]: "accepted",
            ids[1]: "rejected-screen",
            ids[2]: "unsolved",
            ids[3]: "accepted",
            ids[4]: "rejected-screen",
            ids[5]: "accepted",
        }
        # the HTML report's item browser shows the same statuses (it once held every
        # candidate to every screen of the database: chemistry ones showed "pending")
        assert {i["id"]: i["status"] for i in browser_items(store)} == status
        report = build_report(store, tmp_path / "report")
        summary = json.loads(report.summary.read_text())
        assert summary["audit"]["pool_size"] == 3
        shown = {r["id"]: r["status"] for r in csv.DictReader(report.items.open())}
        assert shown == status
        records = accepted_records(store)
        assert [r["id"] for r in records] == expected
        assert [r["tool_gate"] for r in records] == ["passed", "not run", "not run"]
        files = export_release(store, tmp_path / "rel", release_seed=7)
    assert files.items == 3
    released = [json.loads(ln) for ln in files.jsonl.read_text().splitlines()]
    assert sorted(r["id"] for r in released) == sorted(expected)


def test_a_domain_waiting_for_its_own_screen_stays_pending(tmp_path: Path) -> None:
    """Scoping is per domain, not per candidate: a chemistry candidate that its
    domain's screen has not reached yet is `pending`, not accepted."""
    store, ids = _build(tmp_path / "pending.db")
    with store:
        run = "run-chem"
        options = options_for(9, "B", 2)
        late, _ = store.add_candidate(
            CandidateRecord(
                run_id=run,
                question="Topological polar surface area of ibuprofen, two decimals?",
                options=options,
                answer="B",
                answer_value=options["B"],
                created_at=2000.0,
            )
        )
        store.add_gate_result(run, late, "verify", outcome="pass")
        row = store.query("SELECT status FROM v_candidate_status WHERE candidate_id = ?", (late,))[
            0
        ]
        assert row["status"] == "pending"
        latest = latest_results(store)
        cands = {c.id: c for c in store.candidates()}
        pool = surviving_candidates(
            latest, screens_in_order(store), cands, candidate_domains(store, cands)
        )
        assert late not in pool and ids[3] in pool


def test_one_domain_pool_is_unchanged(tmp_path: Path) -> None:
    """With one domain every screen of the database and its tool gate still apply."""
    store, ids = _build(tmp_path / "one.db")
    store.close()
    with sqlite3.connect(tmp_path / "one.db") as conn:
        conn.execute("UPDATE runs SET domain = 'fenicsx'")
    with Store(tmp_path / "one.db") as store:
        latest = latest_results(store)
        cands = {c.id: c for c in store.candidates()}
        domains = candidate_domains(store, cands)
        screens = screens_in_order(store)
        # every candidate owes both screens: none saw both, so none survives
        assert surviving_candidates(latest, screens, cands, domains) == []
        assert db_funnel(store, latest, screens, cands)["pool_ids"] == []
        status = {
            r["candidate_id"]: r["status"]
            for r in store.query("SELECT candidate_id, status FROM v_candidate_status")
        }
        assert status[ids[0]] == status[ids[3]] == "pending"
