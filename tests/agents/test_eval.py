import json

import pytest

from scigate.agents import (
    EvalConfig,
    Task,
    answer_match,
    evaluate,
    load_bench,
    render_markdown,
    tool_scores,
    write_result,
)
from scigate.errors import BadInput

from .conftest import spec

BENCH = [
    {
        "question": "What is the molecular weight of CCO?",
        "tool_path": ["SMILESToWeight"],
        "Parameter": "CCO",
        "answer": "46.07",
        "level": 1,
        "domain": "chemistry",
    },
    {
        "question": "What is the InChIKey of the molecule with SMILES CCO?",
        "tool_path": ["SMILESToInChI", "InChIToInChIKey"],
        "Parameter": "CCO",
        "answer": "LFQSCWFLJHTTHZ-UHFFFAOYSA-N",
        "level": 2,
    },
    {
        "question": "Which molecule has the largest molecular weight?",
        "tool_path": ["SMILESToWeight"],
        "Parameter": ["CCO", "CCCCO"],
        "answer": "B",
        "options": {"A": "CCO", "B": "CCCCO"},
        "level": 2,
    },
    {
        "question": "What is the molecular weight of C1CC?",
        "tool_path": ["SMILESToWeight"],
        "Parameter": "C1CC",
        "answer": "42.08",
        "level": 1,
    },
]


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_tool_and_answer_scoring():
    assert tool_scores(["A", "B"], ["A", "B"]) == {"exact": 1.0, "set_f1": 1.0, "lcs": 1.0}
    s = tool_scores(["A", "C", "B"], ["A", "B"])
    assert (
        s["exact"] == 0 and s["set_f1"] == pytest.approx(0.8) and s["lcs"] == pytest.approx(2 / 3)
    )
    t = Task(question="q", answer="46.07")
    assert answer_match("46.069", t) and answer_match("46.3 g/mol", t)
    assert answer_match("50.0 g/mol", t) is False and answer_match("51", t) is False
    opts = Task(question="q", answer="B", options={"A": "CCO", "B": "CCCCO"})
    assert (
        answer_match("B", opts)
        and answer_match("CCCCO", opts)
        and answer_match("(A)", opts) is False
    )
    tf = Task(question="q", answer="True")
    assert answer_match("true, because ...", tf) and answer_match("False", tf) is False
    assert answer_match("a plausible essay", Task(question="q", answer="aspirin is safer")) is None


def test_load_bench_errors(tmp_path):
    good = load_bench(_write(tmp_path / "b.jsonl", BENCH))
    assert len(good) == 4 and good[2].parameters() == ["CCO", "CCCCO"] and good[1].line == 2
    with pytest.raises(BadInput, match=r"b2.jsonl:2: not valid JSON"):
        (tmp_path / "b2.jsonl").write_text(json.dumps(BENCH[0]) + "\n{oops\n")
        load_bench(tmp_path / "b2.jsonl")
    with pytest.raises(BadInput, match=r":1: missing 'question'"):
        load_bench(_write(tmp_path / "b3.jsonl", [{"tool_path": []}]))
    with pytest.raises(BadInput, match="cannot read"):
        load_bench(tmp_path / "missing.jsonl")
    with pytest.raises(BadInput, match=r":1: field 'level'"):
        load_bench(_write(tmp_path / "b4.jsonl", [{"question": "q", "level": "hard"}]))


async def test_harness_accuracy_and_cost(tools, embedder, model, tmp_path):
    tasks = load_bench(_write(tmp_path / "b.jsonl", BENCH))
    config = EvalConfig(method="scitoolagent", runs=2, known_ratio=1.0)
    result = await evaluate(model, tasks, tools, config, embedder=embedder)
    rows = result.rows
    assert len(rows) == 8
    by_index = {r["index"]: r for r in rows if r["run"] == 0}
    assert by_index[0]["tool_exact"] == 1 and by_index[0]["answer_correct"] == 1
    # the planner takes the one-step SMILESToInChIKey: right answer, inexact chain
    assert (
        by_index[1]["predicted_chain"] == ["SMILESToInChIKey"]
        and by_index[1]["answer_correct"] == 1
    )
    assert by_index[1]["tool_exact"] == 0 and by_index[1]["tool_set_f1"] == 0
    assert by_index[2]["answer"] == "B" and by_index[2]["answer_correct"] == 1
    # invalid SMILES: the tool fails, the script answers "unknown", which no rule decides
    # and no judge was given: unjudged, never silently wrong
    assert by_index[3]["status"] == "unjudged" and by_index[3]["answer_correct"] is None
    s = result.summary
    assert s["overall"]["unjudged"] == 2 and s["overall"]["errors"] == 0
    assert s["overall"]["answer_decided"]["mean"] == pytest.approx(100.0)
    assert s["overall"]["tool"] == {"mean": 75.0, "std": 0.0}
    assert s["levels"]["2"]["tool"]["mean"] == pytest.approx(50.0)
    # issue 20: Answer is over the judged answers; the unjudged are counted beside it
    assert s["overall"]["answer"]["mean"] == pytest.approx(100.0)
    assert s["overall"]["answer_lower_bound"]["mean"] == pytest.approx(75.0)
    assert s["levels"]["1"]["answer"]["mean"] == pytest.approx(100.0)
    assert s["levels"]["2"]["answer"]["mean"] == pytest.approx(100.0)
    assert s["cost"]["llm_calls"] == pytest.approx(sum(r["calls"] for r in rows) / 8)
    assert s["cost"]["input_tokens"] == pytest.approx(sum(r["input_tokens"] for r in rows) / 8)
    assert s["cost"]["api_cost"] is None and s["cost"]["estimated_tokens"]
    write_result(result, tmp_path / "out")
    assert "| overall | 4 | 75.00 ± 0.00" in (tmp_path / "out" / "results.md").read_text()
    assert (
        json.loads((tmp_path / "out" / "results.json").read_text())["summary"]["overall"]["n"] == 4
    )
    assert "Cost per task" in render_markdown(result)


