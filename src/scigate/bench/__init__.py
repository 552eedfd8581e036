"""OpenSciToolBench with executed gold answers: derive, verify and build benchmark files.

Every answer here is computed by executing the task's reference tool path as a typed plan
(`scigate.tools.make_plan`), never accepted from a model or a source file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scigate._lazy import lazy_getattr
from scigate.bench._config import FORMATS, BuildConfig

if TYPE_CHECKING:
    from scigate.bench._answer import (
        Execution,
        Underivable,
        execute_task,
        offline_problem,
        same_answer,
        task_entities,
        task_format,
        task_path,
    )
    from scigate.bench._build import BuildReport, abuild, build, check_build
    from scigate.bench._derive import (
        TaskOutcome,
        default_workers,
        derive_one,
        reason_counts,
        run_tasks,
        verify_one,
    )
    from scigate.bench._files import read_tasks, write_tasks
    from scigate.bench._release import datasheet, release_conditions, write_release
    from scigate.bench._report import build_funnel
    from scigate.bench._stats import a5_lines

# Every module but the build's configuration imports the tool library: load on first
# access, so the CLI can declare its flags from `BuildConfig` and stay light.
_LAZY = {
    "Execution": "_answer",
    "Underivable": "_answer",
    "execute_task": "_answer",
    "offline_problem": "_answer",
    "same_answer": "_answer",
    "task_entities": "_answer",
    "task_format": "_answer",
    "task_path": "_answer",
    "BuildReport": "_build",
    "abuild": "_build",
    "build": "_build",
    "check_build": "_build",
    "TaskOutcome": "_derive",
    "default_workers": "_derive",
    "derive_one": "_derive",
    "reason_counts": "_derive",
    "run_tasks": "_derive",
    "verify_one": "_derive",
    "read_tasks": "_files",
    "write_tasks": "_files",
    "datasheet": "_release",
    "release_conditions": "_release",
    "write_release": "_release",
    "build_funnel": "_report",
    "a5_lines": "_stats",
}


__getattr__ = lazy_getattr(__name__, _LAZY)


__all__ = [
    "FORMATS",
    "BuildConfig",
    "BuildReport",
    "Execution",
    "TaskOutcome",
    "Underivable",
    "a5_lines",
    "abuild",
    "build",
    "build_funnel",
    "check_build",
    "datasheet",
    "default_workers",
    "derive_one",
    "execute_task",
    "offline_problem",
    "read_tasks",
    "reason_counts",
    "release_conditions",
    "run_tasks",
    "same_answer",
    "task_entities",
    "task_format",
    "task_path",
    "verify_one",
    "write_release",
    "write_tasks",
]
