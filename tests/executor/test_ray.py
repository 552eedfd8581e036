"""The Ray backend on a local Ray (2 CPUs): the same interface, and a model-call limit that
holds across workers."""

from __future__ import annotations

from scigate.executor import Job

from ._jobs import (
    always_fails,
    calls_in_parallel,
    in_flight_model_file,
    peak,
    square,
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
