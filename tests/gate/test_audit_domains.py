"""Audit, CLI and report put the domains of a database side by side (issue 25 item 5)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from scigate.cli._gate import app
from scigate.gate import audit, build_report
from scigate.store import CandidateRecord, Store

from ._dbfactory import build_db, options_for

CHEM = [  # (question, answer, value rank, verify passes, cue screen solves)
    ("Average molar mass of the parent of sodium benzoate, in g/mol?", "B", 2, True, False),
    ("Gasteiger charge on the carbonyl carbon of acetone?", "D", 4, True, True),
    ("Crippen molar refractivity of caffeine's canonical tautomer?", "A", 1, False, None),
]


def _add_chemistry_run(store: Store) -> None:
    run = store.create_run("gate", domain="chemistry", config={}, run_id="run-chem")
    for i, (question, answer, rank, verified, solved) in enumerate(CHEM):
        options = options_for(20 + i, answer, rank)
        cid, _ = store.add_candidate(
            CandidateRecord(
                run_id=run,
                question=question,
                options=options,
                answer=answer,
                answer_value=options[answer],
                solution="print(1)\n",
                family=f"chem-{i}",
                created_at=5000.0 + i,
            )
        )
        store.add_gate_result(run, cid, "verify", outcome="pass" if verified else "fail")
        if verified:
            store.add_gate_result(
                run, cid, "screen", screen="cue/middle", outcome="fail" if solved else "pass"
            )


def test_one_domain_has_no_comparison(tmp_path: Path) -> None:
    store, _ = build_db(tmp_path / "one.db")
    with store:
        assert audit(store).domains == {}


def test_two_domains_side_by_side_in_audit_cli_and_report(tmp_path: Path) -> None:
    store, _ = build_db(tmp_path / "two.db")
    with store:
        alone = audit(store)
        _add_chemistry_run(store)
        a = audit(store)
        assert list(a.domains) == ["chemistry", "fenicsx"]
        fem, chem = a.domains["fenicsx"], a.domains["chemistry"]
        # the FEniCSx column is the one-domain audit of the same candidates
        assert (fem["candidates"], fem["verified"]) == (alone.candidates, alone.verified)
        assert fem["pool"] == alone.pool_size
        # chemistry, worked by hand: 3 generated, 2 verified (no gate 1b ran: both pass
        # it), cue/middle solved 1 of the 2 it saw, the other reached the pool
        assert (chem["candidates"], chem["verified"], chem["invariant"]) == (3, 2, 2)
        assert chem["screen_solved_share"]["cue/middle"] == 0.5
        assert chem["pool"] == 1 and chem["pool_share"] == round(1 / 3, 4)
        assert chem["pool_letter_distribution"] == {"A": 0, "B": 1, "C": 0, "D": 0}
        assert chem["pool_value_rank_distribution"]["2"] == 1
        assert chem["families"] == {"chem-0": 1, "chem-1": 1, "chem-2": 1}
        files = build_report(store, tmp_path / "out")
    html = Path(files.html).read_text()
    assert 'id="domains"' in html and '<th class="num">chemistry</th>' in html
    out = CliRunner().invoke(app, ["audit", "--db", str(tmp_path / "two.db")], terminal_width=200)
    assert out.exit_code == 0, out.output
    assert "Domains side by side" in out.output and "chemistry" in out.output
