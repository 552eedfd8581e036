"""Gate 1b, invariance: the printed answer must survive perturbations that cannot change a
correct computation.

A domain declares its semantic checks (`Domain.semantic_checks`); for FEniCSx the mesh is
presented with its cells and nodes in another order (on by default) and, opt-in, the
script runs on several MPI ranks. Each check runs the candidate's script again in the
sandbox, in a fresh workspace built like verification's (no answer, no generator notes),
through a small runner that executes the check's prelude and then solution.py as
`__main__`. Serial checks fork from the same warm server verification uses. An
invariance check (`expect="same"`) passes when the printed value equals the unperturbed
one at the proposed option's printed precision; a run that cannot decide (time-out,
nothing perturbed although the check applied) is `error`, never a pass.

A dependence check (`expect="changed"`; FEniCSx: every value DOLFINx and Basix compute
for the script scaled) is the opposite: the printed value must differ from the
unperturbed one at the option's precision, not merely in digits the option does not
show, since an answer hidden as `0.134268 + 1e-9 * J` is as constant as a literal. It
fails when the value is unchanged, and also when the script reached none of the
perturbed computations at all: then no FEniCSx computation reached the answer either
(this is a verdict about the script, not an inability to decide, so `fail`, not
`error`). It is `error` when the run cannot show a dependence: a crash or time-out (a
script that detects the check could crash on purpose), a non-finite or missing value,
no closing report, or the script calling the library's unperturbed layer directly.
The one exemption is narrow: a proposed answer that is an integer (a count of cells,
dofs or iterations, which scaling computed values need not move) is not checked.

A check can apply to some questions only (`SemanticCheck.applies_if`, a pattern the
question must match; FEniCSx's quadrature-default check needs a stated quadrature
degree). For any other question it is `n/a`: it does not run, counts as neither a pass
nor a fail, and gate 1b's verdict comes from the checks that did apply.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import shutil
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from scigate.domains import SemanticCheck
from scigate.gate._candidate import Candidate, load_candidate
from scigate.gate._values import parse_number, same_value
from scigate.gate._verify import candidate_workspace, output_lines, over_cap, verify

if TYPE_CHECKING:
    from scigate.sandbox import SandboxResult

RUNNER = ".scigate_check.py"
RANK_FILE = ".scigate_rank_{rank}.out"
#: The most a rank's stdout file may hold (bytes); more is an undecided run.
RANK_OUTPUT_LIMIT = 1 << 20

Outcome = Literal["pass", "fail", "error"]
#: a check's outcome: also `n/a` when it does not apply to the question (its `applies_if`)
CheckOutcome = Literal["pass", "fail", "error", "n/a"]

_RUNNER_TAIL = """
import runpy as _scigate_runpy

try:
    # Keep the script's globals: run_path drops its module's objects when it returns, and
    # PETSc/DOLFINx objects destroyed then (collective calls, in an order that differs
    # between ranks) left MPI ranks spinning after they printed; kept, they are freed at
    # interpreter exit as in a plain `python solution.py`.
    _scigate_globals = _scigate_runpy.run_path("solution.py", run_name="__main__")
finally:
{epilogue}
"""
# A serial run removes its runner once Python has read it, so the script cannot find the
# check (or its token) in the workspace; MPI ranks all read the same file.
_UNLINK_RUNNER = f"""
import os as _scigate_os

try:
    _scigate_os.unlink({RUNNER!r})
except OSError:
    pass
"""

# Each MPI rank's stdout (C-level writes included) goes to its own file, so lines of
# different ranks cannot interleave; MPICH's hydra sets PMI_RANK, Open MPI its own.
_RANK_STDOUT = """
import os as _scigate_os

