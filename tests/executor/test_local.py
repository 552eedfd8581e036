"""The executor interface on the local backend: results by id, retries, error results."""

from __future__ import annotations

import pytest

from scigate.errors import BadInput
from scigate.executor import Job, LocalExecutor, make_executor

from ._jobs import always_fails, flaky, square


def test_batch_returns_one_result_per_id():
    ex = LocalExecutor(workers=2)
    jobs = [Job(id=f"t{i}", fn=square, args=(i,)) for i in range(6)]
    jobs.append(Job(id="t3", fn=square, args=(100,)))  # a repeated id runs once
    results = ex.run_all(jobs)
    assert sorted(results) == [f"t{i}" for i in range(6)]
    assert all(r.ok and r.value == int(r.id[1:]) ** 2 for r in results.values())


def test_transient_failure_is_retried(tmp_path):
    ex = LocalExecutor(workers=1, retries=2)
    [r] = ex.run_all([Job(id="a", fn=flaky, args=(str(tmp_path / "c"), 2, 7))]).values()
    assert r.ok and r.value == 7 and r.attempts == 3


def test_a_job_that_keeps_failing_is_an_error_with_the_reason(tmp_path):
    ex = LocalExecutor(workers=1, retries=1)
    results = ex.run_all(
        [
            Job(id="bad", fn=always_fails),
            Job(id="flaky", fn=flaky, args=(str(tmp_path / "c"), 5, 1)),
        ]
    )
    assert not results["bad"].ok and results["bad"].value is None
    assert results["bad"].error == "ValueError: bad parameters"
    assert results["bad"].attempts == 2
    assert not results["flaky"].ok and "transient failure 2" in results["flaky"].error


def test_make_executor_rejects_bad_names():
    with pytest.raises(BadInput, match="unknown executor"):
        make_executor("dask")
    with pytest.raises(BadInput, match="--ray-address needs --executor ray"):
        make_executor("local", address="10.0.0.1:6379")
