"""Scores a skeptical reviewer accepts (issue 20, items 2 and 3): the reported accuracy is
a count by hand, unjudged answers stand beside it, nothing to score is n/a, the ± says
what it is, costs are over all tasks, and made-up or repeated tools are scored as such."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from scigate.agents import EvalConfig, EvalResult, Task, evaluate, load_bench, render_markdown
from scigate.agents._eval import answer_line, summarize_rows
from scigate.agents._scoring import canonical_names, tool_scores
from scigate.llm import get_model

from .conftest import spec

HONEST = Path(__file__).parent / "models" / "honest.py"


def honest(fn: str) -> str:
    return f"python/{HONEST}:{fn}"


# The cases of models/honest.py; by hand:
#   answers  level 1: t1 correct, t2 correct (its reference is SciToolEval's final_answer),
#                     t3 wrong                                        -> 2/2+1 = 66.67
#            level 2: t4 wrong, t5 unjudged, t6 unjudged, t8 correct -> 1/2 = 50.00
#            level 3: t7 has no reference answer                      -> n/a
#            overall: 3 correct of 5 judged                           -> 60.00, 2 unjudged
#   tools    t1 1, t2 0, t3 1 (its reference lists SMILESToWeight twice), t5 1, t6 0, t8 1;
#            t4 and t7 have no reference path (n/a)                   -> 4/6 = 66.67
BENCH = [
    {
        "question": "[case t1] What is the molecular weight of CCO?",
        "tool_path": ["SMILESToWeight"],
        "Parameter": "CCO",
        "answer": "46.07",
        "level": 1,
    },
    {
        "question": "[case t2] What is the InChIKey of CCO?",
        "tool_path": ["SMILESToInChI", "InChIToInChIKey"],
        "Parameter": "CCO",
        "final_answer": "LFQSCWFLJHTTHZ-UHFFFAOYSA-N",
        "level": 1,
    },
    {
        "question": "[case t3] What is the molecular weight of CCCO, and of CCO?",
        "tool_path": ["SMILESToWeight", "SMILESToWeight"],
        "Parameter": ["CCCO", "CCO"],
        "answer": "60.1",
        "level": 1,
    },
    {
        "question": "[case t4] Is CCO an alcohol?",
        "answer": "True",
        "format": "true/false",
        "level": 2,
    },
    {
        "question": "[case t5] Which painkiller is safer?",
        "tool_path": ["GetHeavyAtomsNum"],
        "answer": "aspirin is safer than ibuprofen",
        "level": 2,
    },
    {
        "question": "[case t6] Why is cyclopropane reactive?",
        "tool_path": ["SMILESToWeight"],
        "answer": "the ring strain",
        "level": 2,
    },
    {
        "question": "[case t8] Which molecule has the larger weight?",
        "tool_path": ["SMILESToInChI"],
        "options": {"A": "CCO", "B": "CCCCO"},
        "answer": "B",
        "level": 2,
    },
    {"question": "[case t7] How many atoms does it have, roughly?", "level": 3},
]


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _eval_cli(tmp_path: Path, capsys, name: str, *extra: str) -> tuple[str, Path]:
    from scigate.cli._agent import app

    bench = _write(tmp_path / "bench.jsonl", BENCH)
    out = tmp_path / name
    args = ["eval", "--method", "direct", "--bench", str(bench), "--known-ratio", "1.0"]
    args += ["--model", honest("casebook"), "--out", str(out), *extra]
    assert app(args=args, standalone_mode=False) in (None, 0)
    return " ".join(capsys.readouterr().out.split()), out


def _by_hand(rows: list[dict]) -> tuple[float, int]:
    judged = [r for r in rows if r["status"] in ("correct", "wrong")]
    return 100.0 * sum(r["status"] == "correct" for r in judged) / len(judged), len(judged)


def test_agent_eval_reports_the_count_by_hand_with_unjudged_and_na_beside_it(tmp_path, capsys):
    text, out = _eval_cli(tmp_path, capsys, "rules")
    rows = [json.loads(line) for line in (out / "rows.jsonl").read_text().splitlines()]
    by_case = {r["question"].split("]")[0][6:]: r for r in rows}
    assert [by_case[c]["status"] for c in ("t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8")] == [
        "correct",
        "correct",
        "wrong",
        "wrong",
        "unjudged",
        "unjudged",
        "no-reference",
        "correct",
    ]
    accuracy, judged = _by_hand(rows)
    assert (accuracy, judged) == (60.0, 5)
    summary = json.loads((out / "results.json").read_text())["summary"]
    overall = summary["overall"]
    assert overall["answer"]["mean"] == pytest.approx(accuracy)  # never 3/7 (unjudged folded)
    assert (overall["correct"], overall["judged"], overall["unjudged"]) == (3, 5, 2)
    assert overall["no_reference"] == 1
    assert overall["tool"]["mean"] == pytest.approx(100.0 * 4 / 6)
    assert summary["levels"]["1"]["answer"]["mean"] == pytest.approx(200.0 / 3)
    assert summary["levels"]["2"]["answer"]["mean"] == pytest.approx(50.0)
    level3 = summary["levels"]["3"]
    assert level3["tool"] == {"mean": None, "std": None}  # nothing to score: n/a, not 100
    assert level3["answer"] == {"mean": None, "std": None}  # not 0.00
    # the repeated reference tool scores an exact match; a task without a path scores n/a
    assert by_case["t3"]["reference_chain"] == ["SMILESToWeight"]
    assert by_case["t3"]["tool_exact"] == 1.0
    assert by_case["t4"]["tool_exact"] is None and by_case["t7"]["tool_exact"] is None
    # every row says who decided and why
    assert by_case["t1"]["verdict"]["by"] == "rule" and by_case["t1"]["verdict"]["kind"]
    assert by_case["t5"]["verdict"]["outcome"] == "unjudged"
    assert "no judge configured" in by_case["t5"]["verdict"]["reason"]
    assert by_case["t5"]["judge_reply"] is None
    md = (out / "results.md").read_text()
    assert "| 3 | 1 | n/a | n/a | n/a | n/a | 0/0 (1 without reference) | 0 | 0 |" in md
    assert (
        "| overall | 8 | 66.67 | " in md and "| 60.00 | 3/5 (1 without reference) | 2 | 0 |" in md
    )
    assert "One run: no standard deviation." in md
    assert (
        "Answer 60.00 (one run, no sd; 3/5 judged; 2 unjudged; 0 errors; "
        "1 without a reference answer)" in text
    )
    assert "Tool 66.67 (one run, no sd; 6 of 8 task runs with a reference path)" in text


def test_a_judge_decides_only_what_the_rules_leave_and_its_reply_is_recorded(tmp_path, capsys):
    text, out = _eval_cli(tmp_path, capsys, "judged", "--judge", honest("casebook_judge"))
    rows = [json.loads(line) for line in (out / "rows.jsonl").read_text().splitlines()]
    by_case = {r["question"].split("]")[0][6:]: r for r in rows}
    assert by_case["t5"]["status"] == "correct" and by_case["t6"]["status"] == "wrong"
    assert by_case["t5"]["judged_by"] == "llm" and by_case["t5"]["verdict"]["by"] == "llm"
    assert "judge: Yes" in by_case["t5"]["verdict"]["reason"]
    assert json.loads(by_case["t5"]["judge_reply"])["reason"] == "case judged Yes"
    # the rules decided the others: the judge was not asked, no reply is recorded
    assert by_case["t1"]["judged_by"] == "rule" and by_case["t1"]["judge_reply"] is None
    assert by_case["t7"]["status"] == "no-reference" and by_case["t7"]["judge_reply"] is None
    accuracy, judged = _by_hand(rows)
    assert judged == 7 and accuracy == pytest.approx(400.0 / 7)
    assert "Answer 57.14 (one run, no sd; 4/7 judged; 0 unjudged; 0 errors;" in text


def test_the_spread_is_the_sample_sd_over_runs_and_says_so():
    def row(run: int, index: int, status: str) -> dict:
        return {
            "run": run,
            "index": index,
            "level": 1,
            "status": status,
            "reference_answer": "x",
            "reference_chain": ["A"],
            "tool_exact": 1.0,
            "tool_set_f1": 1.0,
            "tool_lcs": 1.0,
            "calls": 1,
            "unpriced_calls": 1,
            "input_tokens": 1,
            "output_tokens": 1,
            "latency": 0.0,
            "wall_seconds": 0.0,
            "estimated_tokens": False,
            "cost": None,
        }

    per_run = [["correct", "correct", "wrong"], ["correct"] * 3, ["correct", "wrong", "wrong"]]
    rows = [row(r, i, st) for r, sts in enumerate(per_run) for i, st in enumerate(sts)]
    summary = summarize_rows(rows, runs=3)
    answer = summary["overall"]["answer"]
    values = [200.0 / 3, 100.0, 100.0 / 3]
    assert answer["std"] == pytest.approx(statistics.stdev(values))  # not pstdev's 27.22
    assert summary["overall"]["runs"]["answer"] == 3
    line = answer_line(summary["overall"], 3)
    assert line.startswith(f"Answer 66.67 ± {statistics.stdev(values):.2f} (sample sd, n=3 runs;")
    result = EvalResult(
        config={"method": "cot", "tasks": 3, "runs": 3, "known_ratio": 1.0, "split_seed": 0},
        rows=rows,
        summary=summary,
    )
    md = render_markdown(result)
    assert "± is the sample standard deviation over the runs (n=3 runs)" in md
    assert "| overall | 3 | 100.00 ± 0.00 |" in md
    # one run has no sample sd: shown without a ±, never as ± 0.00
    single = summarize_rows([r for r in rows if r["run"] == 0], runs=1)
    assert single["overall"]["answer"] == {"mean": pytest.approx(200.0 / 3), "std": None}


class _Priced:
    """The casebook model with prices: every call of case t1 costs $0.001, only the summary
    of case t3 is priced ($0.002), case t6 has no priced call at all."""

    def __init__(self) -> None:
        self.inner = get_model(honest("casebook"))

    async def generate(self, messages, tools=None, **settings):
        out = await self.inner.generate(messages, tools=tools, **settings)
        text = json.dumps(messages)
        if "[case t1]" in text:
            out.cost = 0.001
        elif "[case t3]" in text and messages[-1]["content"].startswith("Answer a scientific"):
            out.cost = 0.002
        else:
            out.cost = None
        return out


async def test_cost_is_averaged_over_all_tasks_with_the_unpriced_calls_shown(
    tools, embedder, tmp_path
):
    tasks = load_bench(_write(tmp_path / "b.jsonl", [BENCH[0], BENCH[2], BENCH[5]]))
    config = EvalConfig(method="direct", known_ratio=1.0)
    result = await evaluate(_Priced(), tasks, tools, config, embedder=embedder)
    t1, t3, t6 = result.rows
    assert t1["cost"] == pytest.approx(0.001 * t1["calls"]) and t1["unpriced_calls"] == 0
    assert t3["cost"] == pytest.approx(0.002) and t3["unpriced_calls"] == t3["calls"] - 1
    assert t6["cost"] is None and t6["unpriced_calls"] == t6["calls"]
    cost = result.summary["cost"]
    # over all three tasks (an unpriced call adds nothing), not over the two priced rows
    assert cost["api_cost"] == pytest.approx((0.001 * t1["calls"] + 0.002) / 3)
    assert cost["unpriced_calls"] == t3["calls"] - 1 + t6["calls"]
    md = render_markdown(result)
    assert f"| {cost['api_cost']:.4f} ({cost['unpriced_calls']} unpriced calls) |" in md


class _MadeUp:
    """The scripted policy, except that the simple plan of the first question adds a tool
    that does not exist."""

    def __init__(self) -> None:
        self.inner = get_model(spec("policy"))

    async def generate(self, messages, tools=None, **settings):
        text = messages[-1]["content"]
        if text.startswith("Plan the tool chain") and "of CCO?" in text:
            from scigate.llm import ModelOutput

            plan = {"tool_chain": ["SMILESToWeight", "MadeUpWeigher"]}
            return ModelOutput(model="made-up", text=json.dumps(plan))
        return await self.inner.generate(messages, tools=tools, **settings)


async def test_a_made_up_tool_name_counts_against_tool_accuracy(tools, embedder, tmp_path):
    tasks = [
        Task(
            question=f"What is the molecular weight of {s}?",
            parameter=s,
            tool_path=["SMILESToWeight"],
            answer=answer,
        )
        for s, answer in (("CCO", "46.07"), ("CCCO", "60.1"))
    ]
    config = EvalConfig(method="evo", known_ratio=1.0, memory=str(tmp_path / "m.db"))
    result = await evaluate(_MadeUp(), tasks, tools, config, embedder=embedder)
    made_up, clean = result.rows
    assert made_up["route"] == "simple"
    assert made_up["executed_chain"] == ["SMILESToWeight"]  # the real tool ran
    assert made_up["predicted_chain"] == ["SMILESToWeight", "MadeUpWeigher"]
    assert made_up["tool_exact"] == 0.0 and made_up["tool_lcs"] == pytest.approx(0.5)
    assert clean["tool_exact"] == 1.0
    # by hand: one exact chain of two, not the 100 of the cleaned chains
    assert result.summary["overall"]["tool"]["mean"] == pytest.approx(50.0)


def test_reference_chains_are_normalised_like_predicted_ones(tools):
    from scigate.agents import alias_table

    aliases = alias_table(tools)
    reference = canonical_names(["SMILESToWeight", " SMILESToWeight ", "smilestoweight"], aliases)
    assert reference == ["SMILESToWeight"]
    assert tool_scores(canonical_names(["SMILESToWeight"], aliases), reference)["exact"] == 1.0
    # an unknown name is kept as written, and counts against the chain
    assert canonical_names(["SMILESToWeight", "NoSuchTool"], aliases)[-1] == "NoSuchTool"


def test_scitooleval_final_answer_is_the_reference(tmp_path):
    rows = [
        {"question": "q1", "tool_path": "SMILESToInChI, InChIToInChIKey", "final_answer": "K"},
        {"question": "q2", "answer": "A", "final_answer": "B"},
        {"question": "q3"},
    ]
    first, second, third = load_bench(_write(tmp_path / "b.jsonl", rows))
    assert first.answer == "K" and first.tool_path == ["SMILESToInChI", "InChIToInChIKey"]
    assert second.answer == "A"  # `answer` first when both are there
    assert third.answer is None


class _BaselineMadeUp:
    """A baseline's planner that writes a tool that does not exist into its chain."""

    async def generate(self, messages, tools=None, **settings):
        from scigate.llm import ModelOutput

        text = messages[-1]["content"]
        if text.startswith(("Choose the tool chain", "Plan the tool chain")):
            plan = {"tool_chain": ["SMILESToWeight", "MadeUpWeigher"]}
            return ModelOutput(model="made-up", text=json.dumps(plan))
        return ModelOutput(model="made-up", text="Answer: 46.07")