_scigate_rank = _scigate_os.environ.get("PMI_RANK") or _scigate_os.environ.get(
    "OMPI_COMM_WORLD_RANK", "0"
)
_scigate_fd = _scigate_os.open(
    ".scigate_rank_%s.out" % _scigate_rank,
    _scigate_os.O_WRONLY | _scigate_os.O_CREAT | _scigate_os.O_TRUNC,
    0o600,
)
_scigate_os.dup2(_scigate_fd, 1)
_scigate_os.close(_scigate_fd)
"""


class CheckResult(BaseModel):
    """One semantic check: the value printed under the perturbation against the reference."""

    name: str
    passed: bool
    outcome: CheckOutcome
    printed: str | None
    reference: str | None
    reason: str
    seconds: float
    #: the prelude's own reports of what it perturbed (e.g. each mesh reordered)
    perturbed: list[str] = Field(default_factory=list)
    #: per MPI rank, the line it printed (None: nothing or several lines)
    ranks: list[str | None] | None = None
    exit_code: int | None = None
    stderr_tail: str = ""


class InvarianceResult(BaseModel):
    """Gate 1b's verdict over every check of the domain."""

    passed: bool
    outcome: Outcome
    checks: list[CheckResult]
    reason: str
    seconds: float
    reference: str | None
    proposed: str

    def detail(self) -> dict:
        """The record kept in the run database."""
        return self.model_dump()


def invariance(
    candidate: Candidate | str | Path,
    *,
    reference: str | None = None,
    mpi_ranks: int = 1,
    timeout: float = 300.0,
    domain: str = "fenicsx",
    python: str | None = None,
    memory_bytes: int | None = None,
    forms: Mapping[str, str] | None = None,
) -> InvarianceResult:
    """Run the domain's semantic checks on a candidate that passed gate 1.

    `reference` is the value gate 1 printed; without it gate 1 runs first, and a
    candidate that does not pass it cannot be judged here (outcome `error`). Checks run
    in order and stop at the first that fails. `forms` is the compiled-form map of this
    candidate's gate-1 run (`VerifyResult.forms`): the checks load those modules without
    generating their C text; never pass another candidate's.
    """
    from scigate._bounds import range_of
    from scigate.domains import get_domain
    from scigate.errors import BadValue
    from scigate.gate._config import LoopConfig

    reason = range_of(LoopConfig, "mpi_ranks").reason(mpi_ranks)  # the run's own range
    if reason:
        raise BadValue("mpi_ranks", reason)
    cand = candidate if isinstance(candidate, Candidate) else load_candidate(candidate)
    dom = get_domain(domain)
    python = python or dom.python
    checks = dom.semantic_checks(mpi_ranks=mpi_ranks)
    started = time.perf_counter()
    proposed = cand.answer_value or ""
    if reference is None:
        gate1 = verify(cand, timeout=timeout, domain=domain, memory_bytes=memory_bytes)
        if not gate1.passed or gate1.printed is None:
            return _verdict(
                [], None, proposed, started, f"unjudged: gate 1 did not pass ({gate1.reason})"
            )
        reference, forms = gate1.printed, gate1.forms
    results: list[CheckResult] = []
    for check in checks:
        res = run_check(
            cand,
            check,
            reference=reference,
            timeout=timeout,
            python=python,
            preload=dom.preload,
            mpiexec=dom.mpiexec,
            memory_bytes=memory_bytes,
            forms=forms,
        )
        results.append(res)
        if res.outcome == "fail":
            break
    return _verdict(results, reference, proposed, started, None)


async def ainvariance(candidate: Candidate | str | Path, **kwargs) -> InvarianceResult:
    """`invariance` without blocking the event loop."""
    return await asyncio.to_thread(invariance, candidate, **kwargs)


