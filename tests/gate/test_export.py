"""Export of accepted items with their full records, and the release package."""

from __future__ import annotations

import importlib.util
import json
import py_compile
from pathlib import Path

import pytest

from scigate.errors import BadInput
from scigate.gate._export import accepted_records, export_jsonl, export_release, permute

from ._dbfactory import FIXED, GENERATOR, SHUFFLED, SOLVER, build_db, build_empty_db


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    store, ids = build_db(tmp_path_factory.mktemp("export") / "runs.db")
    yield store, ids
    store.close()


def test_accepted_items_are_deduplicated_by_question(db) -> None:
    store, ids = db
    # accepted: c5, c8, c10; c10 repeats c5's question (c5 itself repeats the rejected c0)
    assert [r["id"] for r in accepted_records(store)] == [ids[5], ids[8]]
    assert [r["id"] for r in accepted_records(store, include_duplicates=True)] == [
        ids[5],
        ids[8],
        ids[10],
    ]


def test_jsonl_holds_the_full_record(db, tmp_path: Path) -> None:
    store, ids = db
    out = tmp_path / "accepted.jsonl"
    assert export_jsonl(store, out) == 2
    items = [json.loads(line) for line in out.read_text().splitlines()]
    item = items[0]
    assert item["id"] == ids[5] and item["answer"] == "B"
    assert item["answer_value"] == item["options"]["B"]
    assert item["solution"].startswith("import sys") and item["generator"] == GENERATOR
    assert item["tool_gate"] == "passed"
    gates = {(g["gate"], g["model"]): g for g in item["gates"]}
    assert list(gates) == [
        ("verify", None),
        ("screen", FIXED),
        ("solve", SOLVER),
        ("screen", SHUFFLED),
    ]
    verify = gates[("verify", None)]
    assert verify["outcome"] == "pass" and verify["seconds"] == 20.0
    assert verify["conditions"] == {"time_limit_s": 300.0}
    fixed = gates[("screen", FIXED)]
    assert fixed["option_orders"] == [list("ABCD")] * 3
    assert fixed["conditions"]["shuffled_options"] is False
    assert fixed["conditions"]["majority"] == "at least 2 of 3"
    assert fixed["conditions"]["seed"] == 7
    assert fixed["settings"] == {"temperature": 1.0}
    assert (fixed["model_calls"], fixed["input_tokens"], fixed["output_tokens"]) == (3, 300, 30)
    assert fixed["outcome"] == "pass" and fixed["seconds"] == 6.0 and fixed["run_id"] == "run-1"
    shuffled = gates[("screen", SHUFFLED)]
    assert shuffled["option_orders"] == [list("DCAB"), list("BACD"), list("CBDA")]
    assert shuffled["conditions"]["shuffled_options"] is True
    assert shuffled["conditions"]["seed"] == 11 and shuffled["run_id"] == "run-2"
    solve = gates[("solve", SOLVER)]
    assert solve["conditions"]["time_limit_s"] == 300.0
    assert solve["outcome"] == "pass" and solve["seconds"] == 720.0
    assert solve["model_calls"] == 4 and solve["detail"]["solved"] is True


def test_release_package(db, tmp_path: Path) -> None:
    store, _ = db
    files = export_release(store, tmp_path / "rel", release_seed=1234)
    assert files.items == 2 and files.release_seed == 1234
    pool = [json.loads(line) for line in files.jsonl.read_text().splitlines()]
    originals = {r["id"]: r for r in accepted_records(store)}
    for p in pool:
        orig = originals[p["id"]]
        # the answer still points at the same value, and every option is kept
        assert p["options"][p["answer"]] == orig["options"][orig["answer"]] == p["answer_value"]
        assert sorted(p["options"].values()) == sorted(orig["options"].values())
        assert [orig["options"][o] for o in p["original_order"]] == [
            p["options"][k] for k in "ABCD"
        ]

    import pyarrow.parquet as pq

    assert files.parquet is not None
    table = pq.read_table(files.parquet).to_pylist()
    assert [r["id"] for r in table] == [p["id"] for p in pool]
    for row, p in zip(table, pool, strict=True):
        assert [row[f"option_{k}"] for k in "ABCD"] == [p["options"][k] for k in "ABCD"]
        assert row["answer"] == p["answer"] and row["original_order"] == "".join(
            p["original_order"]
        )

    sheet = files.datasheet.read_text()
    assert "release permutation seed: 1234" in sheet
    assert "items: 2" in sheet and FIXED in sheet and SHUFFLED in sheet
    assert "FIXED (letter cues possible)" in sheet

    py_compile.compile(str(files.inspect_task), doraise=True)


