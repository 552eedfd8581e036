"""`bench derive/verify` whose chunks run on Ray workers give the local outcomes."""

from __future__ import annotations

from scigate.bench import run_tasks

TASKS = [
    {"question": "Molecular weight of ethanol?", "tool_path": ["SMILESToWeight"],
     "Parameter": "CCO"},
    {"question": "Formula and heavy atoms of aspirin?",
     "tool_path": ["NameToSMILES", "GetMolFormula", "GetHeavyAtomsNum"], "Parameter": "aspirin"},
    {"question": "InChIKey of propane?", "tool_path": ["SMILESToInChI", "InChIToInChIKey"],
     "Parameter": "CCC"},
    {"question": "A web tool", "tool_path": ["PubChemCIDToSMILES"], "Parameter": "2244"},
]  # fmt: skip


def test_derive_and_verify_on_ray_equal_local(ray_executor):
    local = run_tasks("derive", TASKS * 2, workers=1)
    spread = run_tasks("derive", TASKS * 2, executor=ray_executor)
    assert [o.model_dump() for o in spread] == [o.model_dump() for o in local]
    assert {o.status for o in local} >= {"derived", "underivable"}
    derived = [o.task for o in local if o.task is not None and o.status == "derived"]
    checked = run_tasks("verify", derived, executor=ray_executor)
    assert {o.status for o in checked} == {"agrees"}


def test_build_on_ray_equals_the_local_build(ray_executor, tmp_path):
    from scigate.bench import BuildConfig, build
    from scigate.executor import LocalExecutor
    from scigate.store import Store

    config = BuildConfig(n=8, levels=[1, 2], seed=3, batch=4)
    rows = {}
    for name, executor in [("local", LocalExecutor(1)), ("ray", ray_executor)]:
        report = build(
            config, tmp_path / f"{name}.db", tmp_path / f"{name}.jsonl", executor=executor
        )
        assert report.accepted == 8 and report.executor["name"] == name
        with Store(tmp_path / f"{name}.db") as store:
            rows[name] = [
                {k: a[k] for k in ("round", "status", "reason", "detail")}
                for a in store.attempts(report.run_id)
            ]
    assert (tmp_path / "ray.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    assert rows["ray"] == rows["local"]


def test_a_build_job_whose_worker_dies_is_an_error_attempt(ray_executor, tmp_path):
    from scigate.bench import BuildConfig, build
    from scigate.store import Store

    writer = tmp_path / "dies.py"  # the worker process running the writer exits
    writer.write_text("import os\n\ndef model(messages, **settings):\n    os._exit(1)\n")
    config = BuildConfig(n=1, levels=[1], seed=1, generator=f"python/{writer}:model")
    report = build(
        config.model_copy(update={"max_attempts": 1}),
        tmp_path / "r.db",
        tmp_path / "o.jsonl",
        executor=ray_executor,
    )
    assert report.accepted == 0 and (tmp_path / "o.jsonl").read_text() == ""
    with Store(tmp_path / "r.db") as store:
        [row] = store.attempts(report.run_id)
    assert row["status"] == "error" and row["detail"]["stage"] == "job"
    assert row["reason"].startswith("job: failed after 3 tries: ")
