"""`scigate doctor --ray-address`: the cluster's nodes and CPUs, or why it cannot say."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = str(Path(__file__).parents[2] / "src")


def _doctor(*args: str) -> dict:
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    p = subprocess.run(
        [sys.executable, "-m", "scigate", "doctor", "--json", *args],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    return json.loads(p.stdout)


def test_doctor_reports_an_unreachable_cluster_without_hanging():
    pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[ray]')")
    report = _doctor("--ray-address", "127.0.0.1:1")
    assert "no Ray cluster answers at 127.0.0.1:1" in report["ray_cluster"]["error"]
    assert any(s["stack"].startswith("Ray") for s in report["stacks"])


@pytest.mark.slow
def test_doctor_lists_the_clusters_nodes_and_cpus(two_nodes):
    cluster, _ = two_nodes
    found = _doctor("--ray-address", cluster.address)["ray_cluster"]
    assert found["cpus"] == 2
    assert sorted((n["alive"], n["cpus"]) for n in found["nodes"]) == [(True, 1), (True, 1)]
