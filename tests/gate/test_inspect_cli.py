"""The released tool-enabled task under the real `inspect eval` CLI, in inspect's local
sandbox: the scripted model (tests/_inspect_scripted.py, an inspect_ai entry point)
imports DOLFINx from python, runs `python3` from bash's login shell, and submits."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from _inspect_cli import INSPECT, inspect_eval, scripted_provider
from scigate.gate._export import export_release

from ._dbfactory import build_db


def _tool_outputs(sample: dict) -> list[str]:
    return [m["content"] for m in sample["messages"] if m["role"] == "tool"]


pytestmark = pytest.mark.skipif(not INSPECT.exists(), reason="inspect_ai is not installed")


@pytest.mark.slow  # DOLFINx in every sample, through the inspect CLI
def test_tools_task_reaches_dolfinx_in_the_local_sandbox(tmp_path: Path) -> None:
    pytest.importorskip("dolfinx_solver")
    store, _ = build_db(tmp_path / "runs.db")
    files = export_release(store, tmp_path / "release", release_seed=3)
    store.close()
    assert json.loads((tmp_path / "release" / "sandbox.json").read_text())["python"] == (
        sys.executable
    )
    env = scripted_provider(tmp_path / "site")
    # PATH as a login shell leaves it: the virtualenv is not on it
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin"
    log = inspect_eval(files.tool_task, "scripted/fenicsx", env)
    assert log["status"] == "success", log.get("error")
    pool = {p["id"]: p for p in map(json.loads, files.jsonl.read_text().splitlines())}
    assert {s["id"] for s in log["samples"]} == set(pool)
    for sample in log["samples"]:
        python_out, bash_out, _ = _tool_outputs(sample)  # python, bash, submit
        # python ran the release's interpreter, which imports the domain software
        assert f"interpreter {sys.executable}" in python_out, python_out
        assert "dolfinx 0." in python_out, python_out
        # bash's login shell finds that interpreter's python3 first on PATH
        assert "bash python3 " in bash_out and "Error" not in bash_out, bash_out
        # the model submitted option A's value: graded by value, through scigate's scorer
        item = pool[sample["id"]]
        score = sample["scores"]["by_value"]
        assert score["value"] == ("C" if item["answer"] == "A" else "I"), score
        assert "scigate scorer" in score["explanation"]


def test_tools_task_offers_docker_with_the_domain_image_and_a_chosen_interpreter(
    tmp_path: Path,
) -> None:
    from importlib.util import module_from_spec, spec_from_file_location

    store, _ = build_db(tmp_path / "runs.db")
    files = export_release(store, tmp_path / "release", release_seed=3)
    store.close()
    spec = spec_from_file_location("released_tools_task", files.tool_task)
    assert spec is not None and spec.loader is not None
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    docker = module.toolgate_tools(sandbox="docker")
    assert docker.sandbox.type == "docker"
    assert docker.sandbox.config == str(tmp_path / "release" / "compose.yaml")
    # the image installs the domain's software: scigate's fenicsx extra
    assert "dolfinx-solver-real" in (tmp_path / "release" / "Dockerfile").read_text()
    plan = module._tools.sandbox_plan
    assert plan("docker", None)[1:] == ("python3", [])
    venv = "/opt/venv/bin/python"
    assert plan("local", venv) == (
        "local",
        venv,
        ["/opt/venv/bin", str(Path(sys.executable).parent)],
    )
    assert plan("local", None) == ("local", sys.executable, [str(Path(sys.executable).parent)])
    # a release read on a machine without the recorded interpreter: the sandbox's python3
    settings = tmp_path / "release" / "sandbox.json"
    settings.write_text(json.dumps({"python": "/gone/bin/python", "path": ["/gone/bin"]}))
    assert plan("local", None) == ("local", "python3", [])
