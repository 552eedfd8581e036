"""Gate 1, local verification: the saved solution must reproduce the proposed answer."""

from __future__ import annotations

import ast
import asyncio
import re
import shutil
import sys
from pathlib import Path

from pydantic import BaseModel, Field

from scigate.gate._candidate import (
    PRIVATE_FILES,
    Candidate,
    copy_candidate_tree,
    load_candidate,
)
from scigate.gate._values import coarse_matches, match_option, parse_number, values_match

DEFAULT_TIMEOUT = 300.0
#: Characters of a printed line a reason quotes (the record's `printed` keeps it whole).
QUOTE_CHARS = 200
# The line the sandbox's capture puts where it left output out (scigate.sandbox._capture).
_CAP_MARKER = re.compile(
    r"\[\.\.\. sandbox: \d+ bytes? of output left out; cap (\d+) bytes \.\.\.\]"
)


class VerifyResult(BaseModel):
    """The outcome of running solution.py on a copy without answer.txt."""

    passed: bool
    printed: str | None
    matched_option: str | None
    proposed: str
    reason: str
    seconds: float
    exit_code: int | None = None
    timed_out: bool = False
    stderr_tail: str = ""
    #: the compiled FFCx modules the run loaded from the shared forms cache (module name
    #: -> key, `SandboxResult.forms`): gate 1b's runs of this candidate load them again
    #: without generating their C text
    forms: dict[str, str] = Field(default_factory=dict)

    def detail(self) -> dict:
        """The record kept in the run database."""
        return self.model_dump()


def verify(
    candidate: Candidate | str | Path,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    python: str | None = None,
    memory_bytes: int | None = None,
    domain: str = "fenicsx",
) -> VerifyResult:
    """Run the candidate's solution in the sandbox and compare its one printed line by value.

    The run is forked from a warm server that imported the `domain`'s preload modules.
    """
    from scigate import sandbox
    from scigate.domains import get_domain

    cand = candidate if isinstance(candidate, Candidate) else load_candidate(candidate)
    assert cand.answer is not None
    preload = get_domain(domain).preload
    limits = sandbox.Limits(wall_seconds=timeout)
    if memory_bytes is not None:
        limits.memory_bytes = memory_bytes
    workspace = candidate_workspace(cand)
    try:
        result = sandbox.run_python(
            script=workspace / "solution.py",
            workspace=workspace,
            limits=limits,
            python=python or sys.executable,
            preload=preload,
            forms_scope=cand.forms_scope,
        )
    finally:
        shutil.rmtree(workspace, ignore_errors=True)
    return judge_run(cand, result)


def candidate_workspace(cand: Candidate) -> Path:
    """A fresh sandbox workspace for running the candidate's solution: a copy of its
    directory (data files included) without answer.txt and the generator's notes
    (meta.json, notes*: those live in the run database).

    The copy follows no link: a symlink, FIFO or device in the candidate directory, or
    one over the copy caps, raises `UnsafeWorkspaceFile` (and leaves no workspace)."""
    from scigate import sandbox

    if cand.path is not None and cand.path.is_dir():
        workspace = sandbox.fresh_workspace()
        try:
            copy_candidate_tree(cand.path, workspace, exclude=PRIVATE_FILES)
        except BaseException:
            shutil.rmtree(workspace, ignore_errors=True)
            raise
        return workspace
    workspace = sandbox.fresh_workspace()
    cand.write(workspace, include_answer=False, include_meta=False)
    return workspace


async def averify(candidate: Candidate | str | Path, **kwargs) -> VerifyResult:
    """`verify` without blocking the event loop."""
    return await asyncio.to_thread(verify, candidate, **kwargs)


