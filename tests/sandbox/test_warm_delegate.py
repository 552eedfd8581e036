"""The warm-run delegate hook (what `scigate.executor` installs on Ray workers), without
Ray: a delegate that cannot take a run leaves it to this process, one whose process died
mid-run makes the run fail (never a result), and a delegate's process never decides
isolation differently from the caller."""

from __future__ import annotations

from pathlib import Path

import pytest

from scigate.sandbox import (
    DelegateUnavailable,
    WarmRun,
    WarmRunLost,
    _delegate,
    run_python,
    set_warm_delegate,
    warm_delegation,
)

LIGHT = ("json",)


@pytest.fixture(autouse=True)
def _no_delegate_after():
    yield
    set_warm_delegate(None)


def test_runs_go_to_the_delegate_which_runs_the_same_record(ws: Path) -> None:
    seen: list[WarmRun] = []

    def delegate(run: WarmRun, cancel):
        seen.append(run)
        return run.execute_here(cancel)  # as the pool actor does, in its own process

    set_warm_delegate(delegate, "test pool")
    result = run_python("print(6 * 7)", workspace=ws, preload=LIGHT, env={"A": "1"})
    assert result.ok and result.stdout == "42\n"
    (run,) = seen
    assert run.preload == LIGHT and run.env == {"A": "1"} and run.workspace == ws
    assert warm_delegation() == {
        "delegated": 1,
        "here": 0,
        "lost": 0,
        "name": "test pool",
        "failure": None,
    }


def test_an_unavailable_delegate_leaves_the_run_here_then_rests(ws: Path) -> None:
    calls = []

    def delegate(run: WarmRun, cancel):
        calls.append(run)
        raise DelegateUnavailable("no pool actor")

    set_warm_delegate(delegate, "test pool")
    assert run_python("print(1)", workspace=ws, preload=LIGHT).stdout == "1\n"
    assert run_python("print(2)", workspace=ws, preload=LIGHT).stdout == "2\n"
    assert len(calls) == 1  # the second run did not wait on it again
    stats = warm_delegation()
    assert stats["here"] == 2 and stats["failure"] == "no pool actor"


def test_a_run_lost_with_the_delegates_process_raises(ws: Path) -> None:
    def delegate(run: WarmRun, cancel):
        raise WarmRunLost("the pool actor died")

    set_warm_delegate(delegate, "test pool")
    with pytest.raises(WarmRunLost):
        run_python("print(1)", workspace=ws, preload=LIGHT)
    assert warm_delegation()["lost"] == 1


def test_the_delegates_process_refuses_another_isolation_decision(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # no bwrap where the pool runs, and the caller allowed unisolated runs but it did not
    monkeypatch.setattr(_delegate, "bwrap_status", lambda: (None, "no bwrap here"))
    run = _delegate.warm_run(
        ["python", "x.py"], workspace=ws, limits=None, env=None, cache_dir=None, preload=LIGHT
    )
    run.allow_unisolated = True
    monkeypatch.setattr(_delegate, "unisolated_allowed", lambda: False)
    with pytest.raises(DelegateUnavailable, match="allow-unisolated"):
        run.execute_here()