async def test_llm_judge_for_free_text(tools, embedder, model, tmp_path):
    from scigate.agents import judge_answer
    from scigate.llm import get_model

    judge = get_model(spec("policy"))
    task = Task(question="Name it", answer="ethanol")
    assert await judge_answer(judge, task, "it is ethanol, clearly") == (True, "llm")
    assert await judge_answer(judge, task, "propanol") == (False, "llm")
    assert await judge_answer(None, task, "it is ethanol, clearly") == (None, "unjudged")


async def test_evo_eval_with_training(tools, embedder, model, tmp_path):
    tasks = load_bench(_write(tmp_path / "b.jsonl", BENCH[:2]))
    config = EvalConfig(method="evo", known_ratio=1.0, memory=str(tmp_path / "mem.db"))
    result = await evaluate(model, tasks, tools, config, train=tasks[:1], embedder=embedder)
    assert result.accumulation[0]["base_successes"] == 1
    assert result.rows[0]["route"] == "skill"  # learnt during accumulation
    assert result.summary["overall"]["answer"]["mean"] == 100.0


def test_cli_eval_and_bad_input(tmp_path):
    from scigate.cli._agent import app
    from scigate.store import Store

    bench = _write(tmp_path / "b.jsonl", BENCH[:1])
    out, db = tmp_path / "out", tmp_path / "runs.db"
    app(
        args=[
            "eval",
            "--method",
            "direct",
            "--bench",
            str(bench),
            "--model",
            spec("policy"),
            "--known-ratio",
            "1.0",
            "--out",
            str(out),
            "--db",
            str(db),
            "--json",
        ],
        standalone_mode=False,
    )
    summary = json.loads((out / "results.json").read_text())["summary"]
    assert summary["overall"]["answer"]["mean"] == 100.0
    store = Store(db)
    calls = store.model_calls()
    assert len(calls) == round(summary["cost"]["llm_calls"]) and calls[0]["role"] == "direct"
    assert store.events(kind="agent-task")[0]["data"]["answer_correct"] == 1.0
    store.close()
    with pytest.raises(BadInput, match="unknown method 'magic'"):
        app(
            args=["eval", "--method", "magic", "--bench", str(bench), "--model", spec("policy")],
            standalone_mode=False,
        )
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q"}\nnot json\n')
    with pytest.raises(BadInput, match=r"bad.jsonl:2:"):
        app(
            args=["eval", "--method", "cot", "--bench", str(bad), "--model", spec("policy")],
            standalone_mode=False,
        )


def test_cli_run_shows_trajectory(tmp_path, capsys):
    from scigate.cli._agent import app

    app(
        args=[
            "run",
            "--model",
            spec("policy"),
            "--method",
            "evo",
            "--known-ratio",
            "1.0",
            "--parameter",
            "CCO",
            "--memory",
            str(tmp_path / "m.db"),
            # three tools: a complex task, so the bandit gate decides (Appendix G routing)
            "What is the InChIKey and the molecular weight of the molecule with SMILES CCO?",
        ],
        standalone_mode=False,
    )
    text = capsys.readouterr().out
    assert (
        "gate" in text and "ConvertSmilesToInchi" in text and "LFQSCWFLJHTTHZ-UHFFFAOYSA-N" in text
    )


