"""ToolGate: accept a generated item only if its solution reproduces the proposed answer,
no-tool screens fail on it, and a tool-using agent solves it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from scigate._lazy import lazy_getattr
from scigate.gate._candidate import (
    LETTERS,
    Candidate,
    copy_without_answer,
    load_candidate,
    parse_answer_letter,
    parse_options,
)
from scigate.gate._coding_agent import TOOL_SCHEMAS, AgentLimits, Episode, run_episode
from scigate.gate._config import LoopConfig
from scigate.gate._distributed import ExecutorWorkers
from scigate.gate._invariance import (
    CheckResult,
    InvarianceResult,
    ainvariance,
    invariance,
)
from scigate.gate._responders import CUES, CueResponder, ModelResponder, make_responder
from scigate.gate._screen import ScreenCall, ScreenResult, presentation_order, run_screen
from scigate.gate._solve import SolveResult, grade_answer, solve_with_command, solve_with_model
from scigate.gate._values import match_option, parse_number, value_rank, values_match
from scigate.gate._verify import VerifyResult, averify, verify
from scigate.gate._workers import GateWorkers, executor_text, executors_text

if TYPE_CHECKING:
    from scigate.gate._audit import audit
    from scigate.gate._export import export_jsonl, export_release
    from scigate.gate._inspect_files import write_sandbox_files
    from scigate.gate._loop import rescreen, run_loop
    from scigate.gate._report import build_report
    from scigate.gate._similarity import jaccard, tokens

# Names whose modules are heavier to import load on first access.
_LAZY = {
    "audit": "_audit",
    "build_report": "_report",
    "export_jsonl": "_export",
    "export_release": "_export",
    "jaccard": "_similarity",
    "rescreen": "_loop",
    "run_loop": "_loop",
    "tokens": "_similarity",
    "write_sandbox_files": "_inspect_files",
}


__getattr__ = lazy_getattr(__name__, _LAZY)


__all__ = [
    "CUES",
    "LETTERS",
    "TOOL_SCHEMAS",
    "AgentLimits",
    "Candidate",
    "CheckResult",
    "CueResponder",
    "Episode",
    "ExecutorWorkers",
    "GateWorkers",
    "InvarianceResult",
    "LoopConfig",
    "ModelResponder",
    "ScreenCall",
    "ScreenResult",
    "SolveResult",
    "VerifyResult",
    "ainvariance",
    "audit",
    "averify",
    "build_report",
    "copy_without_answer",
    "executor_text",
    "executors_text",
    "export_jsonl",
    "export_release",
    "grade_answer",
    "invariance",
    "jaccard",
    "load_candidate",
    "make_responder",
    "match_option",
    "parse_answer_letter",
    "parse_number",
    "parse_options",
    "presentation_order",
    "rescreen",
    "run_episode",
    "run_loop",
    "run_screen",
    "solve_with_command",
    "solve_with_model",
    "tokens",
    "value_rank",
    "values_match",
    "verify",
    "write_sandbox_files",
]
