"""`scigate runs cost` (issue 36): per stage and model, the sums of the recorded calls:
calls, cached and failed calls, tokens, USD (unpriced calls apart), agent-hours without
the slot waits, wall-hours; per accepted item or per task."""

from __future__ import annotations

import json

from _cli import run_main
from scigate.llm import ModelCallRecord, Usage
from scigate.store import Store


def _call(store, run_id, role, spec, *, tokens, cost, latency, queued=0.0, cached=False,
          error=None, start=1000.0):  # fmt: skip
    record = ModelCallRecord(
        spec=spec,
        usage=Usage(input_tokens=tokens[0], output_tokens=tokens[1]),
        cost=cost,
        latency=latency,
        response=None if error else {"text": "x", "queued": queued},
        error=error,
        started_at=start,
        cached=cached,
    )
    store.add_model_call(record, run_id=run_id, role=role)


def test_the_cost_view_is_the_sum_of_the_recorded_calls(tmp_path):
    db = tmp_path / "runs.db"
    with Store(db) as store:
        run = store.create_run("agent-eval", config={})
        _call(store, run, "react", "openai/gpt-5-mini", tokens=(100, 20), cost=0.01, latency=3.0,
              queued=1.0)  # fmt: skip
        _call(store, run, "react", "openai/gpt-5-mini", tokens=(50, 10), cost=0.0, latency=0.01,
              cached=True)  # fmt: skip
        _call(store, run, "react", "openai/gpt-5-mini", tokens=(0, 0), cost=None, latency=2.0,
              error="RateLimitError")  # fmt: skip
        _call(store, run, "judge", "openai-compatible/qwen3-8b", tokens=(30, 5), cost=None,
              latency=1.5)  # fmt: skip
        for i in range(2):
            store.add_event(run, "agent-task", {"index": i})
        other = store.create_run("agent-eval", config={})
        _call(store, other, "react", "openai/gpt-5-mini", tokens=(9, 9), cost=9.0, latency=9.0)
        view = store.run_cost(run)
    react, judge = (next(s for s in view["stages"] if s["stage"] == n) for n in ("react", "judge"))
    assert (react["calls"], react["cached_calls"], react["failed_calls"]) == (3, 1, 1)
    assert (react["input_tokens"], react["output_tokens"], react["cost"]) == (150, 30, 0.01)
    assert abs(react["agent_hours"] * 3600 - (2.0 + 0.01 + 2.0)) < 1e-9  # queued left out
    assert abs(react["queued_hours"] * 3600 - 1.0) < 1e-9
    assert judge["unpriced_calls"] == 1 and judge["cost"] is None
    total = view["total"]
    assert total["calls"] == 4 and total["cost"] == 0.01 and total["unpriced_calls"] == 1
    assert total["input_tokens"] == 180 and view["per"]["unit"] == "task"
    assert view["per"]["count"] == 2 and view["per"]["cost"] == 0.005

    code, out, err = run_main("runs", "cost", "--db", str(db), "--run", run, "--json")
    assert code == 0, err
    assert json.loads(out)["total"] == json.loads(json.dumps(total))
    code, out, _ = run_main("runs", "cost", "--db", str(db), "--run", run)
    assert "react" in out and "$0.0100 (+1 unpriced)" in out and "per task (2): $0.0050" in out
    code, out, _ = run_main("runs", "cost", "--db", str(db))  # the latest run
    assert code == 0 and "$9.0000" in out
    code, _, err = run_main("runs", "cost", "--db", str(db), "--run", "nope")
    assert code == 2 and "no run 'nope'" in err
    code, _, err = run_main("runs", "cost", "--db", str(tmp_path / "missing.db"))
    assert code == 2 and "database not found" in err
