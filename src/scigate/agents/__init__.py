"""Tool-using agents: SciToolAgent-Evo, six baselines, and the evaluation harness."""

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

__all__ = [
    "BASELINES",
    "DEDUP_THRESHOLD",
    "GATES",
    "METHODS",
    "RETRIEVALS",
    "AccumulationReport",
    "AgentContext",
    "EvalConfig",
    "EvalDir",
    "EvalResult",
    "EvoAgent",
    "EvoConfig",
    "Experience",
    "GateDecision",
    "LinUCBGate",
    "Memory",
    "Skill",
    "Task",
    "ToolSpace",
    "ToolStep",
    "Trajectory",
    "Usage",
    "Verdict",
    "accumulation_checkpoints",
    "alias_table",
    "answer_kind",
    "answer_match",
    "check_method",
    "checkpoint_stats",
    "complete_missing",
    "cosine",
    "errors_dominate",
    "evaluate",
    "execute_chain",
    "judge_answer",
    "lcs_length",
    "library_tools",
    "load_bench",
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
    "score_answer",
    "score_task",
    "summarize",
    "summarize_rows",
    "tool_scores",
    "write_result",
]
