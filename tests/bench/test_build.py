"""`bench build`: a templates build over all levels and formats that `bench verify`
re-derives, reproducibility, the paper's rules, screens, the LLM writer, agent scoring."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scigate.bench import FORMATS, BuildConfig, build, read_tasks
from scigate.bench._compose import Rejected, reproducible
from scigate.bench._entities import load_entities
from scigate.cli._bench import app
from scigate.store import Store
from scigate.tools import canonical_type, get_tool, load_library

runner = CliRunner()
WRITERS = Path(__file__).parent / "models" / "writers.py"


def writer(fn: str) -> str:
    return f"python/{WRITERS}:{fn}"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:
    root = tmp_path_factory.mktemp("build")
    out, db = root / "bench.jsonl", root / "runs.db"
    result = runner.invoke(
        app,
        ["build", "--generator", "templates", "--n", "32", "--db", str(db), "--out", str(out),
         "--seed", "3", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out, db, json.loads(result.stdout)


def test_templates_build_covers_every_level_and_format(built) -> None:
    out, _, report = built
    tasks = read_tasks(out)
    assert report["accepted"] == len(tasks) == 32
    cells = {(t["level"], t["format"]) for t in tasks}
    assert cells == {(lv, f) for lv in (1, 2, 3, 4) for f in FORMATS}
    assert all(n == 2 for n in report["cells"].values())
    assert len({t["domain"] for t in tasks}) == 3
    lengths = {1: (1, 2), 2: (2, 4), 3: (3, 6), 4: (5, 10)}
    for t in tasks:
        lo, hi = lengths[t["level"]]
        assert lo <= len(t["tool_path"]) <= hi, t
        assert t["plan"]["edges"] and t["plan"]["runs"]
        # no step makes a second copy of a type already there (RandomMutation, Deprotect, ...):
        # it would silently change what the later steps and the question are about
        available = {canonical_type(t["plan"]["entity_type"])}
        for name in t["tool_path"]:
            outs = {canonical_type(o) for o in get_tool(name).spec.outputs}
            assert not outs & available, (name, t["tool_path"])
            available |= outs
        if t["format"] == "multiple choice":
            assert sorted(t["options"]) == ["A", "B", "C", "D"] and t["answer"] in t["options"]
        if t["format"] == "true/false":
            assert t["answer"] in ("True", "False") and "claim" in t["plan"]
        if t["level"] >= 2:
            # a rule over k outputs needs k + 1 candidates for every constraint to be
            # needed (issue 22), and never fewer than the four options of a screen
            rule = t["plan"]["rule"]
            assert isinstance(t["Parameter"], list)
            assert len(t["Parameter"]) >= max(4, len(rule["constraints"]) + 2)
            assert t["plan"]["rule"]["op"] in ("max", "min")
        else:
            assert len(t["plan"]["distractors"]) == 3  # executed near misses, with provenance
            assert all(d["how"] for d in t["plan"]["distractors"])


def test_verify_rederives_every_built_answer(built, tmp_path: Path) -> None:
    out, _, _ = built
    result = runner.invoke(app, ["verify", str(out), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["agrees"] == 32
    tasks = read_tasks(out)
    mc = next(i for i, t in enumerate(tasks) if t["format"] == "multiple choice")
    tasks[mc]["answer"] = next(k for k in "ABCD" if k != tasks[mc]["answer"])
    tampered = tmp_path / "t.jsonl"
    tampered.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    bad = runner.invoke(app, ["verify", str(tampered), "--workers", "1", "--json"])
    assert bad.exit_code == 1
    assert [t["task"] for t in json.loads(bad.stdout)["tasks"]] == [mc + 1]


def test_questions_keep_the_papers_rules(built) -> None:
    out, _, _ = built
    names = {n.lower() for n in load_library()}
    for t in read_tasks(out):
        words = {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9_\-]+", t["question"])}
        if t["level"] >= 2:
            assert not words & names, t["question"]
        assert "step" not in words and "tool" not in words
        if t["format"] != "true/false":  # a statement states its claim
            text = t["question"]
            for p in t["Parameter"] if isinstance(t["Parameter"], list) else [t["Parameter"]]:
                text = text.replace(p, " ")
            numbers = {float(x) for x in re.findall(r"(?<![\w.\-])\d+(?:\.\d+)?(?![\w.]*\w)", text)}
            for run in t["plan"]["runs"]:
                for value in run["values"].values():
                    if isinstance(value, (int, float)) and not isinstance(value, bool):
                        assert float(value) not in numbers, (value, t["question"])


def test_every_attempt_is_in_the_run_database(built) -> None:
    _, db, report = built
    with Store(db) as store:
        run = store.get_run(report["run_id"])
        attempts = store.attempts(report["run_id"])
    assert run["status"] == "finished" and run["kind"] == "bench-build"
    assert len(attempts) == report["attempts"]
    assert sum(a["status"] == "accepted" for a in attempts) == 32
    rejected = [a for a in attempts if a["status"] == "rejected"]
    assert all(a["reason"] for a in rejected)
    assert all({"level", "format", "domain", "stage"} <= set(a["detail"]) for a in attempts)


def test_report_shows_the_funnel_per_level_and_format(built, tmp_path: Path) -> None:
    _, db, report = built
    result = runner.invoke(app, ["report", "--db", str(db), "--json"])
    assert result.exit_code == 0, result.output
    funnel = json.loads(result.stdout)
    assert funnel["run_id"] == report["run_id"] and funnel["accepted"] == 32
    assert funnel["attempts"] == report["attempts"]
    assert len(funnel["cells"]) == 16
    assert sum(c["attempts"] for c in funnel["cells"].values()) == report["attempts"]
    assert funnel["rejected"] == report["rejected"]
    text = runner.invoke(app, ["report", "--db", str(db)])
    assert "L4/true/false: 2/" in text.stdout
    missing = runner.invoke(app, ["report", "--db", str(tmp_path / "none.db")])
    assert missing.exit_code == 2 and "database not found" in missing.stderr


def test_a_task_whose_answer_changes_between_executions_is_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flaky = get_tool("CountAtomsInFormula")
    rng = random.Random()
    monkeypatch.setattr(flaky, "fn", lambda formula: rng.random())
    formulas = load_entities()["formula"][:4]
    with pytest.raises(Rejected, match="answer changed between executions"):
        reproducible(["CountAtomsInFormula"], formulas)
    config = BuildConfig(n=4, levels=[2], domains=["materials"], seed=1, max_attempts=40)
    report = build(config, tmp_path / "r.db", tmp_path / "o.jsonl")
    tasks = read_tasks(tmp_path / "o.jsonl") if report.accepted else []
    assert all("CountAtomsInFormula" not in t["tool_path"] for t in tasks)
    with Store(tmp_path / "r.db") as store:
        reasons = [a["reason"] for a in store.attempts(report.run_id)]
    assert any("answer changed between executions" in r for r in reasons)


def test_cue_screens_must_fail_on_every_built_task(tmp_path: Path) -> None:
    screens = ["cue/largest", "cue/smallest", "cue/longest"]
    config = BuildConfig(n=8, levels=[1], seed=5, screens=screens)
    report = build(config, tmp_path / "r.db", tmp_path / "o.jsonl")
    assert report.accepted == 8
    assert report.rejected.get("screen", 0) >= 1
    from scigate.gate import Candidate, make_responder, run_screen

    for t in read_tasks(tmp_path / "o.jsonl"):
        if t["format"] != "multiple choice":
            continue
        candidate = Candidate(question=t["question"], options=t["options"], answer=t["answer"])
        for spec in screens:
            result = asyncio.run(run_screen(candidate, make_responder(spec), seed=5))
            assert not result.solved


def test_llm_writer_with_the_appendix_c_prompt(tmp_path: Path) -> None:
    config = BuildConfig(n=8, levels=[1, 2], generator=writer("good"), seed=2)
    report = build(config, tmp_path / "r.db", tmp_path / "o.jsonl")
    assert report.accepted == 8
    tasks = read_tasks(tmp_path / "o.jsonl")
    assert all(t["question"].startswith(("Regarding", "Of", "True or false")) for t in tasks)
    with Store(tmp_path / "r.db") as store:
        prompts = [a["detail"]["writer"]["prompt"] for a in store.attempts(report.run_id)
                   if a["status"] == "accepted"]  # fmt: skip
    assert any("Generate a terminology-level task" in p for p in prompts)
    assert all("You" not in p[:3] and "Candidate Tools:" in p for p in prompts)
    verified = runner.invoke(app, ["verify", str(tmp_path / "o.jsonl"), "--workers", "1"])
    assert verified.exit_code == 0, verified.output


@pytest.mark.parametrize(
    ("fn", "reason"),
    [
        ("names_a_tool", "rules: names a tool"),
        ("changes_path", "write: writer changed the tool path"),
        ("asks_about_another_entity", "write: the question does not name the parameter"),
    ],
)
def test_llm_writer_breaking_the_rules_is_rejected(tmp_path: Path, fn: str, reason: str) -> None:
    config = BuildConfig(n=2, levels=[2], generator=writer(fn), seed=2, max_attempts=4)
    report = build(config, tmp_path / "r.db", tmp_path / "o.jsonl")
    assert report.accepted == 0
    with Store(tmp_path / "r.db") as store:
        reasons = {a["reason"].split(" (")[0] for a in store.attempts(report.run_id)}
    assert reason in reasons, reasons


def test_agent_scoring_reads_the_format(built) -> None:
    from scigate.agents import load_bench
    from scigate.agents._scoring import answer_match

    out, _, _ = built
    raw = read_tasks(out)
    tasks = load_bench(out)
    assert [t.format for t in tasks] == [r["format"] for r in raw]
    for t in tasks:
        assert answer_match(f"Answer: {t.answer}", t) is True
        if t.format == "true/false":
            flipped = "False" if t.answer == "True" else "True"
            assert answer_match(f"Answer: {flipped}", t) is False
        if t.format == "multiple choice":
            other = next(k for k in "ABCD" if k != t.answer)
            assert answer_match(f"Answer: {other}", t) is False


def test_bad_build_input_is_one_line(tmp_path: Path) -> None:
    args = ["build", "--generator", "templates", "--n", "2", "--db", str(tmp_path / "r.db"),
            "--out", str(tmp_path / "o.jsonl")]  # fmt: skip
    bad = runner.invoke(app, [*args, "--levels", "1,7"])
    assert bad.exit_code == 2 and "--levels must be between 1 and 4, got 7" in bad.stderr
    worse = runner.invoke(app, [*args, "--levels", "one"])
    assert worse.exit_code == 2 and "numbers separated by commas" in worse.stderr
    cue = runner.invoke(app, [*args, "--screen", "cue/nonsense"])
    assert cue.exit_code == 2 and "unknown cue screen" in cue.stderr
