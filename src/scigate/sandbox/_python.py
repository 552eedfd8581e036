"""`run_python` / `arun_python`: Python runs, cold (a fresh interpreter under the
supervisor, `_runner`) or warm (forked from a server that preloaded modules, `_warm`).

Kept apart from `_runner` so that `_warm`, which builds on `_runner`, is not imported back
by it.
"""

from __future__ import annotations

import secrets
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from scigate.errors import BadInput
from scigate.sandbox._delegate import dispatch_warm, warm_run
from scigate.sandbox._models import Limits, SandboxResult
from scigate.sandbox._runner import _in_thread, _workspace, execute
from scigate.sandbox._workspace import write_new_file


def _python_argv(
    code: str | None, script: Path | None, workspace: Path, python: str
) -> tuple[list[str], Path | None]:
    if (code is None) == (script is None):
        raise BadInput("run_python needs exactly one of code= or script=")
    ws = _workspace(workspace)
    if script is not None:
        path = Path(script)
        if not (ws / path).is_file():  # ws / an absolute path is that path
            raise BadInput(f"python script not found: {script}")
        return [python, str(path)], None  # relative: as `python path` in the workspace
    snippet = ws / f".scigate_snippet_{secrets.token_hex(8)}.py"
    write_new_file(snippet, code or "")
    return [python, snippet.name], snippet


def _execute_python(
    argv: list[str],
    *,
    workspace: Path,
    limits: Limits | None,
    env: Mapping[str, str] | None,
    cache_dir: Path | None,
    preload: Sequence[str],
    cancel: threading.Event | None = None,
    forms_scope: str | None = None,
) -> SandboxResult:
    """Cold (a fresh interpreter) without `preload`, else warm: in this process's pool
    (`_warm.execute_warm`) or the node's shared one when a delegate is installed."""
    if not preload:
        return execute(
            argv,
            workspace=workspace,
            limits=limits,
            env=env,
            cache_dir=cache_dir,
            cancel=cancel,
            forms_scope=forms_scope,
        )
    run = warm_run(
        argv,
        workspace=workspace,
        limits=limits,
        env=env,
        cache_dir=cache_dir,
        preload=preload,
        forms_scope=forms_scope,
    )
    return dispatch_warm(run, cancel)


def run_python(
    code: str | None = None,
    *,
    script: Path | None = None,
    workspace: Path,
    limits: Limits | None = None,
    env: Mapping[str, str] | None = None,
    python: str = sys.executable,
    cache_dir: Path | None = None,
    preload: Sequence[str] = (),
    forms_scope: str | None = None,
) -> SandboxResult:
    """Run Python `code` (written to a temporary file in the workspace) or a `script`
    (relative paths are taken inside the workspace) with `python` under the sandbox.

    With `preload` (module names, e.g. ``("dolfinx_solver", "dolfinx")``) the run is
    forked from a warm server of `python` that imported those modules once, with the
    same limits, environment, isolation and result; without, a fresh interpreter runs.
    Import-time settings of preloaded modules come from the server's start (its
    environment is the caller's, scrubbed, with one BLAS/OpenMP thread), except the
    DOLFINx/FFCx JIT cache and option files, which follow the run's environment.
    FFCx forms compiled for the run are reused only by runs given the same
    `forms_scope` (`new_forms_scope()`: one candidate's runs, one agent's episode);
    without one, by none.
    """
    argv, snippet = _python_argv(code, script, workspace, python)
    try:
        return _execute_python(
            argv,
            workspace=workspace,
            limits=limits,
            env=env,
            cache_dir=cache_dir,
            preload=preload,
            forms_scope=forms_scope,
        )
    finally:
        if snippet is not None:
            snippet.unlink(missing_ok=True)


async def arun_python(
    code: str | None = None,
    *,
    script: Path | None = None,
    workspace: Path,
    limits: Limits | None = None,
    env: Mapping[str, str] | None = None,
    python: str = sys.executable,
    cache_dir: Path | None = None,
    preload: Sequence[str] = (),
    forms_scope: str | None = None,
) -> SandboxResult:
    """`run_python` without blocking the event loop; cancelling the task kills the run."""
    argv, snippet = _python_argv(code, script, workspace, python)
    try:
        return await _in_thread(
            _execute_python,
            argv=argv,
            workspace=workspace,
            limits=limits,
            env=env,
            cache_dir=cache_dir,
            preload=preload,
            forms_scope=forms_scope,
        )
    finally:
        if snippet is not None:
            snippet.unlink(missing_ok=True)
