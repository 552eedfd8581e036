"""Offline review: `scigate review export` / `import`, with the web app's validation."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from _cli import run_main
from scigate.store import Store


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _write(path: Path, rows: list[dict[str, str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def test_export_then_import_round_trip(gate_db: tuple[Path, list[str]], tmp_path: Path) -> None:
    path, ids = gate_db
    out = tmp_path / "items.csv"
    code, stdout, stderr = run_main("review", "export", "--db", str(path), "--out", str(out))
    assert code == 0, stderr
    rows = _rows(out)
    assert [r["item_id"] for r in rows] == ids  # every candidate, in creation order
    assert {"correct", "correct_note", "distractors", "machine_status"} <= set(rows[0])
    assert rows[9]["machine_status"] == "rejected-verify"
    rows[4] |= {"correct": "yes", "well_posed": "no", "well_posed_note": "units unstated"}
    rows[8] |= {"correct": "unsure"}
    _write(out, rows)
    code, stdout, stderr = run_main(
        "review", "import", str(out), "--db", str(path), "--reviewer", "Bo"
    )
    assert (code, stderr) == (0, "")
    assert "imported 3 verdicts" in stdout
    with Store(path) as store:
        got = {(r["item_id"], r["criterion"]): r for r in store.reviews()}
    assert got[(ids[4], "well_posed")]["note"] == "units unstated"
    assert got[(ids[4], "well_posed")]["source"] == "csv"
    assert {r["reviewer"] for r in got.values()} == {"Bo"}
    # the export for Bo now carries his verdicts
    code, _, stderr = run_main(
        "review", "export", "--db", str(path), "--out", str(out), "--reviewer", "Bo"
    )
    assert code == 0, stderr
    assert _rows(out)[4]["well_posed"] == "no"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"item_id": "feedfeedfeedfeed"}, "items.csv:3: unknown item 'feedfeedfeedfeed'"),
        ({"reviewer": "Mallory"}, "items.csv:3: unknown reviewer 'Mallory'"),
        ({"elegance": "yes"}, "items.csv:2: criterion 'elegance' is not in the toolgate protocol"),
        ({"correct": "probably"}, "items.csv:3: verdict 'probably' is not one of yes, no, unsure"),
        ({"protocol": "nope"}, "unknown review protocol 'nope'"),
    ],
)
def test_bad_rows_are_one_line_and_write_nothing(
    gate_db: tuple[Path, list[str]], tmp_path: Path, change: dict[str, str], message: str
) -> None:
    path, _ids = gate_db
    out = tmp_path / "items.csv"
    assert run_main("review", "export", "--db", str(path), "--out", str(out))[0] == 0
    rows = _rows(out)
    rows[0] |= {"correct": "yes", "reviewer": "Ada"}  # a good row first
    rows[1] |= {"correct": "no", "reviewer": "Ada"} | change
    if "elegance" in change:
        rows = [r | {"elegance": r.get("elegance", "")} for r in rows]
    _write(out, rows)
    code, _stdout, stderr = run_main("review", "import", str(out), "--db", str(path))
    assert code == 2
    assert stderr.count("\n") == 1 and message in stderr, stderr
    with Store(path) as store:
        assert store.reviews() == []  # not even the good first row


def test_cli_status_and_add_reviewer(gate_db: tuple[Path, list[str]]) -> None:
    path, _ = gate_db
    assert run_main("review", "add-reviewer", "Dee", "--db", str(path))[:2] == (
        0,
        "registered: Dee\n",
    )
    code, _, stderr = run_main("review", "add-reviewer", "<script>", "--db", str(path))
    assert code == 2 and "bad reviewer name" in stderr
    code, stdout, _ = run_main("review", "status", "--db", str(path))
    assert code == 0 and "review (toolgate" in stdout and "unreviewed" in stdout


def test_the_library_names_its_parameters_and_the_cli_the_flags(
    gate_db: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """Issue 24: `export_csv` and `read_csv_verdicts` name `out` and `protocol`; the CLI
    shows them as --out and --protocol."""
    path, _ids = gate_db
    code, _stdout, stderr = run_main("review", "export", "--db", str(path), "--out", str(tmp_path))
    assert code == 2 and stderr.startswith("scigate: error: --out must be a file, not the dir")
    out = tmp_path / "items.csv"
    assert run_main("review", "export", "--db", str(path), "--out", str(out))[0] == 0
    rows = _rows(out)
    rows[0] |= {"correct": "yes", "reviewer": "Ada", "protocol": ""}
    _write(out, rows[:1])
    code, _stdout, stderr = run_main("review", "import", str(out), "--db", str(path))
    assert code == 2 and "--protocol is needed: " in stderr, stderr
    assert "items.csv:2 has no protocol column value" in stderr
    rows[0] |= {"protocol": "openscitoolbench"}
    _write(out, rows[:1])
    code, _stdout, stderr = run_main(
        "review", "import", str(out), "--db", str(path), "--protocol", "toolgate"
    )
    assert code == 2 and "--protocol is 'toolgate' but " in stderr, stderr
