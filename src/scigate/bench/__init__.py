"""OpenSciToolBench with executed gold answers: derive, verify and build benchmark files.

Every answer here is computed by executing the task's reference tool path as a typed plan
(`scigate.tools.make_plan`), never accepted from a model or a source file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scigate._lazy import lazy_getattr
from scigate.bench._answer import (
    FORMATS,
    Execution,
    Underivable,
    execute_task,
    offline_problem,
    same_answer,
    task_entities,
    task_format,
    task_path,
)
from scigate.bench._build import BuildConfig, BuildReport, abuild, build, check_build
from scigate.bench._derive import TaskOutcome, default_workers, derive_one, run_tasks, verify_one
from scigate.bench._files import read_tasks, write_tasks
from scigate.bench._release import datasheet, release_conditions, write_release
from scigate.bench._report import build_funnel

if TYPE_CHECKING:
    from scigate.bench._derive import reason_counts
    from scigate.bench._stats import a5_lines

# Names whose modules are heavier to import load on first access.
_LAZY = {
    "a5_lines": "_stats",
    "reason_counts": "_derive",
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
