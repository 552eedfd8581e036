"""`scigate gate run --domain chemistry|materials --generator python/...` end to end with a
scripted model (no network): the generator writes candidates in the domain's format, one
correct and one per gate-1b check of the domain with the defect that check must catch;
gate 1, gate 1b, the screens and the run database see each of them (issue 25)."""

from __future__ import annotations

from pathlib import Path

import pytest

from _cli import run_main
from scigate.store import Store

MODELS = Path(__file__).parent / "models" / "domain_writer.py"
#: a cue that only ever picks one of the two middle values: never the smallest option,
#: which is where the scripted model puts the correct answer
SCREENS = ("--screen", "cue/middle")


def _load_defects() -> dict:
    import importlib.util

    spec = importlib.util.spec_from_file_location("domain_writer", MODELS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.DEFECTS


DEFECTS = _load_defects()


@pytest.mark.slow
@pytest.mark.parametrize("domain", ["chemistry", "materials"])
def test_llm_generation_through_every_gate(tmp_path: Path, domain: str) -> None:
    pytest.importorskip("rdkit" if domain == "chemistry" else "pymatgen.core")
    rounds = len(DEFECTS[domain])
    db = tmp_path / f"{domain}.db"
    code, out, err = run_main(
        "gate", "run", "--domain", domain, "--generator", f"python/{MODELS}:{domain}",
        "--rounds", str(rounds), "--concurrency", "1", "--seeds-in-prompt", "2",
        "--db", str(db), *SCREENS,
    )  # fmt: skip
    assert code == 0, out + err
    with Store(db, create=False, readonly=True) as store:
        (run,) = store.query("SELECT id, domain FROM runs WHERE kind = 'gate'")
        assert run["domain"] == domain
        attempts = {a["round"]: a for a in store.attempts(run["id"])}
        assert sorted(attempts) == list(range(rounds))
        status = {
            r["candidate_id"]: r
            for r in store.query(
                "SELECT candidate_id, verify, invariance, screen, status FROM v_candidate_status"
            )
        }
        calls = store.query(
            "SELECT COUNT(*) AS n FROM model_calls WHERE role = 'generator' AND run_id = ?",
            (run["id"],),
        )[0]["n"]
        for r, defect in enumerate(DEFECTS[domain]):
            cid = attempts[r]["candidate_id"]
            assert cid is not None, attempts[r]
            cand = store.get_candidate(cid)
            assert cand is not None and cand.meta["domain"] == domain
            assert cand.meta["generator"] == f"python/{MODELS}:{domain}"
            row = status[cid]
            assert row["verify"] == "pass", (r, row)  # every defect passes gate 1
            gate1b = store.gate_result(run["id"], cid, "invariance")
            assert gate1b is not None
            checks = {c["name"]: c["outcome"] for c in gate1b["detail"]["checks"]}
            if defect is None:
                # the correct candidate: every check passes, the cue screen cannot solve it
                assert row["invariance"] == "pass" and set(checks.values()) == {"pass"}, checks
                assert row["screen"] == "pass" and row["status"] == "accepted", row
            else:
                # the defect's own check rejects it, before any screen sees it
                assert row["invariance"] == "fail", (defect, row)
                assert checks[defect] == "fail", (defect, checks)
                failed = [name for name, outcome in checks.items() if outcome == "fail"]
                assert failed == [defect], (defect, checks)
                assert row["status"] == "rejected-invariance" and row["screen"] is None
    assert calls == 2 * rounds  # each round: one turn writing files, one submitting