@pytest.mark.parametrize("method", ["direct", "scitoolagent"])
async def test_a_baselines_made_up_tool_counts_against_tool_accuracy(
    tools, embedder, method, tmp_path
):
    """The baselines dropped unknown names before scoring (75.0 reported, 72.2 by hand)."""
    task = Task(
        question="What is the molecular weight of CCO?",
        parameter="CCO",
        tool_path=["SMILESToWeight"],
        answer="46.07",
    )
    config = EvalConfig(method=method, known_ratio=1.0)
    result = await evaluate(_BaselineMadeUp(), [task], tools, config, embedder=embedder)
    (row,) = result.rows
    assert row["executed_chain"] == ["SMILESToWeight"]  # the real tool still ran
    assert row["predicted_chain"] == ["SMILESToWeight", "MadeUpWeigher"]
    assert row["tool_exact"] == 0.0


class _ReactMadeUp:
    """ReAct: calls a tool that does not exist, then the real one, then answers."""

    async def generate(self, messages, tools=None, **settings):
        from scigate.llm import ModelOutput, ToolCall

        called = sum(1 for m in messages if m.get("role") == "tool")
        if called == 0:
            call = ToolCall(id="1", name="MadeUpWeigher", arguments={"smiles": "CCO"})
            return ModelOutput(model="made-up", tool_calls=[call])
        if called == 1:
            call = ToolCall(id="2", name="SMILESToWeight", arguments={"smiles": "CCO"})
            return ModelOutput(model="made-up", tool_calls=[call])
        return ModelOutput(model="made-up", text="Answer: 46.07")


async def test_a_react_call_of_a_made_up_tool_counts_against_tool_accuracy(tools, embedder):
    task = Task(
        question="What is the molecular weight of CCO?",
        parameter="CCO",
        tool_path=["SMILESToWeight"],
        answer="46.07",
    )
    config = EvalConfig(method="react", known_ratio=1.0)
    result = await evaluate(_ReactMadeUp(), [task], tools, config, embedder=embedder)
    (row,) = result.rows
    assert row["executed_chain"] == ["SMILESToWeight"]
    assert row["predicted_chain"] == ["MadeUpWeigher", "SMILESToWeight"]
    assert row["tool_exact"] == 0.0