def _verdict(
    results: list[CheckResult],
    reference: str | None,
    proposed: str,
    started: float,
    unjudged: str | None,
) -> InvarianceResult:
    seconds = round(time.perf_counter() - started, 3)
    failed = [r for r in results if r.outcome == "fail"]
    errored = [r for r in results if r.outcome == "error"]
    if unjudged is not None:
        outcome, reason = "error", unjudged
    elif failed:
        outcome, reason = "fail", f"{failed[0].name}: {failed[0].reason}"
    elif errored:
        outcome, reason = "error", "; ".join(f"{r.name}: {r.reason}" for r in errored)
    elif not results:
        outcome, reason = "pass", "the domain declares no semantic checks"
    else:
        outcome = "pass"
        ran = [r for r in results if r.outcome != "n/a"]
        reason = "passed " + "; ".join(f"{r.name} ({r.reason})" for r in ran)
        if not ran:
            reason = "no semantic check applies to this question"
        reason += "".join(f"; {r.name} n/a ({r.reason})" for r in results if r.outcome == "n/a")
    return InvarianceResult(
        passed=outcome == "pass",
        outcome=outcome,
        checks=results,
        reason=reason,
        seconds=seconds,
        reference=reference,
        proposed=proposed,
    )


def run_check(
    cand: Candidate,
    check: SemanticCheck,
    *,
    reference: str,
    timeout: float = 300.0,
    python: str | None = None,
    preload: tuple[str, ...] = (),
    mpiexec: str | None = None,
    memory_bytes: int | None = None,
    forms: Mapping[str, str] | None = None,
) -> CheckResult:
    """Run one `SemanticCheck` on the candidate and compare with `reference` (`forms`:
    the candidate's own gate-1 form map, see `invariance`)."""
    from scigate import sandbox

    python = python or sys.executable
    limits = sandbox.Limits(wall_seconds=timeout)
    if memory_bytes is not None:
        limits.memory_bytes = memory_bytes
    base = {"name": check.name, "reference": reference}
    if check.applies_if and not re.search(check.applies_if, cand.question, re.IGNORECASE):
        return CheckResult(
            passed=False,
            outcome="n/a",
            printed=None,
            reason=f"not applicable: {check.not_applicable}",
            seconds=0.0,
            **base,
        )
    if check.expect == "changed" and is_count(cand.answer_value):
        return CheckResult(
            passed=True,
            outcome="pass",
            printed=None,
            reason=f"not applicable: the proposed answer {cand.answer_value} is an integer "
            "(a count), which scaling computed values need not change",
            seconds=0.0,
            **base,
        )
    if check.mpi_ranks > 1 and mpiexec is None:
        return CheckResult(
            passed=False,
            outcome="error",
            printed=None,
            reason="cannot run: no mpiexec beside the domain's interpreter or on PATH",
            seconds=0.0,
            **base,
        )
    workspace = candidate_workspace(cand)
    token = secrets.token_hex(8)
    unreadable: str | None = None
    try:
        (workspace / RUNNER).write_text(runner_source(check, token), encoding="utf-8")
        if check.mpi_ranks > 1:
            assert mpiexec is not None
            result = sandbox.run(
                [mpiexec, "-n", str(check.mpi_ranks), python, RUNNER],
                workspace=workspace,
                limits=limits,
                env=sandbox.form_map_env(forms),
                forms_scope=cand.forms_scope,
            )
            outputs, unreadable = read_rank_outputs(workspace, check.mpi_ranks)
        else:
            result = sandbox.run_python(
                script=Path(RUNNER),
                workspace=workspace,
                limits=limits,
                env=sandbox.form_map_env(forms),
                python=python,
                preload=preload,
                forms_scope=cand.forms_scope,
            )
            outputs = [result.stdout]
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
    if unreadable is not None:  # a link, FIFO, device or flood where a rank's output goes
        return CheckResult(
            passed=False,
            outcome="error",
            printed=None,
            reason=f"cannot decide: {unreadable} under {check.name}",
            seconds=round(result.seconds, 3),
            exit_code=result.exit_code,
            stderr_tail=result.stderr_tail(10),
            **base,
        )
    return judge_check(
        check, result, outputs, reference=reference, like=cand.answer_value, token=token
    )


