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


def _load_task(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, getattr(module, name)()


def _mock_model(outputs):
    """inspect_ai's mock model answering with `outputs(messages)`; token usage is given so
    that inspect does not fetch a tokenizer to count it."""
    from inspect_ai.model import ModelUsage, get_model

    def generate(messages, tools, tool_choice, config):
        out = outputs(messages)
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return out

    return get_model("mockllm/model", custom_outputs=generate)


def _eval(task, model, log_dir: Path):
    from inspect_ai import eval as inspect_eval

    [log] = inspect_eval(task, model=model, log_dir=str(log_dir), display="none")
    assert log.status == "success", log.error
    return log


def test_release_no_tool_task_runs_in_inspect_ai(db, tmp_path: Path) -> None:
    """The no-tool task builds a Task whose samples are the released items, and runs."""
    from inspect_ai.model import ModelOutput

    files = export_release(db[0], tmp_path / "rel", release_seed=1)
    _, task = _load_task(files.inspect_task, "toolgate")
    assert len(task.dataset) == files.items
    pool = [json.loads(line) for line in files.jsonl.read_text().splitlines()]
    for sample, item in zip(task.dataset, pool, strict=True):
        assert sample.id == item["id"] and sample.target == item["answer"]
        assert sample.choices == [item["options"][k] for k in "ABCD"]
    # right on the first item, wrong on the second
    answers = {pool[0]["question"]: pool[0]["answer"]}
    wrong = next(k for k in "ABCD" if k != pool[1]["answer"])

    def reply(messages):
        text = messages[-1].text
        letter = next((a for q, a in answers.items() if q in text), wrong)
        return ModelOutput.from_content("mockllm/model", f"ANSWER: {letter}")

    log = _eval(task, _mock_model(reply), tmp_path / "logs")
    assert log.results.scores[0].metrics["accuracy"].value == 0.5
    by_id = {s.id: s.scores["choice"].value for s in log.samples}
    assert by_id == {pool[0]["id"]: "C", pool[1]["id"]: "I"}


def test_release_tool_task_runs_with_python_and_bash_in_a_local_sandbox(db, tmp_path: Path) -> None:
    """The tool-enabled task gives the model gate 3's workspace files and python and bash
    tools in inspect's local sandbox, and grades the submission by value."""
    from inspect_ai.model import ChatMessageTool, ModelOutput

    files = export_release(db[0], tmp_path / "rel", release_seed=3)
    assert files.tool_task is not None and files.tool_task.name == "toolgate_tools_task.py"
    module, task = _load_task(files.tool_task, "toolgate_tools")
    assert task.sandbox.type == "local"
    # the run's solver limits, from run_conditions.json
    assert (task.time_limit, task.token_limit, task.message_limit) == (300, 500_000, None)
    pool = {
        json.loads(line)["question"]: json.loads(line)
        for line in files.jsonl.read_text().splitlines()
    }
    first, _ = pool.values()

    def act(messages):
        item = next(p for q, p in pool.items() if q.strip() in messages[1].text)
        tool_results = [m for m in messages if isinstance(m, ChatMessageTool)]
        if not tool_results:  # look at the workspace with bash, then compute with python
            return ModelOutput.for_tool_call(
                "mockllm/model", "bash", {"command": "cat options.json"}
            )
        if len(tool_results) == 1:
            code = "import json; print(json.load(open('options.json'))['A'])"
            return ModelOutput.for_tool_call("mockllm/model", "python", {"code": code})
        if item is first:  # submit the value (graded by value, at the option's precision)
            return ModelOutput.for_tool_call(
                "mockllm/model", "submit", {"answer": item["answer_value"] + "0"}
            )
        wrong = next(k for k in "ABCD" if k != item["answer"])
        return ModelOutput.for_tool_call("mockllm/model", "submit", {"answer": wrong})

    log = _eval(task, _mock_model(act), tmp_path / "logs")
    assert log.results.scores[0].metrics["accuracy"].value == 0.5
    for sample in log.samples:
        item = next(p for p in pool.values() if p["id"] == sample.id)
        outputs = [m.text for m in sample.messages if isinstance(m, ChatMessageTool)]
        # bash read the workspace file; python ran and printed option A
        assert json.loads(outputs[0]) == item["options"], outputs
        assert outputs[1].strip() == item["options"]["A"]
        want = "C" if item is first else "I"
        assert sample.scores["by_value"].value == want
    # grading by value: letters, values at the option's precision, nothing else
    options = {"A": "0.100000", "B": "0.122000", "C": "0.111000", "D": "0.133000"}
    assert module.graded_letter("(C)", options) == "C"
    assert module.graded_letter("0.1110004", options) == "C"
    assert module.graded_letter("0.1115", options) is None
    assert module.graded_letter("I think it is large", options) is None
    assert module.graded_letter("Answer: C or A", options) is None  # a hedge
    assert module.graded_letter("The answer is A/C", options) is None
    assert module.graded_letter("First answer: A. Final answer: C", options) == "C"


def test_release_gate_records_and_run_conditions(tmp_path: Path) -> None:
    """Next to the pool: every gate record of each released item (a gate added later
    included) and the conditions of each run (models and settings, seeds, limits,
    software versions, isolation)."""
    from scigate.gate._environment import run_environment

    store, ids = build_db(tmp_path / "g.db")
    store.add_event("run-1", "environment", run_environment())
    store.add_gate_result(
        "run-1",
        ids[5],
        "invariance",
        outcome="pass",
        reason="unchanged under reordered cells",
        detail={"checks": [{"check": "reordered cells", "values": ["0.1", "0.1"]}]},
    )
    files = export_release(store, tmp_path / "rel", release_seed=9)
    pool = {p["id"]: p for p in map(json.loads, files.jsonl.read_text().splitlines())}
    records = [json.loads(line) for line in files.gate_records.read_text().splitlines()]
    assert [r["id"] for r in records] == list(pool)
    rec = records[0]
    assert rec["id"] == ids[5]
    p = pool[ids[5]]
    # the released letter maps onto the gated one, and the value rank is reported
    assert p["original_order"]["ABCD".index(p["answer"])] == rec["gated_answer"] == "B"
    assert rec["answer"] == p["answer"] and rec["value_rank"] == p["value_rank"] == 2
    gates = {(g["gate"], g["model"]): g for g in rec["gates"]}
    assert list(gates) == [
        ("verify", None),
        ("screen", FIXED),
        ("solve", SOLVER),
        ("screen", SHUFFLED),
        ("invariance", None),
    ]
    verify = gates[("verify", None)]["summary"]
    assert verify["printed"] == p["answer_value"] and verify["matched_option"] == "B"
    calls = gates[("screen", SHUFFLED)]["summary"]["calls"]
    assert [c["order"] for c in calls] == [list("DCAB"), list("BACD"), list("CBDA")]
    assert [c["chosen_value"] for c in calls] == [
        store.get_candidate(ids[5]).options[c["chosen_original"]] for c in calls
    ]
    solve = gates[("solve", SOLVER)]
    assert solve["outcome"] == "pass" and solve["summary"]["solved"] is True
    assert "transcript_tail" not in solve["detail"]
    inv = gates[("invariance", None)]
    assert inv["outcome"] == "pass" and inv["summary"]["checks"][0]["check"] == "reordered cells"

    cond = json.loads(files.run_conditions.read_text())
    assert cond["release"]["seed"] == 9 and cond["release"]["items"] == 2
    runs = {r["id"]: r for r in cond["runs"]}
    assert runs["run-1"]["config"]["seed"] == 7 and runs["run-2"]["config"]["seed"] == 11
    assert runs["run-1"]["config"]["screens"] == [FIXED]
    assert runs["run-1"]["config"]["verify_timeout"] == 300.0
    models = {(m["role"], m["spec"]): m for m in runs["run-1"]["models"]}
    assert models[("screen", FIXED)]["settings"] == {"temperature": 1.0}
    assert models[("solver", SOLVER)]["calls"] == 20
    env = runs["run-1"]["environment"][0]
    assert env["scigate"] and env["isolation"]["mode"] and env["python"]
    assert runs["run-2"]["environment"] == []  # not recorded: said so, not invented
    assert cond["solver"]["spec"] == SOLVER and cond["solver"]["time_limit_s"] == 300.0
    assert "DOLFINx" in cond["solver"]["workspace_note"]
    assert cond["export_environment"]["packages"].get("dolfinx-solver-real")
    sheet = files.datasheet.read_text()
    assert "value rank of the correct option" in sheet and "'2': 1" in sheet
    assert "isolation" in sheet and "not recorded" in sheet
    store.close()


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
    for name in ("gate_records.jsonl", "run_conditions.json", "toolgate_tools_task.py"):
        assert (tmp_path / "rel" / name).exists()
    assert "gate records:" in res.output and "run conditions:" in res.output


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


def test_a_run_records_its_environment_when_it_starts(tmp_path: Path) -> None:
    """What run_conditions.json reports per run is recorded by the run itself, each start."""
    import asyncio

    from scigate import __version__
    from scigate.gate._loop import LoopConfig, run_loop

    from .conftest import model_spec

    store = build_empty_db(tmp_path / "runs.db")
    cfg = LoopConfig(generator=model_spec("generator:writes_candidates"), rounds=0)
    run_id, _ = asyncio.run(run_loop(cfg, store))
    asyncio.run(run_loop(LoopConfig(generator=cfg.generator, rounds=0), store, resume=True))
    events = store.events(run_id=run_id, kind="environment")
    assert len(events) == 2  # the start and the resume (which may be on another machine)
    env = events[0]["data"]
    assert env["scigate"] == __version__
    assert env["packages"]["dolfinx-solver-real"].startswith("0.11")
    assert env["isolation"]["mode"] in (
        "bwrap",
        "unisolated (allowed)",
        "unavailable (untrusted runs refused)",
    )
    store.close()
