"""`bench build --judge`: the Appendix D sample-quality prompt word for word, "No" rejects
with the judge's reason, and a judge that fails or cannot decide never accepts a task."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scigate.bench import BuildConfig, build, read_tasks
from scigate.bench._judge import SAMPLE_QUALITY, SAMPLE_QUALITY_SYSTEM, judge_messages
from scigate.cli._bench import app
from scigate.store import Store

runner = CliRunner()
JUDGES = Path(__file__).parent / "models" / "judges.py"

# Appendix D of SciToolAgent-Evo ("Prompt for Sample Quality Evaluation"), from the arXiv
# HTML, which drops line breaks and some spaces: compared with all whitespace removed.
PAPER_SYSTEM = "You are a scientific evaluation expert."
PAPER_USER = (
    "Below are a question, a reference tool chain, and the corresponding parameter. Please use "
    "the following rule to determine whether the sample satisfies the quality standard.[RULE]:1"
    ". Check whether the question is clearly stated and free of obvious ambiguity.2. Check whet"
    "her tool_path covers the scientific operations required by the question.3. Check whether t"
    "he input-output dependencies between adjacent tools in tool_path are valid and can form an"
    " executable chain.4. Judge as “No” if any condition fails; otherwise, “Yes”.Question:{ques"
    "tion}Reference tool chain:{tool_path}Parameter:{parameter}Strictly output the response inv"
    'alid JSONformat only. The requiredJSONformat is as follows:{"decision": "Yes / No","reason'
    '": "brief explanation"}'
)


def judge(fn: str) -> str:
    return f"python/{JUDGES}:{fn}"


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_prompt_is_the_papers_word_for_word() -> None:
    assert SAMPLE_QUALITY_SYSTEM == PAPER_SYSTEM
    assert _squash(SAMPLE_QUALITY.replace("{{", "{").replace("}}", "}")) == _squash(PAPER_USER)
    task = {"question": "Q?", "tool_path": ["A", "B"], "Parameter": "CCO"}
    system, user = judge_messages(task)
    assert system["content"] == PAPER_SYSTEM
    assert 'Question:\nQ?\nReference tool chain:\n["A", "B"]\nParameter:\n"CCO"' in user["content"]


def _attempts(db: Path, run_id: str) -> list[dict]:
    with Store(db) as store:
        return store.attempts(run_id)


def test_yes_accepts_and_no_rejects_with_the_reason(tmp_path: Path) -> None:
    config = BuildConfig(
        n=8, levels=[1, 2], generator="templates", judge=judge("rejects_lists"), seed=1,
        max_attempts=16,
    )  # fmt: skip
    report = build(config, tmp_path / "r.db", tmp_path / "o.jsonl")
    tasks = read_tasks(tmp_path / "o.jsonl")
    assert tasks and all(t["level"] == 1 for t in tasks)
    attempts = _attempts(tmp_path / "r.db", report.run_id)
    judged_no = [a for a in attempts if a["reason"].startswith("judge: No: too many objects")]
    assert judged_no and all(a["status"] == "rejected" for a in judged_no)
    assert all(a["detail"]["level"] == 2 for a in judged_no)
    accepted = [a for a in attempts if a["status"] == "accepted"]
    assert all(a["detail"]["judge"]["decision"] == "Yes" for a in accepted)
    assert report.rejected.get("judge", 0) == len(judged_no)


@pytest.mark.parametrize(("fn", "status"), [("rambles", "unjudged"), ("fails", "error")])
def test_an_undecided_judge_never_accepts(tmp_path: Path, fn: str, status: str) -> None:
    config = BuildConfig(
        n=2, levels=[1], generator="templates", judge=judge(fn), seed=1, max_attempts=4
    )
    report = build(config, tmp_path / "r.db", tmp_path / "o.jsonl")
    assert report.accepted == 0
    assert (tmp_path / "o.jsonl").read_text().strip() == ""
    judged = [a for a in _attempts(tmp_path / "r.db", report.run_id)
              if a["detail"]["stage"] == "judge"]  # fmt: skip
    assert judged and all(a["status"] == status for a in judged)


def test_cli_judge_option(tmp_path: Path) -> None:
    out, db = tmp_path / "o.jsonl", tmp_path / "r.db"
    result = runner.invoke(
        app,
        ["build", "--generator", "templates", "--n", "2", "--levels", "1", "--db", str(db),
         "--out", str(out), "--judge", judge("approves"), "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["accepted"] == 2
