"""ToolGate: accept a generated item only if its solution reproduces the proposed answer,
no-tool screens fail on it, and a tool-using agent solves it."""

from scigate.gate._candidate import (
    LETTERS,
    Candidate,
    copy_without_answer,
    load_candidate,
    parse_answer_letter,
    parse_options,
)
from scigate.gate._coding_agent import TOOL_SCHEMAS, AgentLimits, Episode, run_episode
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
    "ModelResponder",
    "ScreenCall",
    "ScreenResult",
    "SolveResult",
    "VerifyResult",
    "ainvariance",
    "averify",
    "copy_without_answer",
    "executor_text",
    "executors_text",
    "grade_answer",
    "invariance",
    "load_candidate",
    "make_responder",
    "match_option",
    "parse_answer_letter",
    "parse_number",
    "parse_options",
    "presentation_order",
    "run_episode",
    "run_screen",
    "solve_with_command",
    "solve_with_model",
    "value_rank",
    "values_match",
    "verify",
]