def test_release_task_loads_in_inspect_ai(db, tmp_path: Path) -> None:
    """The task file builds a real inspect_ai Task whose samples are the released items.

    (Running `inspect eval` needs no model here, but inspect_ai fetches a tokenizer from
    the network on its first eval, so the test stops at the Task.)"""
    files = export_release(db[0], tmp_path / "rel", release_seed=1)
    spec = importlib.util.spec_from_file_location("toolgate_task", files.inspect_task)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    task = module.toolgate()
    assert len(task.dataset) == files.items
    pool = [json.loads(line) for line in files.jsonl.read_text().splitlines()]
    for sample, item in zip(task.dataset, pool, strict=True):
        assert sample.id == item["id"] and sample.target == item["answer"]
        assert sample.choices == [item["options"][k] for k in "ABCD"]


def _record(cid: str) -> dict:
    return {
        "id": cid,
        "question": "q",
        "options": {"A": "0.1", "B": "0.2", "C": "0.3", "D": "0.4"},
        "answer": "C",
        "answer_value": "0.3",
        "family": None,
        "solution": "",
    }


def test_permutation_is_reproducible_and_keeps_the_answer() -> None:
    records = [_record(f"{i:016x}") for i in range(40)]
    first = [permute(r, 99) for r in records]
    assert first == [permute(r, 99) for r in records]  # same seed, same release
    assert any(p["options"] != r["options"] for p, r in zip(first, records, strict=True))
    assert {p["answer"] for p in first} > {"C"}  # the answer letter moves around
    assert all(p["options"][p["answer"]] == "0.3" for p in first)
    other = [permute(r, 100) for r in records]
    assert [p["original_order"] for p in other] != [p["original_order"] for p in first]


def test_release_seed_is_fresh_by_default(db, tmp_path: Path) -> None:
    a = export_release(db[0], tmp_path / "a")
    b = export_release(db[0], tmp_path / "b")
    assert a.release_seed != b.release_seed


def test_nothing_to_release(tmp_path: Path) -> None:
    store = build_empty_db(tmp_path / "x.db")
    assert export_jsonl(store, tmp_path / "x.jsonl") == 0
    with pytest.raises(BadInput):
        export_release(store, tmp_path / "rel")
    store.close()


def test_export_cli(db, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from scigate.cli import app

    res = CliRunner().invoke(
        app,
        [
            "gate",
            "export",
            "--db",
            str(db[0].path),
            "--out",
            str(tmp_path / "a.jsonl"),
            "--release",
            str(tmp_path / "rel"),
            "--release-seed",
            "5",
        ],
    )
    assert res.exit_code == 0, res.output
    assert len((tmp_path / "a.jsonl").read_text().splitlines()) == 2
    assert (tmp_path / "rel" / "pool.parquet").exists()


def test_export_to_a_directory_or_over_a_file_is_bad_input(db, tmp_path: Path) -> None:
    """--out naming a directory, or --release naming a file, is one line and exit 2;
    nothing is written next to the directory."""
    with pytest.raises(BadInput, match="is a directory"):
        export_jsonl(db[0], tmp_path)
    assert not (tmp_path.parent / (tmp_path.name + ".tmp")).exists()
    afile = tmp_path / "a.jsonl"
    afile.write_text("keep\n")
    with pytest.raises(BadInput, match="must be a directory"):
        export_release(db[0], afile)
    assert afile.read_text() == "keep\n"
