"""FEniCSx gate 1b's quadrature-default check (issue 25): when the question states a
quadrature degree, a script that leaves its non-polynomial integrals to UFL's estimate
moves when the estimate is lowered; one that passes the stated degree stays put. The
check is `n/a` (neither pass nor fail) for a question that states no degree, and fails
closed on a compiled form it did not see estimated."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from scigate.domains import SemanticCheck, get_domain
from scigate.domains._semantic import hook_source
from scigate.domains.fenicsx import _domain as fenicsx_domain
from scigate.gate import invariance, load_candidate, verify
from scigate.gate._invariance import _verdict, judge_check, run_check
from scigate.sandbox import SandboxResult

QUESTION = (
    "On a 4x4 right-diagonal triangular mesh of the unit square, solve -div(grad u) = f "
    "with f = 10 exp(x) sin(3 pi y) and u = 0 on the boundary, in P1 Lagrange. Use "
    "quadrature degree 2 for every form. Report J, the integral of u_h exp(x) cos(2y) over "
    "the square, rounded to six decimal places."
)
SOLUTION = """\
import dolfinx_solver  # noqa: F401
import numpy as np
import ufl
from dolfinx import fem, mesh
from dolfinx.fem.petsc import LinearProblem
from mpi4py import MPI

msh = mesh.create_unit_square(
    MPI.COMM_WORLD, 4, 4, mesh.CellType.triangle, diagonal=mesh.DiagonalType.right
)
V = fem.functionspace(msh, ("Lagrange", 1))
facets = mesh.locate_entities_boundary(msh, 1, lambda x: np.full(x.shape[1], True))
bc = fem.dirichletbc(0.0, fem.locate_dofs_topological(V, 1, facets), V)
x = ufl.SpatialCoordinate(msh)
dx = ufl.Measure("dx", domain=msh, metadata={"quadrature_degree": 2})
f = 10 * ufl.exp(x[0]) * ufl.sin(3 * ufl.pi * x[1])
u, v = ufl.TrialFunction(V), ufl.TestFunction(V)
uh = LinearProblem(
    ufl.inner(ufl.grad(u), ufl.grad(v)) * dx,
    f * v * dx,
    bcs=[bc],
    petsc_options_prefix="q_",
    petsc_options={"ksp_type": "preonly", "pc_type": "lu"},
).solve()
J = fem.assemble_scalar(fem.form(uh * ufl.exp(x[0]) * ufl.cos(2 * x[1]) * dx))
print(f"{J:.6f}")
"""
# the defect: the stated degree ignored, UFL's estimate (7 for f v and for J) used instead
IGNORED = SOLUTION.replace(
    'dx = ufl.Measure("dx", domain=msh, metadata={"quadrature_degree": 2})',
    'dx = ufl.Measure("dx", domain=msh)',
)
# degree 2 -> 0.004433; UFL's estimate -> 0.004118 (and 0.004109 with it lowered by 3)
OPTIONS = {"A": "0.004118", "B": "0.004433", "C": "0.004113", "D": "0.004500"}


def _write(directory: Path, solution: str, answer: str, question: str = QUESTION) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "question.md").write_text(question)
    (directory / "options.json").write_text(json.dumps(OPTIONS))
    (directory / "answer.txt").write_text(answer)
    (directory / "solution.py").write_text(solution)
    return directory


def _quadrature_check() -> SemanticCheck:
    checks = get_domain("fenicsx").semantic_checks()
    return next(c for c in checks if c.name == "quadrature-default")


@pytest.mark.parametrize(
    "text",
    [
        QUESTION,
        "Use quadrature degree 5 for the volume and boundary forms.",
        "Integrate with a quadrature of degree 6.",
        "Assemble every form with a degree-4 quadrature rule.",
        "with a degree 3 Gauss-Jacobi quadrature",
        'pass metadata={"quadrature_degree": 5}',
        "Use a quadrature rule of degree $4$.",
    ],
)
def test_a_stated_degree_is_detected(text: str) -> None:
    check = _quadrature_check()
    assert check.applies_if and check.expect == "same"
    assert re.search(check.applies_if, text, re.IGNORECASE), text


@pytest.mark.parametrize(
    "text",
    [
        "Solve with P2 Lagrange elements (polynomial degree 2) and report u(0.5, 0.5).",
        "Use the default quadrature. Report the energy to six decimals.",
        "On a 16x16 mesh of degree-1 elements, report the flux.",
    ],
)
def test_no_stated_degree_is_not_applicable_without_running(tmp_path: Path, text: str) -> None:
    cand = load_candidate(_write(tmp_path / "c", IGNORED, "A", question=text))
    r = run_check(cand, _quadrature_check(), reference="0.004118")
    # n/a: never a pass by default, never a fail; nothing ran
    assert r.outcome == "n/a" and not r.passed and r.seconds == 0.0
    assert "states no quadrature degree" in r.reason
    # the gate's verdict is decided by the checks that did apply
    ran = r.model_copy(update={"name": "reordered-mesh", "outcome": "pass", "passed": True})
    verdict = _verdict([ran, r], "0.004118", "0.004118", 0.0, None)
    assert verdict.outcome == "pass" and "quadrature-default n/a" in verdict.reason
    alone = _verdict([r], "0.004118", "0.004118", 0.0, None)
    assert alone.reason == (
        "no semantic check applies to this question; quadrature-default n/a "
        "(not applicable: the question states no quadrature degree)"
    )


def _judged(stderr: str, stdout: str = "0.004118\n"):
    r = SandboxResult(
        command=["python"],
        exit_code=0,
        stdout=stdout,
        stderr=stderr,
        stdout_truncated=False,
        stderr_truncated=False,
        timed_out=False,
        signal=None,
        seconds=1.0,
        peak_memory_bytes=None,
        memory_exceeded=False,
        network_isolated=True,
        reason="finished (exit code 0)",
    )
    return judge_check(
        _quadrature_check(), r, [stdout], reference="0.004118", like="0.004118", token="t0k"
    )


TOK = "scigate-quadrature: t0k"
APPLIED = f"{TOK} applied: form 1: 0 integrals at a stated degree, 0 polynomial ...\n"
DONE = f"{TOK} done: 1 forms compiled, 1 integrals ...\n"


def test_judging_fails_closed() -> None:
    assert _judged(APPLIED + DONE).outcome == "pass"
    assert _judged(APPLIED + DONE, "0.004109\n").outcome == "fail"
    unseen = f"{TOK} unperturbed: a compiled form was loaded without the check's estimate\n"
    r = _judged(APPLIED + unseen + DONE)
    assert r.outcome == "error" and "cannot decide: unperturbed" in r.reason
    # without the closing report (the script exited early) nothing is decided
    assert _judged(APPLIED).outcome == "error"


def test_the_other_checks_install_the_hook_as_its_sham() -> None:
    reorder, dependence, quadrature = get_domain("fenicsx").semantic_checks()
    shift = fenicsx_domain.QUADRATURE_SHIFT
    for check in (reorder, dependence):
        assert "_scigate_quadrature['install'](_scigate_token, 0)" in check.prelude
    assert f"_scigate_quadrature['install'](_scigate_token, {shift})" in quadrature.prelude


@pytest.mark.slow
def test_ignored_degree_rejected_and_its_correct_twin_passes(tmp_path: Path) -> None:
    good = _write(tmp_path / "good", SOLUTION, "B")
    bad = _write(tmp_path / "bad", IGNORED, "A")
    # both pass gate 1, each with its own value
    assert verify(good, timeout=300).printed == "0.004433"
    assert verify(bad, timeout=300).printed == "0.004118"
    ok = invariance(good, timeout=300)
    assert ok.passed, ok.reason
    quad = ok.checks[-1]
    assert quad.name == "quadrature-default" and quad.outcome == "pass", quad.reason
    # three forms (a, L, J), each integral at the stated degree: nothing lowered
    assert len(quad.perturbed) == 3, quad.perturbed
    assert all("1 integrals at a stated degree" in p for p in quad.perturbed), quad.perturbed
    assert all("lowered (none)" in p for p in quad.perturbed), quad.perturbed
    r = invariance(bad, timeout=300)
    assert r.outcome == "fail", r.reason
    # the reorder and the dependence check pass it: only this check rejects the defect
    assert [(c.name, c.outcome) for c in r.checks] == [
        ("reordered-mesh", "pass"),
        ("fem-dependence", "pass"),
        ("quadrature-default", "fail"),
    ]
    assert r.checks[-1].printed not in (None, "0.004118"), r.checks[-1].reason
    assert any("lowered (cell 7->4)" in p for p in r.checks[-1].perturbed)
    # the shifted forms were compiled under names of their own: gate 1 still loads (or
    # compiles) the unshifted ones, so no cache hands the lowered degree to a later run
    again = verify(bad, timeout=300)
    assert again.printed == "0.004118", again.reason


_CACHED = """
import sys, tempfile
from pathlib import Path
import ffcx.codegeneration.jit as jit
import ufl, basix.ufl

