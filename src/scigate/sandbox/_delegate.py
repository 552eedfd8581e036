"""Warm runs handed to another process's pools (a Ray node's pool actor), or run here.

A warm run is described by a `WarmRun` record; `dispatch_warm` gives it to the installed
delegate (`set_warm_delegate`, done by `scigate.executor` on Ray workers only) and runs it
here (`_warm.execute_warm`) when there is none. The delegate's process runs the record
with `WarmRun.execute_here`: the same `execute_warm`, limits, isolation and result code,
only in another process of the same node (same file system, so the workspace can move).

Two ways a delegate fails, handled differently:
- `DelegateUnavailable`: it did not take the run (no pool actor, unreachable); nothing
  ran, the workspace is untouched, so the run goes ahead here, and the reason is kept for
  `protections()`. After such a failure runs stay here for `RETRY_SECONDS`.
- `WarmRunLost`: the delegate's process died during the run; what the run did, and where
  its workspace is, are unknown, so it is raised (an executor job fails and is retried),
  never turned into a result.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel

from scigate.errors import ScigateError
from scigate.sandbox._isolation import bwrap_status, unisolated_allowed
from scigate.sandbox._models import Limits, SandboxResult
from scigate.sandbox._runner import shared_cache
from scigate.sandbox._warm import execute_warm

RETRY_SECONDS = 30.0


class DelegateUnavailable(Exception):
    """The delegate did not take the run (nothing ran); the message says why."""


class WarmRunLost(ScigateError):
    """The delegate's process died during the run: its outcome is unknown."""


class WarmRun(BaseModel):
    """One warm run as `execute_warm` takes it, fixed in the caller's process (cache dir
    and unisolated setting resolved there) so that another process runs the same thing."""

    argv: list[str]
    script: str
    workspace: Path
    limits: Limits
    env: dict[str, str] | None = None
    cache_dir: Path
    preload: tuple[str, ...]
    allow_unisolated: bool = False
    forms_scope: str | None = None

    def execute_here(self, cancel: threading.Event | None = None) -> SandboxResult:
        """Run it in this process's warm pool. DelegateUnavailable when this process
        would decide isolation differently from the caller (no bwrap here and another
        --allow-unisolated setting)."""
        if (
            not self.limits.unisolated
            and bwrap_status()[0] is None
            and unisolated_allowed() != self.allow_unisolated
        ):
            raise DelegateUnavailable("the pool's process has another --allow-unisolated setting")
        return execute_warm(
            self.argv,
            script=Path(self.script),
            workspace=self.workspace,
            limits=self.limits,
            env=self.env,
            cache_dir=self.cache_dir,
            preload=self.preload,
            cancel=cancel,
            forms_scope=self.forms_scope,
        )


WarmDelegate = Callable[[WarmRun, "threading.Event | None"], SandboxResult]

_delegate: WarmDelegate | None = None
_name = ""
_lock = threading.Lock()
_stats = {"delegated": 0, "here": 0, "lost": 0}
_failure: tuple[float, str] | None = None


def set_warm_delegate(delegate: WarmDelegate | None, name: str = "") -> None:
    """Send this process's warm runs to `delegate(run, cancel)` (None: run them here).
    It raises `DelegateUnavailable` when it cannot take a run, `WarmRunLost` when the
    run's process died; `cancel` set means kill the run, as for a local run."""
    global _delegate, _name, _failure
    with _lock:
        if delegate is not _delegate:
            _stats.update(delegated=0, here=0, lost=0)
            _failure = None
        _delegate, _name = delegate, name


def warm_delegation() -> dict | None:
    """The installed delegate's name and counters (runs delegated, run here instead,
    lost) and its last failure; None when warm runs are this process's own."""
    with _lock:
        if _delegate is None:
            return None
        return {**_stats, "name": _name, "failure": _failure[1] if _failure else None}


def dispatch_warm(run: WarmRun, cancel: threading.Event | None = None) -> SandboxResult:
    """Run `run` through the delegate when one is installed and available, else here."""
    global _failure
    with _lock:
        delegate = _delegate
        resting = _failure is not None and time.monotonic() - _failure[0] < RETRY_SECONDS
    if delegate is not None and not resting:
        try:
            result = delegate(run, cancel)
        except DelegateUnavailable as exc:
            with _lock:
                _failure = (time.monotonic(), str(exc))
        except WarmRunLost:
            with _lock:
                _stats["lost"] += 1
            raise
        else:
            with _lock:
                _stats["delegated"] += 1
                _failure = None
            return result
    if delegate is not None:
        with _lock:
            _stats["here"] += 1
    return run.execute_here(cancel)


def warm_run(
    argv: list[str],
    *,
    workspace: Path,
    limits: Limits | None,
    env: Mapping[str, str] | None,
    cache_dir: Path | None,
    preload: Sequence[str],
    forms_scope: str | None = None,
) -> WarmRun:
    """The record of a warm run, resolved in this process."""
    return WarmRun(
        argv=argv,
        script=argv[1],
        workspace=Path(workspace),
        limits=limits or Limits(),
        env=dict(env) if env is not None else None,
        cache_dir=shared_cache(cache_dir),
        preload=tuple(preload),
        allow_unisolated=unisolated_allowed(),
        forms_scope=forms_scope,
    )
