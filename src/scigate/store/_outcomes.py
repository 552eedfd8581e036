"""The one outcome vocabulary of the run database (docs/outcomes.md has the table).

Three sets of names, each used as written by every writer and reader (the loop, the
views, the CLI's funnel, the report, the release):

- `GateOutcome`: one gate result (`gate_results.outcome`).
- `AttemptStatus`: how one generation round ended (`attempts.status`).
- `CandidateStatus`: where a candidate stands on the latest results of every run
  (`v_candidate_status.status`, the report's item browser); `candidate_status` is the
  rule in Python, the view the same rule in SQL.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

GateOutcome = Literal["pass", "fail", "error"]
AttemptStatus = Literal[
    "generator-failed",
    "error",
    "rejected-duplicate",
    "rejected-verify",
    "rejected-invariance",
    "rejected-screen",
    "screened",
    "accepted",
    "unsolved",
]
CandidateStatus = Literal[
    "pending",
    "rejected-duplicate",
    "rejected-verify",
    "error-verify",
    "rejected-invariance",
    "error-invariance",
    "rejected-screen",
    "error-screen",
    "screened",
    "accepted",
    "unsolved",
    "error-solve",
]
#: A bench build's attempt statuses (`bench build` runs; the stage is in the detail).
BenchAttemptStatus = Literal["accepted", "rejected", "error"]

GATE_OUTCOMES: tuple[GateOutcome, ...] = get_args(GateOutcome)
ATTEMPT_STATUSES: tuple[AttemptStatus, ...] = get_args(AttemptStatus)
CANDIDATE_STATUSES: tuple[CandidateStatus, ...] = get_args(CandidateStatus)
BENCH_ATTEMPT_STATUSES: tuple[BenchAttemptStatus, ...] = get_args(BenchAttemptStatus)


def candidate_status(
    latest: dict[tuple[str, str], dict[str, Any]], *, screens: int, any_solve: bool
) -> CandidateStatus:
    """A candidate's status from its latest result per (gate, screen), as the view has it.

    `screens` is how many screen specs the database holds results of (a candidate must
    pass each), `any_solve` whether a tool-enabled solver ran on any candidate: without
    one, passing every screen is acceptance (the release's pool), with one, a candidate
    it has not reached yet is `screened`.
    """

    def outcome(gate: str) -> str | None:
        got = latest.get((gate, ""))
        return None if got is None else got["outcome"]

    verify = outcome("verify")
    if verify is None:
        return "rejected-duplicate" if outcome("duplicate") == "fail" else "pending"
    if verify != "pass":
        return "rejected-verify" if verify == "fail" else "error-verify"
    invariance = outcome("invariance")
    if invariance is not None and invariance != "pass":
        return "rejected-invariance" if invariance == "fail" else "error-invariance"
    screened = [g["outcome"] for (gate, _), g in latest.items() if gate == "screen"]
    if "fail" in screened:
        return "rejected-screen"
    if "error" in screened:
        return "error-screen"
    if len(screened) < screens:
        return "pending"
    solves = [g["outcome"] for (gate, _), g in latest.items() if gate == "solve"]
    if "pass" in solves:
        return "accepted"
    if "fail" in solves:
        return "unsolved"
    if solves:
        return "error-solve"
    return "screened" if any_solve else "accepted"