def is_count(value: str | None) -> bool:
    """True when an option's value is written as an integer (``128``, ``-3``)."""
    return value is not None and re.fullmatch(r"[+-]?\d+", value.strip()) is not None


def runner_source(check: SemanticCheck, token: str) -> str:
    """The runner a check writes into the workspace: the prelude (given the run's report
    token), solution.py as `__main__`, then the epilogue whatever way the script ended."""
    head = _RANK_STDOUT if check.mpi_ranks > 1 else _UNLINK_RUNNER
    epilogue = "".join(f"    {ln}\n" for ln in (check.epilogue or "pass").splitlines())
    return (
        head
        + f"_SCIGATE_TOKEN = {token!r}\n"
        + check.prelude
        + _RUNNER_TAIL.format(epilogue=epilogue)
    )


def read_rank_outputs(workspace: Path, ranks: int) -> tuple[list[str], str | None]:
    """The stdout file of each MPI rank (empty when missing), read without following a
    link or opening a FIFO, at most `RANK_OUTPUT_LIMIT` bytes each; and why not, when one
    cannot be read (a symlink, FIFO, device or oversized file the script left there)."""
    from scigate.sandbox import UnsafeWorkspaceFile, read_text_if_exists

    outputs: list[str] = []
    for rank in range(ranks):
        name = RANK_FILE.format(rank=rank)
        try:
            text = read_text_if_exists(
                workspace,
                name,
                limit=RANK_OUTPUT_LIMIT,
                what=f"rank {rank}'s output",
                errors="replace",
            )
        except UnsafeWorkspaceFile as exc:
            return outputs, str(exc)
        outputs.append(text or "")
    return outputs, None


def _one_line(text: str) -> str | None:
    lines = output_lines(text)
    return lines[0] if len(lines) == 1 else None


def _over_cap(check: SemanticCheck, result: SandboxResult) -> str | None:
    """`more than the output cap (1 MiB)` when a serial run's stdout was cut at the cap."""
    return over_cap(result) if check.mpi_ranks == 1 else None


def _not_one_line(check: SemanticCheck, result: SandboxResult, outputs: list[str]) -> str:
    """What a serial run printed instead of exactly one line: `3 lines`, `0 lines` or
    more than the output cap (never the lines of a cut output, a marker among them)."""
    return _over_cap(check, result) or f"{len(output_lines(outputs[0]))} lines"


def judge_check(
    check: SemanticCheck,
    result: SandboxResult,
    outputs: list[str],
    *,
    reference: str,
    like: str | None,
    token: str = "",
) -> CheckResult:
    """The verdict of one check from its sandbox result and the stdout of each process.

    Only reports carrying the run's `token` count (a script cannot forge them)."""
    prefix = f"{check.marker} {token}" if token else check.marker
    every = [
        ln.strip()[len(prefix) :].strip()
        for ln in result.stderr.splitlines()
        if check.marker and ln.strip().startswith(prefix)
    ]
    done = [r for r in every if r.startswith("done:")]
    reports = [r for r in every if not r.startswith("done:")]
    lines = [None] if _over_cap(check, result) else [_one_line(text) for text in outputs]
    printed = lines[0] if len(lines) == 1 else next((v for v in lines if v is not None), None)
    base = {
        "name": check.name,
        "reference": reference,
        "printed": printed,
        "seconds": round(result.seconds, 3),
        "perturbed": reports[:20],
        "ranks": lines if check.mpi_ranks > 1 else None,
        "exit_code": result.exit_code,
        "stderr_tail": result.stderr_tail(10),
    }
    where = f"under {check.name}"

    def verdict(outcome: Outcome, reason: str) -> CheckResult:
        return CheckResult(passed=outcome == "pass", outcome=outcome, reason=reason, **base)

    if result.timed_out:
        return verdict("error", f"cannot decide: timeout {where}: {result.reason}")
    if check.expect == "changed":
        return _judge_changed(check, result, outputs, reports, done, base, reference, like)
    if result.exit_code != 0:
        tail = result.stderr_tail(3).strip().replace("\n", " | ")
        return verdict("fail", f"crash {where}: {result.reason}" + (f"; {tail}" if tail else ""))
    if check.mpi_ranks > 1:
        bad = [
            f"rank {r} printed {v}" if v is not None else f"rank {r} printed no single line"
            for r, v in enumerate(lines)
            if v is None or not same_value(v, reference, like)
        ]
        if bad:
            return verdict("fail", f"{'; '.join(bad)} {where}; serial printed {reference}")
        return verdict("pass", f"every rank printed {printed}; serial printed {reference}")
    if printed is None:
        shown = _not_one_line(check, result, outputs)
        return verdict("fail", f"printed {shown} {where}, expected exactly one line")
    if not same_value(printed, reference, like):
        return verdict("fail", f"printed {printed} {where}; {reference} without it")
    undecided = _undecided(check, reports, done)
    if undecided:
        return verdict("error", undecided)
    applied = [r for r in reports if r.startswith("applied")]
    if check.marker and reports and not applied:
        return verdict(
            "error", f"cannot decide: nothing could be perturbed ({'; '.join(reports[:3])})"
        )
    if check.marker and not reports:
        return verdict("pass", f"not applicable: nothing to perturb; printed {printed}")
    return verdict("pass", f"printed {printed}; {reference} without it")


