"""The evaluation harness left running: isolation, appended rows, resume, concurrency."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scigate.agents import EvalConfig, EvalDir, Task, evaluate, load_bench, parse_judge_reply
from scigate.errors import BadInput

from .conftest import spec

SRC = Path(__file__).resolve().parents[2] / "src"

# A cot agent whose answer is "it is ethanol" for every question, unless the question
# says "crash" (the model call fails) or "stallnow" while $HANG is set (the call never ends).
AGENT = """
import json, os, re, time

def policy(messages, tools=None, **settings):
    text = json.dumps(messages)
    log = os.environ.get("CALLS_LOG")
    if log:
        with open(log, "a") as fh:
            fh.write(re.search(r"sample \\d", text).group(0) + "\\n")
    if "crash" in text:
        raise RuntimeError("agent server down")
    if "stallnow" in text and os.environ.get("HANG"):
        time.sleep(600)
    if "JSON" in messages[-1]["content"]:
        return '{"tool_chain": [], "missing": []}'
    return "Answer: it is ethanol"
"""

# A judge that fails on "boom", replies with prose around its JSON on "garbled", and
# otherwise says Yes when the reference occurs in the prediction.
JUDGE = """
import json

def judge(messages, tools=None, **settings):
    text = messages[-1]["content"]
    if "boom" in text:
        raise RuntimeError("judge server down")
    if "garbled" in text:
        return 'Sure. {"decision": "Yes", "reason": "close enough"}'
    ref = text.split("Reference answer:\\n")[1].split("\\n")[0]
    pred = text.split("Predicted answer:\\n")[1].split("\\n")[0]
    return json.dumps({"decision": "Yes" if ref in pred else "No", "reason": "compared"})
