"""`bench release` ships an inspect_ai task: the real `inspect eval` CLI runs it with
tools in inspect's local sandbox (the tool libraries and the `scigate` CLI reachable from
a login shell) and without, every format scored by scigate's scorer."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from _inspect_cli import INSPECT, inspect_eval, scripted_provider
from scigate.bench import BuildConfig, build, read_tasks, write_release

pytestmark = pytest.mark.skipif(not INSPECT.exists(), reason="inspect_ai is not installed")


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("bench-inspect")
    config = BuildConfig(n=8, levels=[1, 2], screens=["cue/middle"], seed=3)
    build(config, d / "b.db", d / "b.jsonl")
    write_release(d / "b.db", d / "b.jsonl", d / "release")
    return d / "release"


def _targets(release: Path) -> dict[str, dict]:
    return {t["id"]: t for t in read_tasks(release / "b.jsonl")}


def test_release_holds_the_task_and_its_sandbox(release: Path) -> None:
    assert (release / "scigate_bench_task.py").is_file()
    settings = json.loads((release / "sandbox.json").read_text())
    assert settings["python"] == sys.executable
    assert set(settings["extras"]) <= {"chem", "bio", "materials"} and settings["extras"]
    docker = (release / "Dockerfile").read_text()
    assert docker.startswith("FROM python:3.12") and "pip install" in docker
    assert "network_mode: none" in (release / "compose.yaml").read_text()


@pytest.mark.slow  # the scigate CLI starts once per sample
def test_inspect_eval_with_tools_in_the_local_sandbox(release: Path, tmp_path: Path) -> None:
    pytest.importorskip("rdkit")
    env = scripted_provider(tmp_path / "site")
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin"  # the virtualenv is not on PATH
    # four tasks: each runs the scigate CLI, whose start is slow on a loaded machine
    log = inspect_eval(release / "scigate_bench_task.py", "scripted/bench", env, "--limit", "4")
    assert log["status"] == "success", log.get("error")
    tasks = _targets(release)
    assert len(log["samples"]) == 4 and {s["id"] for s in log["samples"]} <= set(tasks)
    for sample in log["samples"]:
        python_out, bash_out, _ = [m["content"] for m in sample["messages"] if m["role"] == "tool"]
        assert f"interpreter {sys.executable}" in python_out and "rdkit 20" in python_out
        assert json.loads(bash_out)["value"] == pytest.approx(84.99, abs=0.01)  # NaNO3
        task = tasks[sample["id"]]
        score = sample["scores"]["strict"]
        assert score["value"] == ("C" if task["answer"] == "C" else "I"), (task, score)
        assert score["explanation"].startswith("scigate scorer: ")


def test_inspect_eval_without_tools(release: Path, tmp_path: Path) -> None:
    env = scripted_provider(tmp_path / "site")
    log = inspect_eval(
        release / "scigate_bench_task.py", "scripted/letter", env, "-T", "tools=false"
    )
    assert log["status"] == "success", log.get("error")
    tasks = _targets(release)
    assert len({t["format"] for t in tasks.values()}) == 4  # every format is asked
    assert {s["id"] for s in log["samples"]} == set(tasks)
    for sample in log["samples"]:
        task = tasks[sample["id"]]
        assert task["question"].strip() in sample["input"]
        if task.get("options"):
            assert "Options:\nA. " in sample["input"]
        assert not [m for m in sample["messages"] if m["role"] == "tool"]
        score = sample["scores"]["strict"]  # the reply "C": right only where C is
        assert score["value"] == ("C" if task["answer"] == "C" else "I"), (task, score)
        assert score["explanation"].startswith("scigate scorer: ")
