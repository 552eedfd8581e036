"""`bench release`: the datasheet and conditions match the build; files are written whole."""

from __future__ import annotations

import json
import os
from importlib.metadata import version
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scigate.bench import BuildConfig, build, build_funnel, read_tasks, write_tasks
from scigate.cli._bench import app
from scigate.store import Store

SCREENS = ["cue/middle", "cue/letter-C", "cue/closest-to-mean"]
ENTITIES = Path(__file__).parents[2] / "src/scigate/bench/data/entities.json"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, object]:
    d = tmp_path_factory.mktemp("release")
    config = BuildConfig(n=8, levels=[1, 2], screens=SCREENS, seed=3)
    report = build(config, d / "b.db", d / "b.jsonl")
    assert report.accepted == 8
    return d / "b.db", d / "b.jsonl", report


def _release(db: Path, bench: Path, out: Path, *extra: str):
    args = ["release", "--db", str(db), "--bench", str(bench), "--out", str(out), *extra]
    return CliRunner().invoke(app, args)


def test_datasheet_and_conditions_match_the_build(built, tmp_path: Path) -> None:
    db, bench, report = built
    out = tmp_path / "rel"
    result = _release(db, bench, out)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == [
        "Dockerfile",
        "b.jsonl",
        "compose.yaml",
        "conditions.json",
        "datasheet.md",
        "sandbox.json",
        "sandbox_tools.py",
        "scigate_bench_task.py",
    ]
    assert read_tasks(out / "b.jsonl") == read_tasks(bench)
    c = json.loads((out / "conditions.json").read_text())
    assert c["tasks"] == 8 and c["seed"] == 3 and c["run_id"] == report.run_id
    assert c["by_level_format"] == {k: v for k, v in sorted(report.cells.items()) if v}
    assert c["by_domain"] == dict(sorted(report.domains.items()))
    assert c["funnel"] == build_funnel(db)
    for lib in ("rdkit", "biopython", "pymatgen", "scigate"):
        assert c["versions"][lib] == version(lib)
    data = json.loads(ENTITIES.read_text())
    for name in ("molecules", "proteins", "dna", "crystals", "formulas"):
        assert c["entity_sets"][name]["license"] == data["license"]
        assert c["entity_sets"][name]["source"] == data[name]["source"]
    assert sum(e["tasks"] for e in c["entity_sets"].values()) == 8
    # every screen rejection is one screen that let the task through no further
    screens = c["checks"]["screens"]
    assert list(screens) == SCREENS
    stopped = sum(s["reached"] - s["passed"] for s in screens.values())
    assert stopped == report.rejected.get("screen", 0)
    with Store(db, create=False) as store:
        tried = sum(1 for a in store.attempts(report.run_id) if "screens" in a["detail"])
    assert screens["cue/middle"]["reached"] == tried
    assert c["checks"]["judge"] is None and c["checks"]["solver"] is None
    sheet = (out / "datasheet.md").read_text()
    for needle in (
        f"run {report.run_id}",
        "seed 3",
        f"| rdkit | {version('rdkit')} |",
        f"| pymatgen | {version('pymatgen')} |",
        "| L1 | 1 | 1 | 1 | 1 | 4 |",
        "| L2 | 1 | 1 | 1 | 1 | 4 |",
        "`cue/letter-C`",
        "UniProt (CC BY 4.0)",
    ):
        assert needle in sheet, needle
    for domain, n in report.domains.items():
        assert f"| {domain} | {n} |" in sheet


def test_a_file_from_another_build_is_refused(built, tmp_path: Path) -> None:
    db, bench, _ = built
    tasks = read_tasks(bench)
    tasks[0] = {**tasks[0], "id": "not-from-this-run"}
    write_tasks(tmp_path / "other.jsonl", tasks)
    result = _release(db, tmp_path / "other.jsonl", tmp_path / "rel")
    assert result.exit_code == 2
    assert "not accepted by build run" in result.output
    assert not (tmp_path / "rel").exists()


def test_an_unwritable_folder_is_one_line_exit_2(built, tmp_path: Path) -> None:
    db, bench, _ = built
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    for out in (blocker, blocker / "rel"):
        result = _release(db, bench, out)
        assert result.exit_code == 2, result.output
        assert len(result.output.strip().splitlines()) == 1
    assert blocker.read_text() == "x"


@pytest.mark.parametrize(
    ("failing", "left"),
    [("b.jsonl", []), ("datasheet.md", ["b.jsonl", "conditions.json"])],
)
def test_a_failing_write_leaves_no_partial_file(
    built, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str, left: list[str]
) -> None:
    db, bench, _ = built
    out = tmp_path / "rel"
    real = os.replace

    def fail_on(src, dst, *a, **kw):
        if str(dst).endswith(failing):
            raise OSError(28, "No space left on device")
        return real(src, dst, *a, **kw)

    monkeypatch.setattr(os, "replace", fail_on)
    result = _release(db, bench, out)
    assert result.exit_code == 2, result.output
    assert "No space left on device" in result.output
    assert len(result.output.strip().splitlines()) == 1
    # whole files only: no temporary file, nothing from the failing write on
    assert sorted(p.name for p in out.iterdir()) == left
