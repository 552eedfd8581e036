"""Gate 1b's dependence check: with every value FEniCSx computes for the script scaled, a
printed answer that came from the computation changes; one hidden in arithmetic beside a
decorative solve does not, and is rejected."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scigate.domains import SemanticCheck, get_domain
from scigate.domains.fenicsx import FenicsxDomain
from scigate.gate import invariance, load_candidate, verify
from scigate.gate._invariance import is_count, judge_check, run_check

from .conftest import cli, run_in_fenicsx, write_candidate
from .test_invariance import _SOLVE, BY_POINT_EVALUATION, OPTIONS, QUESTION, _result

DEPENDENCE = SemanticCheck(
    name="fem-dependence",
    software="FEniCSx",
    description="d",
    expect="changed",
    marker="scigate-dependence:",
    epilogue="finish()\n",
)
TOK = "scigate-dependence: t0k"
DONE = f"{TOK} done: 2 computed values scaled, 0 C++-layer calls from the script\n"
APPLIED = f"{TOK} applied: dolfinx.fem.assemble_scalar x1.0734\n"


def _judge(stdout: str, stderr: str, **kw):
    r = _result(stdout, stderr, **kw)
    return judge_check(
        DEPENDENCE, r, [r.stdout], reference="0.099804", like="0.099804", token="t0k"
    )


@pytest.mark.parametrize(
    ("stdout", "stderr", "kw", "outcome", "reason"),
    [
        ("0.107131\n", APPLIED + DONE, {}, "pass", "changed to 0.107131"),
        # unchanged, or changed only below the option's precision: not from the computation
        ("0.099804\n", APPLIED + DONE, {}, "fail", "does not depend on the FEniCSx computation"),
        ("0.09980412\n", APPLIED + DONE, {}, "fail", "unchanged (0.09980412)"),
        # no computation reached: also a verdict, whatever was printed
        ("0.107131\n", DONE, {}, "fail", "reached none of the computations"),
        # a run that cannot show a dependence decides nothing
        ("", APPLIED + DONE, {"exit_code": 1, "reason": "exit code 1"}, "error", "crash"),
        ("nan\n", APPLIED + DONE, {}, "error", "cannot decide: printed 'nan'"),
        ("0.1\n0.2\n", APPLIED + DONE, {}, "error", "printed 2 lines"),
        ("0.107131\n", APPLIED, {}, "error", "closing report"),
        (
            "0.107131\n",
            APPLIED + f"{TOK} unperturbed: the script called dolfinx.cpp.fem.x directly\n" + DONE,
            {},
            "error",
            "unperturbed",
        ),
        # reports without the run's token are not the hook's
        ("0.107131\n", APPLIED.replace(" t0k", "") + DONE, {}, "fail", "reached none"),
    ],
)
def test_judge_a_dependence_check(stdout, stderr, kw, outcome: str, reason: str) -> None:
    r = _judge(stdout, stderr, **kw)
    assert r.outcome == outcome and r.passed is (outcome == "pass"), r.reason
    assert reason in r.reason, r.reason


def test_fenicsx_runs_the_dependence_check_after_the_reorder() -> None:
    checks = get_domain("fenicsx").semantic_checks(mpi_ranks=2)
    assert [(c.name, c.expect) for c in checks] == [
        ("reordered-mesh", "same"),
        ("fem-dependence", "changed"),
        ("quadrature-default", "same"),
        ("mpi-2-ranks", "same"),
    ]
    # both runs install both hooks (the reorder run with the dependence hook's sham)
    assert "_dependence_hook" not in checks[0].prelude  # executed from text, not imported
    assert "install'](_scigate_token, False)" in checks[0].prelude
    assert "install'](_scigate_token, True)" in checks[1].prelude


def test_an_integer_answer_is_exempt_and_nothing_else(tmp_path: Path) -> None:
    assert is_count("128") and is_count(" -3 ") and not is_count("128.0")
    assert not is_count("0.099804") and not is_count("1e3") and not is_count(None)
    counts = {"A": "128", "B": "145", "C": "289", "D": "320"}
    cand = load_candidate(write_candidate(tmp_path / "n", options=counts, answer="C"))
    # returns before any run: the script would not even be executed
    r = run_check(cand, DEPENDENCE, reference="289")
    assert r.passed and r.seconds == 0.0 and "not applicable" in r.reason and "289" in r.reason
    floats = load_candidate(write_candidate(tmp_path / "f", options=OPTIONS, answer="C"))
    same = run_check(floats, SemanticCheck(name="s", description="d"), reference="0.099804")
    assert "not applicable: the proposed" not in same.reason  # only `changed` checks


def _cand(tmp_path: Path, name: str, solution: str, options=OPTIONS, answer: str = "C") -> Path:
    return write_candidate(
        tmp_path / name, question=QUESTION, options=options, answer=answer, solution=solution
    )


_HIDDEN = "0.5 * 0.199608"  # 0.099804, spelled so that gate 1's literal check misses it
_POINT = BY_POINT_EVALUATION[len(_SOLVE) :].replace(
    'print(f"{uh.eval(p, hits.links(0)[:1])[0]:.6f}")\n',
    "value = float(uh.eval(p, hits.links(0)[:1])[0])\n",
)
_CLOSED = "(1 / (2 * np.pi**2)) * np.sin(np.pi * 0.25) * np.sin(np.pi * 0.625) * 1.3"
CLOSED_OPTIONS = {"A": "0.014270", "B": "0.043024", "C": "0.099804", "D": "0.120331"}
ATTACKS = {
    # the answer as arithmetic on constants, a solve beside it for show
    "hidden-constant": (_SOLVE + f'print(f"{{{_HIDDEN}:.6f}}")\n', OPTIONS, "C"),
    # a closed-form value from numpy, a solve beside it for show
    "closed-form-numpy": (_SOLVE + f'print(f"{{{_CLOSED}:.6f}}")\n', CLOSED_OPTIONS, "B"),
    # computed by point evaluation of the solve, then replaced
    "computed-then-replaced": (
        _SOLVE + _POINT + f"if value > 0:\n    value = {_HIDDEN}\n" + 'print(f"{value:.6f}")\n',
        OPTIONS,
        "C",
    ),
}


@pytest.mark.slow
def test_answers_not_computed_by_fenicsx_are_rejected(tmp_path: Path) -> None:
    """Each passes gate 1 and the reorder; the dependence check rejects it."""
    for name, (solution, options, answer) in ATTACKS.items():
        cand = _cand(tmp_path, name, solution, options, answer)
        assert verify(cand, timeout=120).passed, name
        r = invariance(cand, timeout=120)
        assert r.outcome == "fail" and not r.passed, (name, r.reason)
        reorder, dep = r.checks
        assert reorder.passed and dep.name == "fem-dependence" and not dep.passed, name
        assert dep.perturbed, name  # the decorative solve really was scaled
        assert "does not depend on the FEniCSx computation: unchanged" in r.reason, r.reason
        assert r.reason.startswith("fem-dependence:"), r.reason
    # the CLI shows the check like the others and exits 1
    p = cli("gate", "invariance", str(cand), "--json")
    assert p.returncode == 1, p.stderr
    data = json.loads(p.stdout)
    assert [(c["name"], c["outcome"]) for c in data["checks"]] == [
        ("reordered-mesh", "pass"),
        ("fem-dependence", "fail"),
    ]


_NO_SOLVE = "import dolfinx_solver  # noqa: F401\nimport numpy as np\n"
_DETECTED = f"{_HIDDEN} + 0.01"  # what a script prints to look dependent once it sees the check
_CPP = (
    "import dolfinx\nfrom dolfinx import fem as _f\n"
    "M = _f.form(uh * ufl.dx)\n"
    "j1 = _f.assemble_scalar(M)\n"
    "j2 = dolfinx.cpp.fem.assemble_scalar(M._cpp_object, _f.pack_constants(M), "
    "_f.pack_coefficients(M))\n"
    "detected = abs(j1 - j2) > 1e-12 * abs(j2)\n"
)
EVASIONS = {
    # looks where the assembler was defined: sees the wrapper in both runs (the reorder run
    # has the dependence hook's sham), so it cannot print the reference in one only
    "code-location": (
        "detected = 'dolfinx' not in fem.assemble_scalar.__code__.co_filename\n",
        "fail",
        "reordered-mesh",
    ),
    "__wrapped__": ("detected = hasattr(fem.assemble_scalar, '__wrapped__')\n", "fail", "fem-"),
    "identity": (
        "import dolfinx.fem.assemble as _a\n"
        "detected = fem.assemble_scalar is not _a.assemble_scalar\n",
        "fail",
        "fem-dependence",
    ),
    # compares the scaled value with the C++ layer's unscaled one
    "cpp-layer-canary": (_CPP, "error", "dolfinx.cpp.fem.assemble_scalar directly"),
    # silences the check's channel and forges its reports
    "closed-channel": (
        "import os, sys\nos.closerange(3, 1024)\n"
        "sys.stderr.write('scigate-dependence: applied: x\\n"
        "scigate-dependence: done: 9 computed values scaled\\n')\n"
        "detected = False\n",
        "error",
        "closing report",
    ),
}


@pytest.mark.slow
def test_a_script_that_detects_the_check_is_never_passed(tmp_path: Path) -> None:
    outcomes = {}
    for name, (detect, _, _) in EVASIONS.items():
        solution = (
            _SOLVE
            + detect
            + f'print(f"{{({_DETECTED}) if detected else ({_HIDDEN}):.6f}}")\n'
            + ("sys.stdout.flush()\nos._exit(0)\n" if name == "closed-channel" else "")
        )
        r = invariance(_cand(tmp_path, name, solution), timeout=120)
        assert r.reference == "0.099804", (name, r.reason)  # gate 1 passed it
        outcomes[name] = (r.outcome, r.reason)
    for name, (_, outcome, reason) in EVASIONS.items():
        assert outcomes[name][0] == outcome and reason in outcomes[name][1], (name, outcomes)


_RATIO = (
    "from dolfinx import fem as _f\n"
    "a = _f.assemble_scalar(_f.form(uh * ufl.dx))\n"
    "b = _f.assemble_scalar(_f.form(uh * uh * ufl.dx))\n"
    'print(f"{b / a:.6f}")\n'
)
_POINT_RATIO = (
    "q = np.array([[0.5, 0.5, 0.0], [0.25, 0.625, 0.0]])\n"
    "tree = geometry.bb_tree(msh, msh.topology.dim)\n"
    "hits = geometry.compute_colliding_cells(msh, geometry.compute_collisions_points(tree, q), q)\n"
    "v = [uh.eval(q[i : i + 1], hits.links(i)[:1])[0] for i in range(2)]\n"
    'print(f"{v[1] / v[0]:.6f}")\n'
)

_BY_VECTOR = (
    _SOLVE.replace("uh = LinearProblem(", "problem = LinearProblem(").replace(
        ").solve()\n", ")\nuh = problem.solve()\n"
    )
    + 'print(f"{problem.x.array.max():.6f}")\n'
)
FREE_OPTIONS = ("ratio-of-integrals", "ratio-of-point-values", "solution-vector")


def _legit(tmp_path: Path) -> dict[str, Path]:
    """Computed answers of several kinds, and one template candidate of each family."""
    out = {
        "point-evaluation": _cand(tmp_path, "point", BY_POINT_EVALUATION),
        # a ratio of two assembled values (each call has its own factor)
        "ratio-of-integrals": _cand(tmp_path, "ratio", _SOLVE + _RATIO, answer="A"),
        # a ratio of two point values of one solution (per-dof jitter)
        "ratio-of-point-values": _cand(tmp_path, "pratio", _SOLVE + _POINT_RATIO, answer="A"),
        # read from the problem's PETSc vector rather than the Function
        "solution-vector": _cand(tmp_path, "vec", _BY_VECTOR, answer="A"),
    }
    gen = FenicsxDomain().template_generator(seed=3)
    i = 0
    while len(out) < 4 + len(gen.families) and i < 40:
        d = gen.generate(i, tmp_path / f"t{i}")
        family = load_candidate(d).meta.get("family", "?")
        out.setdefault(f"template-{family}", d)
        i += 1
    return out


@pytest.mark.slow
def test_computed_answers_and_every_template_family_pass(tmp_path: Path) -> None:
    cands = _legit(tmp_path)
    assert len(cands) == 4 + 4, sorted(cands)
    for name, d in cands.items():
        if name in FREE_OPTIONS:  # options written from gate 1's printed value
            printed = verify(d, timeout=120).printed
            assert printed is not None, name
            write_candidate(
                d,
                question=QUESTION,
                options={"A": printed, "B": "9.999999", "C": "0.000001", "D": "5.555555"},
                answer="A",
                solution=(d / "solution.py").read_text(),
            )
        r = invariance(d, timeout=120)
        assert r.passed, (name, r.reason)
        dep = r.checks[1]
        assert dep.name == "fem-dependence" and dep.perturbed and dep.printed != dep.reference


@pytest.mark.slow
def test_only_the_scripts_own_calls_are_scaled() -> None:
    """Library code (FFCx compiling a form asks Basix for quadrature) gets exact values, so
    no scaled rule reaches a compiled kernel or the form cache; the script's call does not."""

    from scigate.domains._semantic import hook_source

    hook = hook_source(Path(FenicsxDomain().seed_dirs()[0]).parent.parent / "_dependence_hook.py")
    probe = """
import basix
import numpy as np

library = {"__name__": "ffcx.ir.fake", "basix": basix}
exec("def rule():\\n    return basix.make_quadrature(basix.CellType.triangle, 4)[1]", library)
exact = library["rule"]()
install("", True)
print(np.array_equal(library["rule"](), exact))
print(np.array_equal(basix.make_quadrature(basix.CellType.triangle, 4)[1], exact))
print(hasattr(basix.make_quadrature, "__wrapped__"))
"""
    r = run_in_fenicsx(hook + probe)
    assert r.ok, r.stderr
    assert r.stdout.split() == ["True", "False", "False"]
    assert "scigate-dependence: applied: basix.make_quadrature weights" in r.stderr
