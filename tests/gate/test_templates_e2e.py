"""The model-free pipeline end to end: template candidates, gate 1, cue screens, audit,
report and export (what `make demo` runs)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scigate.store import Store


@pytest.mark.slow
def test_template_run_audit_report_export(tmp_path: Path) -> None:
    db = tmp_path / "tg.db"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "scigate",
            "gate",
            "run",
            "--domain",
            "fenicsx",
            "--generator",
            "templates",
            "--rounds",
            "4",
            "--seed",
            "3",
            "--screen",
            "cue/middle",
            "--screen",
            "cue/letter-C",
            "--db",
            str(db),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    funnel = json.loads(run.stdout)["funnel"]
    assert funnel["generated"] == 4 and funnel["verified"] == 4, run.stdout
    with Store(db) as store:
        families = {c.family for c in store.candidates()}
        assert len(families) == 4  # one candidate per family
        assert all(len(set(c.options.values())) == 4 for c in store.candidates())
    audit = subprocess.run(
        [sys.executable, "-m", "scigate", "gate", "audit", "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert audit.returncode == 0, audit.stderr
    a = json.loads(audit.stdout)
    assert a["verified"] == 4 and sum(a["value_rank_distribution"].values()) == 4
    assert [s["screen"] for s in a["screens"]] == ["cue/middle", "cue/letter-C"][
        : len(a["screens"])
    ]
    report = subprocess.run(
        [
            sys.executable,
            "-m",
            "scigate",
            "gate",
            "report",
            "--db",
            str(db),
            "--out",
            str(tmp_path / "r"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert report.returncode == 0, report.stderr
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["funnel"]["verified"] == 4
    out = tmp_path / "accepted.jsonl"
    export = subprocess.run(
        [sys.executable, "-m", "scigate", "gate", "export", "--db", str(db), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert export.returncode == 0, export.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == summary["funnel"]["unique"]
    for row in rows:
        assert {g["gate"] for g in row["gates"]} >= {"verify", "screen"}
