"""`scigate doctor --ray-address`: the cluster's nodes and CPUs, or why it cannot say."""

from __future__ import annotations

import json

import pytest

from _cli import run_main


def _doctor(*args: str) -> dict:
    # in-process: a new interpreter importing every domain stack for the report took
    # 20 s of CPU under load (the Ray part itself: 1 s)
    code, out, err = run_main("doctor", "--json", *args)
    assert code == 0, err[-2000:]
    return json.loads(out)


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