def test_cli_eval_prints_a_markup_like_answer_literally(tmp_path, capsys):
    from scigate.cli._agent import app

    policy = tmp_path / "brackets.py"
    policy.write_text(
        "def policy(messages, tools=None, **settings):\n"
        "    if 'JSON' in messages[-1]['content']:\n"
        '        return \'{"tool_chain": [], "missing": []}\'\n'
        "    return 'Answer: [/INST] 5'\n"
    )
    bench = _write(tmp_path / "b.jsonl", [{"question": "What is x?", "answer": "5"}])
    app(
        args=[
            "eval",
            "--method",
            "cot",
            "--bench",
            str(bench),
            "--model",
            f"python/{policy}:policy",
        ],
        standalone_mode=False,
    )
    assert "[/INST] 5" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("command", "body", "status"),
    [
        ("run", "raise RuntimeError('server unreachable')", "failed"),
        ("eval", "raise KeyboardInterrupt", "interrupted"),
        ("run", "raise KeyboardInterrupt", "interrupted"),
    ],
)
def test_cli_marks_a_run_that_did_not_finish(tmp_path, command, body, status):
    from scigate.cli._agent import app
    from scigate.store import Store

    policy = tmp_path / "broken.py"
    policy.write_text(f"def policy(messages, tools=None, **settings):\n    {body}\n")
    db = tmp_path / "runs.db"
    model = ["--model", f"python/{policy}:policy", "--method", "cot", "--db", str(db)]
    if command == "run":
        args = ["run", *model, "What is the molecular weight of CCO?"]
    else:
        args = ["eval", *model, "--bench", str(_write(tmp_path / "b.jsonl", BENCH[:1]))]
    if status == "interrupted":  # typer turns Ctrl-C into exit status 130
        assert app(args=args, standalone_mode=False) == 130
    else:
        with pytest.raises(Exception, match="server unreachable"):
            app(args=args, standalone_mode=False)
    store = Store(db)
    assert [r["status"] for r in store.runs()] == [status]
    store.close()


def test_numeric_answers_ignore_formula_subscripts() -> None:
    """The reference 4 is not matched by the 4 in a molecular formula."""
    from scigate.agents import answer_match
    from scigate.agents._records import Task

    task = Task(question="How many rings?", answer="4")
    assert answer_match("C9H8O4 has 1 ring", task) is False
    assert answer_match("It has 4 rings", task) is True
    weight = Task(question="MW?", answer="180.16")
    assert answer_match("C9H8O4 weighs 180.2 g/mol", weight) is True


def test_cli_eval_limit_runs_the_first_tasks_in_file_order(tmp_path):
    from scigate.cli._agent import app

    bench = _write(tmp_path / "b.jsonl", BENCH)
    out = tmp_path / "out"
    args = ["eval", "--method", "direct", "--bench", str(bench), "--model", spec("policy")]
    app(args=[*args, "--limit", "2", "--runs", "2", "--out", str(out), "--json"],
        standalone_mode=False)  # fmt: skip
    rows = [json.loads(x) for x in (out / "rows.jsonl").read_text().splitlines()]
    assert sorted((r["run"], r["index"]) for r in rows) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert {r["question"] for r in rows} == {BENCH[0]["question"], BENCH[1]["question"]}
    summary = json.loads((out / "results.json").read_text())["summary"]
    assert summary["overall"]["n"] == 2 and summary["cost"]["tasks"] == 4
    # resuming with another limit is another set of tasks: refused, nothing rewritten
    with pytest.raises(BadInput):
        app(args=[*args, "--limit", "3", "--out", str(out), "--resume", "--runs", "2"],
            standalone_mode=False)  # fmt: skip
    assert len((out / "rows.jsonl").read_text().splitlines()) == 4


def test_cli_eval_epochs_repeat_each_task_and_report_per_epoch(tmp_path):
    from scigate.cli._agent import app

    bench = _write(tmp_path / "b.jsonl", BENCH)
    out = tmp_path / "out"
    args = ["eval", "--method", "direct", "--bench", str(bench), "--model", spec("policy"),
            "--limit", "3", "--epochs", "2", "--out", str(out), "--json"]  # fmt: skip
    app(args=args, standalone_mode=False)
    rows = [json.loads(x) for x in (out / "rows.jsonl").read_text().splitlines()]
    assert sorted((r["epoch"], r["index"]) for r in rows) == [
        (e, i) for e in (0, 1) for i in (0, 1, 2)
    ]
    summary = json.loads((out / "results.json").read_text())["summary"]
    assert summary["overall"]["runs"]["answer"] == 2  # mean ± sd over the two epochs
    assert sorted(summary["epochs"]) == ["0", "1"] and summary["epochs"]["1"]["n"] == 3
    assert summary["overall"]["judged"] == 6
    assert "3 tasks × 1 run(s) × 2 epochs" in (out / "results.md").read_text()
    # a killed run's missing (run, epoch, index) rows are the only ones a resume runs
    lines = (out / "rows.jsonl").read_text().splitlines()
    (out / "rows.jsonl").write_text("\n".join(lines[:4]) + "\n")
    app(args=[*args, "--resume"], standalone_mode=False)
    again = [json.loads(x) for x in (out / "rows.jsonl").read_text().splitlines()]
    assert len(again) == 6 and {(r["epoch"], r["index"]) for r in again} == {
        (r["epoch"], r["index"]) for r in rows
    }
    with pytest.raises(BadInput, match="Evo learns"):
        app(args=["eval", "--method", "evo", "--bench", str(bench), "--model", spec("policy"),
                  "--epochs", "2"], standalone_mode=False)  # fmt: skip
