"""`agent eval --estimate` (issue 36): the expected calls, tokens and cost without calling
a model, from the run database's earlier evaluations of the method when there are any."""

from __future__ import annotations

import json

from _cli import run_main
from scigate.agents import estimate_eval

from .conftest import spec

BENCH = [
    {"question": "What is the molecular weight of CCO?", "tool_path": ["SMILESToWeight"],
     "Parameter": "CCO", "answer": "46.07", "level": 1},
    {"question": "What is the molecular weight of C1CC?", "tool_path": ["SMILESToWeight"],
     "Parameter": "C1CC", "answer": "42.08", "level": 1},
]  # fmt: skip


def test_defaults_scale_with_tasks_runs_and_evo_accumulation():
    react = estimate_eval("openai/gpt-5-mini", "react", tasks=10, runs=3)
    assert react.calls == 10 * 3 * 6 and react.source.startswith("defaults")
    assert react.input_tokens == react.calls * 3000 and react.cost is not None
    priced = react.input_tokens * 0.25e-6 + react.output_tokens * 2e-6  # gpt-5-mini list price
    assert abs(react.cost - priced) < 1e-9
    evo = estimate_eval("openai/gpt-5-mini", "evo", tasks=10, runs=3, train_tasks=5)
    assert evo.calls == (10 * 3 + 5 * 3) * 11  # the paper's ~11 calls per task
    local = estimate_eval("openai-compatible/qwen3-8b?base_url=http://h:1/v1", "cot", 4, 1)
    assert local.calls == 4 and local.cost is None  # no price: n/a, never 0


def test_the_estimate_is_measured_from_earlier_runs_and_calls_nothing(tmp_path):
    bench = tmp_path / "b.jsonl"
    bench.write_text("".join(json.dumps(r) + "\n" for r in BENCH))
    db = tmp_path / "runs.db"
    args = ["agent", "eval", "--method", "react", "--bench", str(bench), "--json"]
    never = tmp_path / "never.py"  # a model that fails the test if it is called
    never.write_text("def model(messages, **settings):\n    raise SystemExit('called')\n")
    code, out, err = run_main(*args, "--model", f"python/{never}:model", "--estimate",
                              "--db", str(tmp_path / "none.db"))  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["source"].startswith("defaults")
    assert not (tmp_path / "none.db").exists()  # an estimate writes no database

    code, _, err = run_main(*args, "--model", spec("policy"), "--db", str(db))
    assert code == 0, err
    from scigate.store import Store

    with Store(db) as store:
        calls = store.query("SELECT input_tokens, output_tokens FROM model_calls")
    code, out, err = run_main(*args, "--model", f"python/{never}:model", "--estimate",
                              "--db", str(db), "--runs", "4")  # fmt: skip
    assert code == 0, err
    found = json.loads(out)
    assert found["source"].startswith(f"measured: {len(calls)} calls over 2 earlier react")
    assert found["calls_per_task"] == len(calls) / 2 and found["calls"] == len(calls) / 2 * 8
    mean_in = sum(c["input_tokens"] for c in calls) / len(calls)
    assert found["input_tokens_per_call"] == mean_in


def test_the_progress_line_shows_what_the_finished_tasks_cost():
    from scigate.agents import EvalRow
    from scigate.cli._agent import _Tally

    tally = _Tally()
    tally.add(EvalRow(run=0, index=0, status="correct", calls=3, cost=0.012, unpriced_calls=0))
    tally.add(EvalRow(run=0, index=1, status="error", calls=2, cost=None, unpriced_calls=2))
    assert tally.line().endswith("· 5 calls $0.0120 +2 unpriced")