"""


def _file(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _bench(tmp_path: Path, questions: list[tuple[str, str]]) -> Path:
    path = tmp_path / "bench.jsonl"
    path.write_text("".join(json.dumps({"question": q, "answer": a}) + "\n" for q, a in questions))
    return path


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ('{"decision": "Yes", "reason": "same value"}', True),
        ('{"decision": "No", "reason": "off by 10%"}', False),
        ('```json\n{"decision": "no", "reason": "x"}\n```', False),
        ('{"decision": "Yes / No", "reason": "template echoed"}', None),
        ('The answer is right. {"decision": "Yes"}', None),  # prose around it
        ('{"correct": true}', None),  # another format
        ('{"decision": true}', None),
        ('{"decision": "No", "decision": "Yes"}', None),  # json would keep the last one
        ("Yes", None),
        ("", None),
    ],
)
def test_judge_replies_are_read_strictly(reply, verdict):
    assert parse_judge_reply(reply) is verdict


async def test_a_failing_judge_or_model_call_marks_only_its_task(tools, embedder, tmp_path):
    from scigate.llm import get_model

    agent = get_model(f"python/{_file(tmp_path, 'agent.py', AGENT)}:policy")
    judge = get_model(f"python/{_file(tmp_path, 'judge.py', JUDGE)}:judge")
    bench = _bench(
        tmp_path,
        [
            ("Which solvent is it?", "ethanol"),
            ("Which alcohol is it?", "methanol"),
            ("Which solvent is it (boom)?", "ethanol"),
            ("Which solvent is it (garbled)?", "ethanol"),
            ("Which solvent is it (crash)?", "ethanol"),
        ],
    )
    result = await evaluate(
        agent,
        load_bench(bench),
        tools,
        EvalConfig(method="cot", known_ratio=1.0),
        judge=judge,
        embedder=embedder,
        out=tmp_path / "out",
    )
    statuses = [r["status"] for r in result.rows]
    assert statuses == ["correct", "wrong", "error", "unjudged", "error"]
    assert "judge server down" in result.rows[2]["error"]
    assert result.rows[2]["error"].startswith("judge: ")
    assert "agent server down" in result.rows[4]["error"]
    overall = result.summary["overall"]
    assert overall["errors"] == 2 and overall["unjudged"] == 1
    assert overall["answer"]["mean"] == pytest.approx(50.0)  # 1 of 2 judged (issue 20)
    assert overall["answer_lower_bound"]["mean"] == pytest.approx(20.0)  # 1 of 5
    assert overall["answer_decided"]["mean"] == pytest.approx(50.0)  # 1 of 2 decided
    written = (tmp_path / "out" / "rows.jsonl").read_text().splitlines()
    assert [json.loads(line)["status"] for line in written] == statuses


def test_cli_exits_1_when_errors_dominate(tmp_path):
    from typer.testing import CliRunner

    from scigate.cli._app import app

    agent = _file(tmp_path, "agent.py", AGENT)
    done = "it is ethanol"  # the rules decide it: no judge needed
    bench = _bench(tmp_path, [("Which (crash)?", done)] * 2 + [("Which?", done)])
    args = ["agent", "eval", "--method", "cot", "--bench", str(bench), "--known-ratio", "1.0"]
    args += ["--model", f"python/{agent}:policy", "--out", str(tmp_path / "out")]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 1, res.output
    assert "2 of 3 tasks ended in an error" in res.stderr
    assert "agent server down" in res.stderr
    rows = [json.loads(x) for x in (tmp_path / "out" / "rows.jsonl").read_text().splitlines()]
    assert [r["status"] for r in rows] == ["error", "error", "correct"]
    # one error in three is reported, not fatal
    bench = _bench(tmp_path, [("Which (crash)?", done)] + [("Which?", done)] * 2)
    args[args.index("--out") + 1] = str(tmp_path / "out2")
    args[args.index("--bench") + 1] = str(bench)
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    summary = json.loads((tmp_path / "out2" / "results.json").read_text())["summary"]
    assert summary["overall"]["errors"] == 1 and "errors 1" in res.stdout


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_killed_evaluation_resumes_without_duplicating_rows(tmp_path, monkeypatch):
    from scigate.cli._agent import app

    agent = _file(tmp_path, "agent.py", AGENT)
    questions = [(f"Which solvent is sample {i}?", "it is ethanol") for i in range(5)]
    questions[3] = ("Which solvent is sample 3 (stallnow)?", "it is ethanol")
    bench = _bench(tmp_path, questions)
    out = tmp_path / "out"
    args = ["eval", "--method", "cot", "--bench", str(bench), "--known-ratio", "1.0"]
    args += ["--model", f"python/{agent}:policy", "--out", str(out), "--json"]
    env = {**os.environ, "PYTHONPATH": str(SRC), "HANG": "1"}
    env.pop("CALLS_LOG", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "scigate", "agent", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        rows_file = out / "rows.jsonl"
        while time.monotonic() < deadline:
            if rows_file.exists() and rows_file.read_bytes().count(b"\n") >= 3:
                break
            assert proc.poll() is None, "the evaluation ended before it was killed"
            time.sleep(0.1)
        else:
            pytest.fail("the evaluation wrote no rows in 120 s")
        time.sleep(0.3)  # task 3 hangs: nothing more is written
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    before = _rows(rows_file)
    assert [r["index"] for r in before] == [0, 1, 2]
    # as if the kill had torn the write of the next row
    with open(rows_file, "ab") as fh:
        fh.write(b'{"run": 0, "index": 3, "status": "corr')

    # a fresh start over the same directory would lose or mix rows: refused
    with pytest.raises(BadInput, match="pass --resume"):
        app(args=args, standalone_mode=False)
    other = [a if a != "cot" else "direct" for a in args]
    with pytest.raises(BadInput, match=r"other settings \(.*method"):
        app(args=[*other, "--resume"], standalone_mode=False)

    log = tmp_path / "calls.log"
    monkeypatch.delenv("HANG", raising=False)
    monkeypatch.setenv("CALLS_LOG", str(log))
    app(args=[*args, "--resume"], standalone_mode=False)
    after = _rows(rows_file)
    assert sorted((r["run"], r["index"]) for r in after) == [(0, i) for i in range(5)]
    assert all(r["status"] == "correct" for r in after)
    assert {r["index"]: r for r in after if r["index"] < 3} == {r["index"]: r for r in before}
    # the resumed evaluation ran only the two tasks without a row
    asked = set(log.read_text().splitlines())
    assert asked == {"sample 3", "sample 4"}
    summary = json.loads((out / "results.json").read_text())["summary"]
    assert summary["overall"]["answer"]["mean"] == 100.0 and summary["overall"]["n"] == 5


def test_a_torn_last_line_is_dropped_and_cut_from_the_file(tmp_path):
    out = tmp_path / "out"
    manifest = {"method": "cot"}
    d = EvalDir(out, manifest, resume=False)
    d.append_row({"run": 0, "index": 0, "status": "correct"})
    d.close()
    with open(out / "rows.jsonl", "ab") as fh:
        fh.write(b'{"run": 0, "index": 1, "sta')
    d = EvalDir(out, manifest, resume=True)
    assert [r["index"] for r in d.rows] == [0]
    d.append_row({"run": 0, "index": 1, "status": "wrong"})
    d.close()
    lines = (out / "rows.jsonl").read_text().splitlines()
    assert [json.loads(x)["index"] for x in lines] == [0, 1]  # no glued half line
    (out / "rows.jsonl").write_text('{"run": 0, "index": 0}\nnot json\n{"run": 0, "index": 2}\n')
    with pytest.raises(BadInput, match=r"rows.jsonl:2: not a row"):
        EvalDir(out, manifest, resume=True)


def _scores(rows: list[dict]) -> list[tuple]:
    keys = ("run", "index", "predicted_chain", "answer", "status", "tool_exact", "calls")
    return [tuple(json.dumps(r[k]) for k in keys) for r in rows]


async def test_concurrency_gives_the_sequential_scores(tools, embedder):
    from scigate.llm import get_model

    from .test_eval import BENCH

    tasks = [
        Task(**{k: v for k, v in b.items() if k != "Parameter"}, parameter=b["Parameter"])
        for b in BENCH
    ]
    model = get_model(spec("timed_policy"))
    peak = model.function.__globals__["IN_FLIGHT"]
    peak.update(now=0, max=0)
    sequential = await evaluate(
        model,
        tasks,
        tools,
        EvalConfig(method="scitoolagent", runs=2, known_ratio=0.5),
        embedder=embedder,
    )
    assert peak["max"] == 1
    parallel = await evaluate(
        model,
        tasks,
        tools,
        EvalConfig(method="scitoolagent", runs=2, known_ratio=0.5, concurrency=4),
        embedder=embedder,
    )
    assert peak["max"] > 1  # tasks really overlapped
    assert _scores(parallel.rows) == _scores(sequential.rows)
    assert parallel.summary["overall"] == sequential.summary["overall"]


async def test_evo_resumes_with_its_memory_and_without_a_second_accumulation(
    tools, embedder, model, tmp_path
):
    from .test_eval import BENCH

    bench = tmp_path / "b.jsonl"
    bench.write_text("".join(json.dumps(b) + "\n" for b in BENCH[:2]))
    tasks = load_bench(bench)
    out = tmp_path / "out"
    config = EvalConfig(method="evo", known_ratio=1.0)
    first = await evaluate(model, tasks, tools, config, train=tasks[:1], embedder=embedder, out=out)
    assert first.accumulation[0]["base_successes"] == 1
    assert (out / "memory-run0.db").exists()
    rows_file = out / "rows.jsonl"
    lines = rows_file.read_text().splitlines(keepends=True)
    assert first.rows[0]["route"] == "skill"  # learnt during accumulation
    rows_file.write_text(lines[1])  # as if the first task's row had never been written
    again = await evaluate(
        model, tasks, tools, config, train=tasks[:1], embedder=embedder, out=out, resume=True
    )
    reports = [a for a in again.accumulation if "base_successes" in a]
    assert len(reports) == 1  # read back, not run again
    assert [r["index"] for r in again.rows] == [0, 1]
    # accumulation was not repeated, yet the skill it learnt is there: the memory was kept
    assert again.rows[0]["route"] == "skill"
    assert len(rows_file.read_text().splitlines()) == 2


async def test_failures_during_accumulation_do_not_abort_the_evaluation(tools, embedder, tmp_path):
    from scigate.llm import get_model

    from .conftest import MODELS

    wrapper = _file(
        tmp_path,
        "poisoned.py",
        "import importlib.util, json\n"
        f"_s = importlib.util.spec_from_file_location('scripted_copy', {str(MODELS)!r})\n"
        "_m = importlib.util.module_from_spec(_s)\n"
        "_s.loader.exec_module(_m)\n"
        "def policy(messages, tools=None, **settings):\n"
        "    if 'poisoned' in json.dumps(messages):\n"
        "        raise RuntimeError('agent server down')\n"
        "    return _m.policy(messages, tools, **settings)\n"
        "def judge(messages, tools=None, **settings):\n"
        "    raise RuntimeError('judge server down')\n",
    )
    model = get_model(f"python/{wrapper}:policy")
    judge = get_model(f"python/{wrapper}:judge")
    test = [Task(question="What is the molecular weight of CCO?", parameter="CCO", answer="46.07")]
    # words the rules leave to the judge (the typed rules of issue 20 read "about 46 g/mol")
    free_text = Task(
        question="What is the molecular weight of CCO?",
        parameter="CCO",
        answer="forty-six grams per mole",
    )
    poisoned = Task(question="What is the poisoned weight of CCO?", parameter="CCO", answer="1")
    config = EvalConfig(method="evo", known_ratio=1.0)
    # a training judge call that fails is no success (never a reward), and is reported
    result = await evaluate(
        model, test, tools, config, train=[free_text], judge=judge, embedder=embedder
    )
    report = result.accumulation[0]
    assert report["base_successes"] == 0 and "judge server down" in report["judge_errors"][0]
    assert result.rows[0]["status"] == "correct"  # the rules decide; the judge is not asked
    # a model call that fails during accumulation stops it; the evaluation goes on
    result = await evaluate(model, test, tools, config, train=[poisoned], embedder=embedder)
    assert "agent server down" in result.accumulation[0]["error"]
    assert [r["status"] for r in result.rows] == ["correct"]
