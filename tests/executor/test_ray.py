"""The Ray backend on a local Ray (2 CPUs): the same interface, and a model-call limit that
holds across workers."""

from __future__ import annotations

from scigate.executor import Job

from ._jobs import (
    always_fails,
    assigned_cpus,
    calls_in_parallel,
    in_flight_model_file,
    peak,
    square,
    unisolated_here,
)


def test_ray_batch_results_and_errors(ray_executor):
    jobs = [Job(id=f"t{i}", fn=square, args=(i,)) for i in range(4)]
    jobs.append(Job(id="bad", fn=always_fails))
    results = ray_executor.run_all(jobs)
    assert all(r.ok for k, r in results.items() if k != "bad"), results
    assert {k: r.value for k, r in results.items() if r.ok} == {f"t{i}": i * i for i in range(4)}
    assert results["bad"].error == "ValueError: bad parameters"
    assert results["bad"].attempts == ray_executor.retries + 1
    assert ray_executor.describe() == {"name": "ray", "workers": 2, "nodes": 1}


def test_model_call_limit_holds_across_workers(ray_executor, tmp_path):
    # Four jobs on two workers, each making three concurrent calls to an endpoint limited
    # to 2: a per-process semaphore would let 4 run at once.
    spec = f"python/{in_flight_model_file(tmp_path)}:model?concurrency=2"
    jobs = [Job(id=str(i), fn=calls_in_parallel, args=(spec, 3)) for i in range(4)]
    results = ray_executor.run_all(jobs)
    assert all(r.ok and r.value == 3 for r in results.values()), results
    assert peak(tmp_path) == 2


def test_a_job_reserves_its_cpus_capped_at_a_nodes(ray_executor):
    # an MPI check of 2 ranks holds 2 CPUs; 64 would never fit a node and is capped
    jobs = [
        Job(id="one", fn=assigned_cpus),
        Job(id="mpi", fn=assigned_cpus, num_cpus=2),
        Job(id="huge", fn=assigned_cpus, num_cpus=64),
    ]
    results = ray_executor.run_all(jobs)
    assert {k: r.value for k, r in results.items()} == {"one": 1.0, "mpi": 2.0, "huge": 2.0}


def test_workers_follow_the_drivers_unisolated_decision(ray_executor, monkeypatch):
    from scigate.sandbox import allow_unisolated

    try:
        allow_unisolated(True)
        assert ray_executor.run_all([Job(id="a", fn=unisolated_here)])["a"].value is True
        allow_unisolated(False)
        assert ray_executor.run_all([Job(id="b", fn=unisolated_here)])["b"].value is False
    finally:
        allow_unisolated(None)