def _undecided(check: SemanticCheck, reports: list[str], done: list[str]) -> str | None:
    """Why the check's own reports leave the run undecided: no closing report although the
    check has an epilogue, or a perturbation the prelude could not apply; else None."""
    if check.epilogue and not done:
        return (
            "cannot decide: the run ended without the check's closing report "
            "(the script exited early or closed the check's channel)"
        )
    unperturbed = [r for r in reports if r.startswith("unperturbed")]
    return f"cannot decide: {unperturbed[0]}" if unperturbed else None


def _judge_changed(
    check: SemanticCheck,
    result: SandboxResult,
    outputs: list[str],
    reports: list[str],
    done: list[str],
    base: dict,
    reference: str,
    like: str | None,
) -> CheckResult:
    """A dependence check's verdict (see the module docstring)."""
    where = f"under {check.name}"
    printed = base["printed"]

    def verdict(outcome: Outcome, reason: str) -> CheckResult:
        return CheckResult(passed=outcome == "pass", outcome=outcome, reason=reason, **base)

    if result.exit_code != 0:
        tail = result.stderr_tail(3).strip().replace("\n", " | ")
        return verdict(
            "error",
            f"cannot decide: crash {where}: {result.reason}" + (f"; {tail}" if tail else ""),
        )
    if printed is None:
        shown = _not_one_line(check, result, outputs)
        return verdict(
            "error", f"cannot decide: printed {shown} {where}, expected exactly one line"
        )
    if parse_number(printed) is None and not _is_plain(printed):  # nan, inf
        return verdict("error", f"cannot decide: printed {printed!r} {where}")
    undecided = _undecided(check, reports, done)
    if undecided:
        return verdict("error", undecided)
    applied = [r for r in reports if r.startswith("applied")]
    scaled = done[0].removeprefix("done:").split(",")[0].strip() if done else ""
    if not applied:
        return verdict(
            "fail",
            f"the printed answer does not depend on the {check.software} computation: the script "
            f"reached none of the computations {check.name} perturbs (printed {printed})",
        )
    if same_value(printed, reference, like):
        return verdict(
            "fail",
            f"the printed answer does not depend on the {check.software} computation: unchanged "
            f"({printed}) with {scaled or 'the computed values scaled'}",
        )
    return verdict("pass", f"changed to {printed} ({reference} unscaled) with {scaled}")


def _is_plain(text: str) -> bool:
    """A non-numeric printed value that is not nan/inf spelled out (e.g. ``P2``)."""
    return text.strip().lower().lstrip("+-") not in ("nan", "inf", "infinity")
