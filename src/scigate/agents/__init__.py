"""Tool-using agents: SciToolAgent-Evo, six baselines, and the evaluation harness."""

from __future__ import annotations

from typing import TYPE_CHECKING

from scigate._lazy import lazy_getattr
from scigate.agents._baselines import (
    BASELINES,
    run_cot,
    run_direct,
    run_rag,
    run_react,
    run_reflexion,
    run_scitoolagent,
)
from scigate.agents._checkpoints import (
    accumulation_checkpoints,
    checkpoint_stats,
    render_checkpoints,
)
from scigate.agents._context import AgentContext
from scigate.agents._estimate import Estimate, estimate_eval, measured_calls
from scigate.agents._eval import (
    EvalResult,
    errors_dominate,
    evaluate,
    load_bench,
    render_markdown,
    summarize_rows,
    write_result,
)
from scigate.agents._evaldir import EvalDir
from scigate.agents._evalrow import AnswerStatus, EvalRow
from scigate.agents._evo import (
    GATES,
    RETRIEVALS,
    AccumulationReport,
    EvoAgent,
    EvoConfig,
    alias_table,
    reference_reward,
)
from scigate.agents._executor import execute_chain, run_step, summarize
from scigate.agents._gate import LinUCBGate
from scigate.agents._memory import DEDUP_THRESHOLD, Experience, Memory, Skill, cosine
from scigate.agents._records import GateDecision, Task, ToolStep, Trajectory, Usage
from scigate.agents._runrecord import TASK_EVENT_KEYS, RunRecord, running
from scigate.agents._scoring import (
    Verdict,
    answer_kind,
    answer_match,
    lcs_length,
    parse_judge_reply,
    score_answer,
    tool_scores,
)
from scigate.agents._taskscore import (
    METHODS,
    EvalConfig,
    check_method,
    judge_answer,
    run_method,
    score_task,
)
from scigate.agents._toolspace import ToolSpace, complete_missing, library_tools

if TYPE_CHECKING:
    from scigate.agents._context import DEFAULT_MAX_TOOLS, ModelLike
    from scigate.agents._eval import accumulation_problem, answer_line, cost_line, tool_line
    from scigate.agents._parse import extract_json

# Names whose modules are heavier to import load on first access.
_LAZY = {
    "DEFAULT_MAX_TOOLS": "_context",
    "ModelLike": "_context",
    "accumulation_problem": "_eval",
    "answer_line": "_eval",
    "cost_line": "_eval",
    "extract_json": "_parse",
    "tool_line": "_eval",
}


__getattr__ = lazy_getattr(__name__, _LAZY)


__all__ = [
    "BASELINES",
    "DEDUP_THRESHOLD",
    "DEFAULT_MAX_TOOLS",
    "GATES",
    "METHODS",
    "RETRIEVALS",
    "TASK_EVENT_KEYS",
    "AccumulationReport",
    "AgentContext",
    "AnswerStatus",
    "Estimate",
    "EvalConfig",
    "EvalDir",
    "EvalResult",
    "EvalRow",
    "EvoAgent",
    "EvoConfig",
    "Experience",
    "GateDecision",
    "LinUCBGate",
    "Memory",
    "ModelLike",
    "RunRecord",
    "Skill",
    "Task",
    "ToolSpace",
    "ToolStep",
    "Trajectory",
    "Usage",
    "Verdict",
    "accumulation_checkpoints",
    "accumulation_problem",
    "alias_table",
    "answer_kind",
    "answer_line",
    "answer_match",
    "check_method",
    "checkpoint_stats",
    "complete_missing",
    "cosine",
    "cost_line",
    "errors_dominate",
    "estimate_eval",
    "evaluate",
    "execute_chain",
    "extract_json",
    "judge_answer",
    "lcs_length",
    "library_tools",
    "load_bench",
    "measured_calls",
    "parse_judge_reply",
    "reference_reward",
    "render_checkpoints",
    "render_markdown",
    "run_cot",
    "run_direct",
    "run_method",
    "run_rag",
    "run_react",
    "run_reflexion",
    "run_scitoolagent",
    "run_step",
    "running",
    "score_answer",
    "score_task",
    "summarize",
    "summarize_rows",
    "tool_line",
    "tool_scores",
    "write_result",
]
