"""Budgets (issue 36): a run stops before the call that could pass --max-cost, --max-tokens
or --max-calls, with exit status 3, what finished kept and the run `stopped`; a resume with
a higher budget ends with the rows of an unlimited run; a cost budget over an unpriced
model is refused before any call. Requests go to the loopback wire server (tests/llm/
_wire.py), which counts them; prices come from a $SCIGATE_PRICES table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from _modules import load_attr
from scigate.errors import BadInput, BudgetExceeded
from scigate.llm import Budget, Usage

TESTS = Path(__file__).parent.parent
MODEL = "openai-compatible/qwen3-8b"
PRICE = {"input": 2.0, "output": 8.0}  # USD per million tokens


WireServer = load_attr(Path(__file__).parent / "_wire.py", "WireServer")
BENCH = [
    {"question": "What is the molecular weight of CCO?", "tool_path": ["SMILESToWeight"],
     "Parameter": "CCO", "answer": "46.07", "level": 1},
    {"question": "What is the InChIKey of the molecule with SMILES CCO?",
     "tool_path": ["SMILESToInChI", "InChIToInChIKey"], "Parameter": "CCO",
     "answer": "LFQSCWFLJHTTHZ-UHFFFAOYSA-N", "level": 2},
    {"question": "What is the molecular weight of C1CC?", "tool_path": ["SMILESToWeight"],
     "Parameter": "C1CC", "answer": "42.08", "level": 1},
]  # fmt: skip


@pytest.fixture
def priced(tmp_path, monkeypatch) -> Path:
    table = tmp_path / "prices.json"
    table.write_text(json.dumps({MODEL: PRICE}))
    monkeypatch.setenv("SCIGATE_PRICES", str(table))
    monkeypatch.setenv("SCIGATE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SCIGATE_CACHE", raising=False)
    return table


@pytest.fixture
def server():
    s = WireServer({"policy": load_attr(TESTS / "agents/models/scripted.py", "policy")})
    yield s
    s.close()


def test_a_call_whose_worst_case_could_pass_a_budget_is_not_sent(priced):
    budget = Budget(max_cost=0.01)
    held = budget.reserve(MODEL, 1_000, 500)  # 0.002 + 0.004 USD at worst
    with pytest.raises(BudgetExceeded, match=r"--max-cost 0\.01 USD"):
        budget.reserve(MODEL, 1_000, 500)  # 0.012 with the first still in flight
    budget.settle(held, Usage(input_tokens=100, output_tokens=50), 0.0006)
    assert budget.spent() == {"calls": 1, "tokens": 150, "cost": 0.0006, "unpriced_calls": 0}
    budget.reserve(MODEL, 1_000, 500)  # 0.0066 now: fits
    tokens = Budget(max_tokens=1_000)
    tokens.reserve(MODEL, 400, 500)
    with pytest.raises(BudgetExceeded, match="--max-tokens 1000"):
        tokens.reserve(MODEL, 50, 100)
    calls = Budget(max_calls=1)
    calls.settle(calls.reserve(MODEL, 1, 1), None, None)  # a failed call is a call
    with pytest.raises(BudgetExceeded, match="--max-calls 1"):
        calls.reserve(MODEL, 1, 1)


def test_a_cost_budget_needs_a_price_unless_unpriced_calls_are_allowed(tmp_path, monkeypatch):
    monkeypatch.delenv("SCIGATE_PRICES", raising=False)
    with pytest.raises(BadInput, match="--allow-unpriced"):
        Budget(max_cost=1.0).check_priced(MODEL)
    Budget(max_cost=1.0, allow_unpriced=True).check_priced(MODEL)
    Budget(max_calls=3).check_priced(MODEL)  # no cost budget: no price needed
    with pytest.raises(BadInput, match="positive"):
        Budget(max_cost=0)


def _eval(server, tmp_path: Path, name: str, *extra: str) -> tuple[int, str, list[dict]]:
    from _cli import run_main

    bench = tmp_path / "bench.jsonl"
    bench.write_text("".join(json.dumps(r) + "\n" for r in BENCH))
    spec = f"{MODEL}?base_url={server.openai_url('policy')}&retry_wait=0.01&max_tokens=256"
    out = tmp_path / name
    code, _, err = run_main(
        *["agent", "eval", "--method", "react", "--bench", str(bench), "--model", spec],
        *["--out", str(out), "--db", str(tmp_path / f"{name}.db"), *extra],
    )
    rows_file = out / "rows.jsonl"
    lines = rows_file.read_text().splitlines() if rows_file.is_file() else []
    drop = {"wall_seconds", "latency", "model_free_seconds"}
    rows = [{k: v for k, v in json.loads(x).items() if k not in drop} for x in lines]
    return code, err, sorted(rows, key=lambda r: (r["run"], r["index"]))


def test_eval_stops_at_the_budget_and_a_resume_with_more_finishes_as_an_unlimited_run(
    priced, server, tmp_path
):
    from scigate.store import Store

    code, err, full = _eval(server, tmp_path, "full")
    assert code == 0 and len(full) == 3, err
    per_task = server.requests / 3
    with Store(tmp_path / "full.db") as db:
        total = db.query("SELECT SUM(cost) AS c FROM model_calls")[0]["c"]
    assert total > 0

    before = server.requests
    code, err, part = _eval(server, tmp_path, "part", "--max-cost", f"{total / 2:.6f}")
    assert code == 3, err
    assert "scigate: stopped: budget: --max-cost" in err and "continue with --resume" in err
    assert 0 < len(part) < 3 and f"{len(part)} of 3 tasks done" in err
    with Store(tmp_path / "part.db") as db:
        spent = db.query("SELECT SUM(cost) AS c FROM model_calls")[0]["c"]
        (run,) = db.query("SELECT status FROM runs")
    assert spent <= total / 2 and run["status"] == "stopped"
    assert server.requests - before < 3 * per_task

    code, err, resumed = _eval(server, tmp_path, "part", "--resume", "--max-cost", "100")
    assert code == 0, err
    assert resumed == full  # the same rows, cost included (same calls at the same price)


def test_calls_and_tokens_budgets_stop_the_eval_too(priced, server, tmp_path):
    code, err, rows = _eval(server, tmp_path, "calls", "--max-calls", "1")
    assert code == 3 and "--max-calls 1 reached" in err and server.requests == 1
    code, err, rows = _eval(server, tmp_path, "tokens", "--max-tokens", "300")
    assert code == 3 and "--max-tokens 300" in err and rows == []
    assert server.requests == 1  # the first call's worst case passes 300: nothing sent


def test_a_cost_budget_over_an_unpriced_model_is_refused_before_any_call(
    server, tmp_path, monkeypatch
):
    monkeypatch.delenv("SCIGATE_PRICES", raising=False)
    code, err, _ = _eval(server, tmp_path, "unpriced", "--max-cost", "1")
    assert code == 2 and err.count("\n") == 1 and "--allow-unpriced" in err
    assert server.requests == 0
    code, err, rows = _eval(server, tmp_path, "allowed", "--max-cost", "1", "--allow-unpriced")
    assert code == 0 and len(rows) == 3, err


def test_agent_run_stops_at_its_budget_too(priced, server):
    from _cli import run_main

    spec = f"{MODEL}?base_url={server.openai_url('policy')}&retry_wait=0.01&max_tokens=256"
    args = ["agent", "run", "--method", "react", "--model", spec, "--parameter", "CCO"]
    code, _, err = run_main(*args, "What is the molecular weight of CCO?", "--max-calls", "1")
    assert code == 3 and "--max-calls 1 reached" in err and server.requests == 1
    code, _, err = run_main(*args, "What is the molecular weight of CCO?", "--max-calls", "50")
    assert code == 0, err
