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


def _eval(tmp_path: Path, name: str, *extra: str) -> dict:
    from scigate.cli._agent import app

    bench = tmp_path / "b.jsonl"
    bench.write_text("".join(json.dumps(r) + "\n" for r in BENCH))
    out = tmp_path / name
    app(
        args=[
            "eval", "--method", "scitoolagent", "--bench", str(bench),
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