hook = {"__name__": "hook"}
exec(compile(Path(sys.argv[1]).read_text(), "hook", "exec"), hook)
cache = Path(tempfile.mkdtemp())
cell = basix.ufl.element("Lagrange", "triangle", 1, shape=(2,))
msh = ufl.Mesh(cell)
x = ufl.SpatialCoordinate(msh)
form = ufl.sin(x[0]) * ufl.dx(msh)

if sys.argv[2] == "cached":
    # gate 1 (or a trusted process) compiled the form with UFL's own estimate
    jit.compile_forms([form], cache_dir=cache)
if sys.argv[2] == "planted":
    # a module compiled under the check's shifted name but without its estimate
    original = jit._compute_option_signature
    jit._compute_option_signature = lambda o: original(o) + "|scigate-quadrature+3"
    jit.compile_forms([form], cache_dir=cache)
    jit._compute_option_signature = original
hook["install"]("tok", 3)
jit.compile_forms([form], cache_dir=cache)
jit.compile_forms([form], cache_dir=cache)  # the run's own module again: seen
hook["finish"]()
"""


@pytest.mark.slow
@pytest.mark.parametrize(("how", "unseen"), [("fresh", 0), ("cached", 0), ("planted", 2)])
def test_a_form_loaded_unestimated_is_reported(tmp_path: Path, how: str, unseen: int) -> None:
    hook = tmp_path / "hook.py"  # the hook as a run executes it: the shared helpers first
    hook.write_text(hook_source(Path(fenicsx_domain.__file__).with_name("_quadrature_hook.py")))
    proc = subprocess.run(
        [get_domain("fenicsx").python, "-c", _CACHED, str(hook), how],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("scigate-quadrature: tok")]
    assert sum("unperturbed" in ln for ln in lines) == unseen, lines
    assert lines[-1].endswith(f"{unseen} forms loaded unestimated"), lines
    applied = [ln for ln in lines if "applied:" in ln]
    # fresh: one compile estimated (the second call loads the run's own module); cached:
    # the same, the unshifted module in the cache notwithstanding (the lowered form has a
    # module name of its own, so it is compiled, not loaded); planted: both calls load
    # the planted module, never estimated, and both are reported
    assert len(applied) == (0 if how == "planted" else 1)
    assert all("1 at UFL's estimate lowered" in ln for ln in applied)


def test_hook_is_not_importable_scigate_code() -> None:
    """The hook runs from its text inside the sandbox, never imported by scigate."""
    assert "scigate.domains.fenicsx._quadrature_hook" not in sys.modules
