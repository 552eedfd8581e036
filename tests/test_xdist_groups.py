"""tests/conftest.py's grouping under `pytest -n 2 --dist loadgroup`, on a small tree that
uses the same conftest: a module fixture is built once, a Ray folder runs on one worker,
and the heavy groups start first."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

CONFTEST = Path(__file__).with_name("conftest.py")

# each test appends (test, worker) to a log; the fixture appends ("built", worker)
_RECORD = """
import json, os
def record(name):
    with open(os.environ["GROUPS_LOG"], "a") as f:
        f.write(json.dumps([name, os.environ.get("PYTEST_XDIST_WORKER")]) + "\\n")
"""
_SHARED = """
import pytest
from _record import record

@pytest.fixture(scope="module")
def built():
    record("built")
    return 1

def test_one(built): record("shared_one")
def test_two(built): record("shared_two")
def test_three(built): record("shared_three")
def test_four(built): record("shared_four")
"""
_RAY = """
from _record import record
def test_{name}_one(): record("{name}_one")
def test_{name}_two(): record("{name}_two")
"""
_HEAVY = """
import pytest
from _record import record

@pytest.mark.slow
def test_heavy(): record("heavy")
"""


def test_groups_hold_under_xdist(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    (tests / "executor").mkdir(parents=True)
    shutil.copy(CONFTEST, tests / "conftest.py")
    (tests / "_record.py").write_text(_RECORD)
    (tests / "test_shared.py").write_text(_SHARED)
    (tests / "test_zheavy.py").write_text(_HEAVY)
    for name in ("alpha", "beta"):
        (tests / "executor" / f"test_{name}.py").write_text(_RAY.format(name=name))
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: heavy\n")
    log = tmp_path / "log.jsonl"
    env = {**os.environ, "GROUPS_LOG": str(log), "PYTHONPATH": str(tests)}
    env.pop("SCIGATE_XDIST_GROUPS", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-q",
         "-p", "no:cacheprovider", "-p", "no:randomly", "tests"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    runs = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(runs) == 10
    worker = {}
    for name, on in runs:
        worker.setdefault(name, set()).add(on)
    # the module fixture is built once, and its four tests run where it was built
    assert [name for name, _ in runs].count("built") == 1
    assert {next(iter(worker[f"shared_{n}"])) for n in ("one", "two", "three", "four")} == (
        worker["built"]
    )
    # the Ray folder's four tests, two files, run on one worker
    ray = set().union(*(worker[f"{a}_{b}"] for a in ("alpha", "beta") for b in ("one", "two")))
    assert len(ray) == 1
    # heavy first: one worker starts the Ray folder, the other the slow test, not the shared
    # file (xdist's own order, most tests first, starts the two four-test groups)
    first: dict[str, str] = {}
    for name, on in runs:
        first.setdefault(on, name)
    (other,) = set(first) - ray
    assert first[other] == "heavy", runs
