"""`scigate agent eval --executor ray` on a local Ray: tasks run on workers, the driver
records every row and model call."""

from __future__ import annotations

import json
from pathlib import Path

SCRIPTED = Path(__file__).parents[1] / "agents" / "models" / "scripted.py"
BENCH = [
    {"question": "What is the molecular weight of CCO?", "tool_path": ["SMILESToWeight"],
     "Parameter": "CCO", "answer": "46.07", "level": 1},
    {"question": "What is the molecular weight of C1CC?", "tool_path": ["SMILESToWeight"],
     "Parameter": "C1CC", "answer": "42.08", "level": 1},
    {"question": "What is the InChIKey of the molecule with SMILES CCO?",
     "tool_path": ["SMILESToInChI", "InChIToInChIKey"], "Parameter": "CCO",
     "answer": "LFQSCWFLJHTTHZ-UHFFFAOYSA-N", "level": 2},
]  # fmt: skip


def _eval(tmp_path: Path, name: str, *extra: str, method: str = "scitoolagent") -> dict:
    from scigate.cli._agent import app

    bench = tmp_path / "b.jsonl"
    bench.write_text("".join(json.dumps(r) + "\n" for r in BENCH))
    out = tmp_path / name
    app(
        args=[
            "eval", "--method", method, "--bench", str(bench),
            "--model", f"python/{SCRIPTED}:policy", "--known-ratio", "1.0",
            "--out", str(out), "--db", str(tmp_path / f"{name}.db"), "--json", *extra,
        ],
        standalone_mode=False,
    )  # fmt: skip
    return json.loads((out / "results.json").read_text())


def test_cli_eval_on_ray_equals_local_and_the_driver_records_every_call(ray_executor, tmp_path):
    from scigate.store import Store

    local = _eval(tmp_path, "local")
    spread = _eval(tmp_path, "ray", "--executor", "ray")
    assert spread["summary"]["overall"] == local["summary"]["overall"]
    assert spread["config"]["executor"] == {"name": "ray", "workers": 2, "nodes": 1}
    assert local["config"]["executor"] == {"name": "local", "workers": 1}
    counts = []
    for name in ("local", "ray"):
        store = Store(tmp_path / f"{name}.db")
        counts.append(len(store.model_calls()))
        assert len(store.events(kind="agent-task")) == len(BENCH)
        store.close()
    assert counts[0] == counts[1] > 0


def _stable(rows: list) -> list[dict]:
    timing = ("wall_seconds", "model_free_seconds", "latency")
    return [{k: v for k, v in r.record().items() if k not in timing} for r in rows]


async def test_evo_on_ray_equals_evo_here_and_its_tool_calls_run_on_the_workers(
    ray_executor, tmp_path
):
    import os

    from scigate.agents import EvalConfig, Task, evaluate, library_tools
    from scigate.llm import get_model
    from scigate.tools import make_embedder

    from ._jobs import recording_tools

    tasks = [Task(question=r["question"], tool_path=r["tool_path"], parameter=r["Parameter"],
                  answer=r["answer"], level=r["level"]) for r in BENCH]  # fmt: skip
    config = EvalConfig(method="evo", runs=2, known_ratio=0.5, split_seed=1, concurrency=2)
    runs = {}
    for name, executor in (("here", None), ("ray", ray_executor)):
        log = tmp_path / f"{name}.pids"
        trajs: list = []

        def keep(row, traj, trajs=trajs):
            trajs.append(((row["run"], row["index"]), traj))

        result = await evaluate(
            get_model(f"python/{SCRIPTED}:policy"),
            tasks,
            recording_tools(library_tools(), str(log)),
            config,
            train=tasks[:1],
            embedder=make_embedder("hashing"),
            executor=executor,
            out=tmp_path / name,
            on_task=keep,
        )
        steps = [
            [(s.tool, s.arguments, s.outputs, s.ok) for s in t.steps] for _, t in sorted(trajs)
        ]
        runs[name] = result, steps, log.read_text().split()
    (here, here_steps, here_pids), (spread, spread_steps, spread_pids) = runs["here"], runs["ray"]
    assert _stable(spread.rows) == _stable(here.rows)
    assert spread_steps == here_steps and any(spread_steps)
    assert "correct" in {r["status"] for r in spread.rows}
    assert set(here_pids) == {str(os.getpid())}
    # every tool call ran in a Ray worker process, none in the driver
    assert len(spread_pids) == len(here_pids) > 0 and str(os.getpid()) not in spread_pids
    ran = spread.config["executor"]
    assert ran["name"] == "ray" and ran["workers"] == 2 and ran["jobs"] == "tool calls"
    assert ran["tool_jobs"] == len(spread_pids) and ran["tool_jobs_failed"] == 0


def test_cli_evo_on_ray_with_accumulation_and_checkpoints_reports_the_executor(
    ray_executor, tmp_path
):
    bench = tmp_path / "b.jsonl"  # written by _eval; the accumulation set is the bench
    args = ("--train", str(bench), "--checkpoints")
    local = _eval(tmp_path, "evo-here", *args, method="evo")
    spread = _eval(tmp_path, "evo-ray", "--executor", "ray", *args, method="evo")
    assert spread["summary"]["overall"] == local["summary"]["overall"]
    ran = spread["config"]["executor"]
    assert (ran["name"], ran["workers"], ran["jobs"]) == ("ray", 2, "tool calls")
    assert ran["tool_jobs"] > 0 and ran["tool_jobs_failed"] == ran["tool_calls_local"] == 0
    assert local["config"]["executor"] == {"name": "local", "workers": 1}
    assert "tool calls as jobs" in (tmp_path / "evo-ray" / "results.md").read_text()
    stages = [
        json.loads((tmp_path / n / "checkpoints.json").read_text()) for n in ("evo-here", "evo-ray")
    ]
    assert stages[0] == stages[1] and len(stages[1]) == 5