def judge_run(cand: Candidate, result) -> VerifyResult:
    """Turn a sandbox result into a verification verdict with a plain-words reason."""
    proposed = cand.answer or ""
    base = {
        "proposed": proposed,
        "seconds": round(result.seconds, 3),
        "exit_code": result.exit_code,
        "timed_out": result.timed_out,
        "stderr_tail": result.stderr_tail(10),
        "forms": dict(result.forms),
    }
    if result.timed_out:
        return VerifyResult(
            passed=False,
            printed=None,
            matched_option=None,
            reason=f"timeout: {result.reason}",
            **base,
        )
    if result.exit_code != 0:
        tail = result.stderr_tail(5).strip()
        why = f"crash: {result.reason}"
        if tail and tail not in why:
            why += f"; last stderr lines: {tail}"
        return VerifyResult(passed=False, printed=None, matched_option=None, reason=why, **base)
    over = over_cap(result)
    if over is not None:
        return VerifyResult(
            passed=False,
            printed=None,
            matched_option=None,
            reason=f"too much output: printed {over} on stdout; expected exactly one line",
            **base,
        )
    lines = output_lines(result.stdout)
    if not lines:
        return VerifyResult(
            passed=False,
            printed=None,
            matched_option=None,
            reason="no output: the solution printed nothing on stdout",
            **base,
        )
    if len(lines) > 1:
        shown = "; ".join(quote(ln) for ln in lines[:3]) + ("; ..." if len(lines) > 3 else "")
        return VerifyResult(
            passed=False,
            printed=None,
            matched_option=None,
            reason=f"several output lines: printed {len(lines)} lines ({shown}); expected exactly one",
            **base,
        )
    printed = lines[0]
    matches = match_option(printed, cand.options)
    if matches:  # a coarse print may be as consistent with a finer-written option
        matches = sorted(set(matches) | set(coarse_matches(printed, cand.options)))
    if not matches:
        return VerifyResult(
            passed=False,
            printed=printed,
            matched_option=None,
            reason=f"value matches no option: printed {quote(printed)}",
            **base,
        )
    if len(matches) > 1:
        # Options of different precisions can each round to the printed value (0.149 is
        # both 0.1 and 0.15; 17 is both 17.0 and 17.4): the run did not single one out.
        return VerifyResult(
            passed=False,
            printed=printed,
            matched_option=None,
            reason=f"ambiguous value: printed {printed}, which matches options "
            f"{', '.join(matches)} at their printed precisions",
            **base,
        )
    literal = answer_literal(cand.solution, cand.options[proposed]) if proposed in matches else None
    if literal is not None:
        return VerifyResult(
            passed=False,
            printed=printed,
            matched_option=None,
            reason=f"hard-coded: solution.py holds the printed value as the literal {literal!r} "
            "instead of computing it",
            **base,
        )
    if proposed in matches:
        return VerifyResult(
            passed=True,
            printed=printed,
            matched_option=proposed,
            reason=f"printed {printed}, matching the proposed option {proposed}",
            **base,
        )
    return VerifyResult(
        passed=False,
        printed=printed,
        matched_option=matches[0],
        reason=f"value matches another option: printed {printed}, which is option {matches[0]}, "
        f"not the proposed {proposed}",
        **base,
    )


def output_lines(stdout: str) -> list[str]:
    """The non-empty lines a run printed, stripped. Only a line feed ends a line: a
    carriage return, form feed or Unicode separator inside one does not make it several."""
    return [ln.strip() for ln in stdout.split("\n") if ln.strip()]


def over_cap(result) -> str | None:
    """`more than the output cap (1 MiB)` when the sandbox cut the run's stdout at its
    cap (what was kept is a head, a marker line and a tail, not the lines the run
    printed), else None."""
    if not getattr(result, "stdout_truncated", False):
        return None
    found = _CAP_MARKER.search(result.stdout)
    return "more than the output cap" + (f" ({_size(int(found.group(1)))})" if found else "")


def quote(line: str) -> str:
    """A printed line as a reason quotes it: at most QUOTE_CHARS characters, and the
    length of a longer one."""
    if len(line) <= QUOTE_CHARS:
        return line
    return f"{line[:QUOTE_CHARS]}... (a line of {len(line)} characters)"


def _size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} bytes"


def answer_literal(solution: str, option: str) -> str | None:
    """A constant of `solution` equal to the numeric `option` at its precision, or None.

    Only values specific enough not to occur by chance count: at least three significant
    digits and not a whole number below 1000 (a mesh size or a count may well be written
    in the script and be the answer)."""
    number = parse_number(option)
    if number is None or len(number.normalize().as_tuple().digits) < 3:
        return None
    if number == number.to_integral_value() and abs(number) < 1000:
        return None
    try:
        tree = ast.parse(solution)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str)):
            if isinstance(node.value, bool):
                continue
            text = str(node.value).strip()
            if values_match(text, option):
                return text
    return None
