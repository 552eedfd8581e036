"""Gate 1b: a printed answer must not change when the mesh is presented in another order
(or, opt-in, when the script runs on two MPI ranks)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scigate.domains import SemanticCheck, get_domain
from scigate.domains._semantic import hook_source
from scigate.domains.fenicsx import FenicsxDomain
from scigate.gate import invariance, verify
from scigate.gate._invariance import judge_check
from scigate.gate._values import same_value
from scigate.sandbox import SandboxResult

from .conftest import cli, run_in_fenicsx, write_candidate

FENICSX = Path(FenicsxDomain().seed_dirs()[0]).parent.parent

# P2 Poisson solve on a 16x16 mesh; the question asks for u at the mesh vertex (0.25, 0.625).
_SOLVE = """\
import dolfinx_solver  # noqa: F401
import numpy as np
import ufl
from dolfinx import fem, geometry, mesh
from dolfinx.fem.petsc import LinearProblem
from mpi4py import MPI

msh = mesh.create_unit_square(MPI.COMM_WORLD, 16, 16)
V = fem.functionspace(msh, ("Lagrange", 2))
facets = mesh.locate_entities_boundary(msh, 1, lambda x: np.full(x.shape[1], True))
bc = fem.dirichletbc(0.0, fem.locate_dofs_topological(V, 1, facets), V)
u, v = ufl.TrialFunction(V), ufl.TestFunction(V)
x = ufl.SpatialCoordinate(msh)
uh = LinearProblem(
    ufl.inner(ufl.grad(u), ufl.grad(v)) * ufl.dx,
    (1 + 4 * x[0] * x[1]) * v * ufl.dx,
    bcs=[bc],
    petsc_options_prefix="layout_",
    petsc_options={"ksp_type": "preonly", "pc_type": "lu"},
).solve()
point = np.array([0.25, 0.625])
"""
# The paper's defect: the index of the nearest mesh vertex (geometry numbering) is used
# to read the P2 dof array (dof numbering).
LAYOUT_DEFECT = (
    _SOLVE
    + "i = int(np.argmin(np.linalg.norm(msh.geometry.x[:, :2] - point, axis=1)))\n"
    + 'print(f"{uh.x.array[i]:.6f}")\n'
)
BY_DOF_COORDINATES = (
    _SOLVE
    + "dofs = V.tabulate_dof_coordinates()[:, :2]\n"
    + "i = int(np.argmin(np.linalg.norm(dofs - point, axis=1)))\n"
    + 'print(f"{uh.x.array[i]:.6f}")\n'
)
BY_POINT_EVALUATION = (
    _SOLVE
    + "p = np.array([[0.25, 0.625, 0.0]])\n"
    + "tree = geometry.bb_tree(msh, msh.topology.dim)\n"
    + "hits = geometry.compute_colliding_cells(msh, geometry.compute_collisions_points(tree, p), p)\n"
    + 'print(f"{uh.eval(p, hits.links(0)[:1])[0]:.6f}")\n'
)
# u at the point is 0.099804; the defect reads 0.067134 from the unperturbed layout
OPTIONS = {"A": "0.014270", "B": "0.067134", "C": "0.099804", "D": "0.120331"}
QUESTION = (
    "For -div(grad u) = 1 + 4xy on the unit square with u = 0 on the boundary, solved with "
    "P2 Lagrange elements on a 16x16 right-diagonal triangular mesh, what is u at "
    "(0.25, 0.625)? Give six decimal places."
)

# An integral over the mesh, summed over ranks (correct on any number of ranks), and the
# same without the sum (each rank prints its own part).
_INTEGRAL = """\
import dolfinx_solver  # noqa: F401
import ufl
from dolfinx import fem, mesh
from mpi4py import MPI

msh = mesh.create_unit_square(MPI.COMM_WORLD, 12, 12)
x = ufl.SpatialCoordinate(msh)
local = fem.assemble_scalar(fem.form((x[0] ** 2 + x[1]) * ufl.dx))
"""
RANK_SUMMED = _INTEGRAL + 'print(f"{msh.comm.allreduce(local, op=MPI.SUM):.6f}")\n'
RANK_LOCAL = _INTEGRAL + 'print(f"{local:.6f}")\n'
INTEGRAL_OPTIONS = {"A": "0.833333", "B": "0.750000", "C": "0.916667", "D": "0.666667"}


def _layout_candidate(tmp_path: Path, name: str, solution: str, answer: str) -> Path:
    return write_candidate(
        tmp_path / name, question=QUESTION, options=OPTIONS, answer=answer, solution=solution
    )


def _result(stdout: str = "", stderr: str = "", **kw) -> SandboxResult:
    fields = {
        "command": ["python"],
        "exit_code": 0,
        "stdout": stdout,
        "stderr": stderr,
        "stdout_truncated": False,
        "stderr_truncated": False,
        "timed_out": False,
        "signal": None,
        "seconds": 0.5,
        "peak_memory_bytes": None,
        "memory_exceeded": False,
        "network_isolated": True,
        "reason": "finished (exit code 0)",
    }
    return SandboxResult(**(fields | kw))


REORDER = SemanticCheck(name="reordered-mesh", description="d", marker="scigate-invariance:")
MPI2 = SemanticCheck(name="mpi-2-ranks", description="d", mpi_ranks=2)
APPLIED = "scigate-invariance: applied: mesh reordered (8 cells, 9 nodes)\n"


def test_same_value_at_the_options_precision() -> None:
    assert same_value("0.0607231", "0.0607229", "0.060723")
    assert not same_value("0.060724", "0.060723", "0.060723")
    assert not same_value("0.0607231", "0.0607229", None)  # no precision: exact
    assert same_value(" P2 ", "p2", "P1")


@pytest.mark.parametrize(
    ("result", "outputs", "outcome", "reason"),
    [
        (_result("0.5\n", APPLIED), None, "pass", "printed 0.5"),
        (_result("0.6\n", APPLIED), None, "fail", "printed 0.6 under reordered-mesh; 0.5"),
        (_result("0.5\n"), None, "pass", "not applicable"),
        (
            _result("0.5\n", "scigate-invariance: skipped: the mesh kept its order\n"),
            None,
            "error",
            "cannot decide",
        ),
        (_result("0.5\n0.5\n", APPLIED), None, "fail", "printed 2 lines"),
        (_result("", APPLIED, exit_code=1, reason="exit code 1"), None, "fail", "crash"),
        (_result("", timed_out=True, exit_code=None, reason="timed out"), None, "error", "cannot"),
    ],
)
def test_judge_check(result, outputs, outcome: str, reason: str) -> None:
    r = judge_check(REORDER, result, outputs or [result.stdout], reference="0.5", like="0.5")
    assert r.outcome == outcome and r.passed is (outcome == "pass")
    assert reason in r.reason, r.reason


def test_judge_mpi_check_names_each_rank() -> None:
    ok = judge_check(MPI2, _result(), ["0.5\n", "0.50\n"], reference="0.5", like="0.5")
    assert ok.passed and ok.ranks == ["0.5", "0.50"]
    bad = judge_check(MPI2, _result(), ["0.5\n", "0.2\n"], reference="0.5", like="0.5")
    assert (
        not bad.passed and "rank 1 printed 0.2" in bad.reason and "serial printed 0.5" in bad.reason
    )
    silent = judge_check(MPI2, _result(), ["0.5\n", ""], reference="0.5", like="0.5")
    assert not silent.passed and "rank 1 printed no single line" in silent.reason


def test_fenicsx_declares_the_reorder_check_and_mpi_only_on_request() -> None:
    dom = get_domain("fenicsx")
    assert [c.name for c in dom.semantic_checks()] == [
        "reordered-mesh",
        "fem-dependence",
        "quadrature-default",
    ]
    assert [c.name for c in dom.semantic_checks(mpi_ranks=2)] == [
        "reordered-mesh",
        "fem-dependence",
        "quadrature-default",
        "mpi-2-ranks",
    ]
    assert dom.mpiexec is not None


def test_cli_bad_input_exits_2(tmp_path: Path) -> None:
    for args in (
        [str(tmp_path / "missing")],
        [str(write_candidate(tmp_path / "c")), "--mpi-ranks", "0"],
        [str(write_candidate(tmp_path / "d")), "--domain", "nope"],
    ):
        p = cli("gate", "invariance", *args)
        assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
        assert len(p.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_the_reorder_really_permutes_geometry_and_p2_dofs() -> None:
    """The hook's mesh has the same nodes and cells, in another order, and the P2 dof
    coordinates come out in another order too; an integral stays the same."""

    hook = hook_source(FENICSX / "_reorder_hook.py")
    probe = """
import json
import numpy as np
import ufl
from dolfinx import fem, mesh
from mpi4py import MPI

makers = {
    "triangles": lambda m: m.create_unit_square(MPI.COMM_WORLD, 6, 5),
    "quadrilaterals": lambda m: m.create_rectangle(
        MPI.COMM_WORLD, [[0, 0], [2, 1]], [4, 3], m.CellType.quadrilateral),
    "tetrahedra": lambda m: m.create_unit_cube(MPI.COMM_WORLD, 3, 2, 2),
    "interval": lambda m: m.create_unit_interval(MPI.COMM_WORLD, 7),
    "create_mesh": lambda m: from_arrays(m),
}

def from_arrays(m):
    import basix.ufl
    n = 5
    i, j = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    x = np.column_stack([i.ravel(), j.ravel()]).astype(float) / n
    v = lambda a, b: a * (n + 1) + b
    cells = [[v(a, b), v(a + 1, b), v(a, b + 1)] for a in range(n) for b in range(n)]
    cells += [[v(a + 1, b), v(a + 1, b + 1), v(a, b + 1)] for a in range(n) for b in range(n)]
    domain = ufl.Mesh(basix.ufl.element("Lagrange", "triangle", 1, shape=(2,)))
    return m.create_mesh(MPI.COMM_WORLD, np.array(cells, dtype=np.int64), domain, x)

def describe(msh):
    V = fem.functionspace(msh, ("Lagrange", 2))
    u = fem.Function(V)
    u.interpolate(lambda x: 1 + x[0] + 2 * x[1] ** 2)
    value = fem.assemble_scalar(fem.form(u * u * ufl.dx))
    return msh.geometry.x.copy(), V.tabulate_dof_coordinates().copy(), value

before = {k: describe(f(mesh)) for k, f in makers.items()}
install()
after = {k: describe(f(mesh)) for k, f in makers.items()}
out = {}
for k in makers:
    (xa, da, va), (xb, db, vb) = before[k], after[k]
    rows = lambda a: sorted(map(tuple, np.round(a, 12)))
    out[k] = {
        "geometry_order_differs": not np.array_equal(xa, xb),
        "same_nodes": rows(xa) == rows(xb),
        "dof_order_differs": not np.array_equal(da, db),
        "same_dof_points": rows(da) == rows(db),
        "integral_change": abs(va - vb),
    }
print(json.dumps(out))
"""
    r = run_in_fenicsx(hook + probe)
    assert r.ok, r.stderr
    report = json.loads(r.stdout)
    for kind, got in report.items():
        assert got["geometry_order_differs"] and got["dof_order_differs"], kind
        assert got["same_nodes"] and got["same_dof_points"], kind
        assert got["integral_change"] < 1e-12, kind
    assert r.stderr.count("scigate-invariance: applied: mesh reordered") == len(report)


@pytest.mark.slow
def test_layout_defect_passes_gate_1_but_not_the_invariance_gate(tmp_path: Path) -> None:
    wrong = _layout_candidate(tmp_path, "wrong", LAYOUT_DEFECT, "B")
    assert verify(wrong, timeout=120).passed  # gate 1 cannot see the defect
    r = invariance(wrong, timeout=120)
    assert not r.passed and r.outcome == "fail"
    check = r.checks[0]
    assert check.name == "reordered-mesh" and check.reference == "0.067134"
    assert check.printed not in (None, "0.067134")
    assert "reordered-mesh" in r.reason and check.printed in r.reason and "0.067134" in r.reason


@pytest.mark.slow
@pytest.mark.parametrize("solution", [BY_DOF_COORDINATES, BY_POINT_EVALUATION])
def test_the_same_computation_done_right_passes(tmp_path: Path, solution: str) -> None:
    r = invariance(_layout_candidate(tmp_path, "right", solution, "C"), timeout=120)
    assert r.passed, r.reason
    assert r.checks[0].printed == "0.099804"
    assert r.checks[0].perturbed == ["applied: mesh reordered (512 cells, 289 nodes)"]


@pytest.mark.slow
def test_the_papers_item_0023_and_the_seeds_pass_via_the_cli(tmp_path: Path) -> None:
    dom = FenicsxDomain()
    for d in [*dom.example_dirs(), *dom.seed_dirs()]:
        p = cli("gate", "invariance", str(d), "--json")
        assert p.returncode == 0, (d.name, p.stdout, p.stderr)
        data = json.loads(p.stdout)
        assert data["passed"] and data["checks"][0]["name"] == "reordered-mesh"
        assert {"name", "passed", "printed", "reference", "reason", "seconds"} <= set(
            data["checks"][0]
        )
        assert data["checks"][0]["perturbed"], d.name  # a mesh was really reordered
        dep = data["checks"][1]
        assert dep["name"] == "fem-dependence" and dep["passed"] and dep["perturbed"], d.name
        assert dep["printed"] != dep["reference"], d.name


@pytest.mark.slow
def test_the_mpi_check_finishes_on_the_papers_item_0023() -> None:
    """Both ranks print 0.060723 and exit: the runner keeps the script's objects until the
    interpreter ends (freed when runpy returned, PETSc objects left the ranks spinning
    after they printed, and the check ended `error` at its time limit)."""
    [item] = [d for d in FenicsxDomain().example_dirs() if d.name == "item_0023"]
    r = invariance(item, mpi_ranks=2, timeout=60)
    mpi = r.checks[-1]
    assert mpi.name == "mpi-2-ranks" and mpi.outcome == "pass", mpi.reason
    # a pass is the proof that both ranks exited: spinning ranks end `error` at the limit
    assert mpi.ranks == ["0.060723", "0.060723"]


@pytest.mark.slow
def test_cli_rejects_the_layout_defect_with_exit_1(tmp_path: Path) -> None:
    wrong = _layout_candidate(tmp_path, "wrong", LAYOUT_DEFECT, "B")
    p = cli("gate", "invariance", str(wrong), "--json")
    assert p.returncode == 1, p.stderr
    data = json.loads(p.stdout)
    assert data["passed"] is False and data["checks"][0]["passed"] is False


@pytest.mark.slow
def test_mpi_check_passes_a_summed_value_and_fails_a_rank_local_one(tmp_path: Path) -> None:
    summed = write_candidate(
        tmp_path / "summed", options=INTEGRAL_OPTIONS, answer="A", solution=RANK_SUMMED
    )
    local = write_candidate(
        tmp_path / "local", options=INTEGRAL_OPTIONS, answer="A", solution=RANK_LOCAL
    )
    ok = invariance(summed, mpi_ranks=2, timeout=120)
    assert ok.passed, ok.reason
    assert [c.name for c in ok.checks] == [
        "reordered-mesh",
        "fem-dependence",
        "quadrature-default",  # n/a: the question states no quadrature degree
        "mpi-2-ranks",
    ]
    assert ok.checks[2].outcome == "n/a"
    assert ok.checks[3].ranks == ["0.833333", "0.833333"]
    # serial the rank-local script is right (gate 1 and the reorder pass); on 2 ranks not
    bad = invariance(local, mpi_ranks=2, timeout=120)
    assert not bad.passed and bad.checks[0].passed and bad.checks[1].passed
    mpi = bad.checks[3]
    assert mpi.name == "mpi-2-ranks" and not mpi.passed
    assert mpi.ranks is not None and len(mpi.ranks) == 2 and "0.833333" not in mpi.ranks
    assert "serial printed 0.833333" in bad.reason
    # off by default
    assert [c.name for c in invariance(local, timeout=120).checks] == [
        "reordered-mesh",
        "fem-dependence",
        "quadrature-default",
    ]


@pytest.mark.slow
def test_a_failing_gate_1_is_unjudged(tmp_path: Path) -> None:
    cand = write_candidate(tmp_path / "c", solution="print('0.142857')\n")
    r = invariance(cand, timeout=60)
    assert r.outcome == "error" and not r.passed and r.reason.startswith("unjudged")


@pytest.mark.slow
def test_gate_run_with_templates_records_the_invariance_stage(tmp_path: Path) -> None:
    from scigate.gate._audit import audit
    from scigate.store import Store

    db = tmp_path / "tg.db"
    run = cli(
        *("gate", "run", "--generator", "templates"),
        *("--rounds", "2", "--family", "deformed_poisson", "--family", "basix_tabulate"),
        *("--db", str(db), "--json"),
    )
    assert run.returncode == 0, run.stderr[-3000:]
    funnel = json.loads(run.stdout)["funnel"]
    assert funnel["invariance"] is True
    assert funnel["verified"] == 2 and funnel["invariant"] == 2, funnel
    with Store(db) as store:
        rows = store.gate_results(gate="invariance")
        assert len(rows) == 2 and {r["outcome"] for r in rows} == {"pass"}
        by_family = {store.get_candidate(r["candidate_id"]).family: r for r in rows}
        # the mesh family really had its mesh reordered; the tabulation has no mesh
        poisson = by_family["deformed_poisson"]["detail"]["checks"][0]
        assert poisson["name"] == "reordered-mesh" and poisson["perturbed"]
        # both families' computed values were scaled and their answers moved
        for fam in ("deformed_poisson", "basix_tabulate"):
            dep = by_family[fam]["detail"]["checks"][1]
            assert dep["name"] == "fem-dependence" and dep["passed"] and dep["perturbed"]
        assert by_family["basix_tabulate"]["reason"].find("not applicable") >= 0
        assert store.query("SELECT invariant FROM v_funnel")[0]["invariant"] == 2
        a = audit(store)
    assert a.funnel["invariant"] == 2
    assert any(r["gate"] == "invariance" and r["items"] == 2 for r in a.cost)
    # the report and the release show the stage; each released item carries its record
    from scigate.gate._export import accepted_records, export_release
    from scigate.gate._report import build_report

    with Store(db) as store:
        files = build_report(store, tmp_path / "report")
        released = export_release(store, tmp_path / "release")
        records = accepted_records(store)
    assert json.loads(files.summary.read_text())["funnel"]["invariant"] == 2
    assert "invariant (gate 1b)" in files.html.read_text()
    sheet = (tmp_path / "release" / "DATASHEET.md").read_text()
    assert "(gate 1b): 2" in sheet and "invariance gate (1b): on" in sheet
    assert released.items == len(records) == 2
    for rec in records:
        inv = [g for g in rec["gates"] if g["gate"] == "invariance"]
        assert len(inv) == 1 and inv[0]["outcome"] == "pass"
        assert inv[0]["conditions"]["checks"] == [
            "reordered-mesh",
            "fem-dependence",
            "quadrature-default",
        ]


@pytest.mark.slow
def test_loop_rejects_the_layout_defect_at_gate_1b(tmp_path: Path) -> None:
    """In `gate run`, the defect is verified, then stopped by gate 1b before any screen;
    the right computation goes on to the screens."""
    import asyncio

    from scigate.gate import load_candidate
    from scigate.gate._funnel import funnel_of_run
    from scigate.gate._loop import LoopConfig, _Context, _save_candidate, gate_candidate
    from scigate.store import Store

    cfg = LoopConfig(generator="templates", screens=["cue/letter-A"], rounds=2)
    cands = {
        name: load_candidate(_layout_candidate(tmp_path, name, solution, answer))
        for name, solution, answer in [
            ("wrong", LAYOUT_DEFECT, "B"),
            ("right", BY_DOF_COORDINATES, "C"),
        ]
    }
    with Store(tmp_path / "run.db") as store:
        run_id = store.create_run("gate", domain="fenicsx", config=cfg.model_dump())
        ctx = _Context(cfg, store, run_id, 2, None)

        async def both() -> dict:
            out = {}
            for r, (name, cand) in enumerate(cands.items()):
                _save_candidate(store, run_id, cand)
                status, reason, _ = await gate_candidate(ctx, cand)
                store.add_attempt(run_id, r, candidate_id=cand.id, status=status, reason=reason)
                out[name] = (status, reason)
            return out

        outcomes = asyncio.run(both())
        wrong, right = cands["wrong"].id, cands["right"].id
        assert outcomes["wrong"][0] == "rejected-invariance"
        assert "reordered-mesh" in outcomes["wrong"][1] and "0.067134" in outcomes["wrong"][1]
        assert store.gate_result(run_id, wrong, "screen", "cue/letter-A") is None
        assert store.gate_result(run_id, right, "invariance")["outcome"] == "pass"
        assert store.gate_result(run_id, right, "screen", "cue/letter-A") is not None
        f = funnel_of_run(store, run_id, cfg.screens, tool_gate=False)
        assert (f.verified, f.invariant) == (2, 1) and "invariant 1" in f.line()
        status = {
            r["candidate_id"]: r["status"]
            for r in store.query("SELECT candidate_id, status FROM v_candidate_status")
        }
        assert status[wrong] == "rejected-invariance"


def test_rescreen_leaves_out_candidates_that_failed_gate_1b(tmp_path: Path) -> None:
    from scigate.gate._loop import _verified_candidates
    from scigate.store import CandidateRecord, Store

    with Store(tmp_path / "run.db") as store:
        run_id = store.create_run("gate")
        for i, inv in enumerate(("pass", "fail", "error", None)):
            store.add_candidate(
                CandidateRecord(id=f"c{i}", run_id=run_id, question=f"q{i}", options={}, answer="A")
            )
            store.add_gate_result(run_id, f"c{i}", "verify", outcome="pass")
            if inv:
                store.add_gate_result(run_id, f"c{i}", "invariance", outcome=inv)
        assert [c.id for c in _verified_candidates(store)] == ["c0", "c3"]


@pytest.mark.slow
def test_checks_run_without_the_answer_or_the_generator_notes(tmp_path: Path) -> None:
    """The perturbed runs get the same workspace as gate 1: no answer.txt, no meta.json."""
    snoop = (
        "import os\nimport basix\n"
        "w = basix.make_quadrature(basix.CellType.interval, 2)[1].sum()\n"
        "leaked = [f for f in ('answer.txt', 'meta.json', 'notes.md') if os.path.exists(f)]\n"
        "print('LEAK ' + ' '.join(leaked) if leaked else f'{2/7 * w:.6f}')\n"
    )
    cand = write_candidate(tmp_path / "c", solution=snoop, meta={"family": "x", "answer": "B"})
    (cand / "notes.md").write_text("the answer is B\n")
    r = invariance(cand, mpi_ranks=2, timeout=120)
    assert r.passed, r.reason
    # the dependence check's run computes with scaled quadrature weights; the
    # quadrature-default check is n/a (the question states no degree)
    printed = [c.printed for c in r.checks]
    assert printed[0] == printed[3] == "0.285714" and printed[1] != "0.285714", printed
    assert r.checks[2].outcome == "n/a" and printed[2] is None


@pytest.mark.slow
def test_another_seed_is_tried_when_dolfinx_restores_the_order() -> None:
    """DOLFINx renumbers a mesh itself; for a 7-cell interval seed 2's shuffle comes out
    in the original order, so the hook must try the next seed. A 1-cell interval keeps
    its order under every seed, which the hook reports instead of claiming a reorder."""

    hook = hook_source(FENICSX / "_reorder_hook.py")
    probe = """
import numpy as np
from dolfinx import mesh
from mpi4py import MPI

SEEDS = (2, 0)
plain = mesh.create_unit_interval(MPI.COMM_WORLD, 7).geometry.x.copy()
install()
moved = mesh.create_unit_interval(MPI.COMM_WORLD, 7).geometry.x
print(not np.array_equal(plain, moved))
mesh.create_unit_interval(MPI.COMM_WORLD, 1)
"""
    r = run_in_fenicsx(hook + probe)
    assert r.ok, r.stderr
    assert r.stdout.strip() == "True"
    reports = [ln for ln in r.stderr.splitlines() if ln.startswith("scigate-invariance:")]
    assert reports == [
        "scigate-invariance: applied: mesh reordered (7 cells, 8 nodes)",
        "scigate-invariance: skipped: the mesh kept its order under every seed (1 cells, 2 nodes)",
    ]


@pytest.mark.slow
def test_a_mesh_that_cannot_be_reordered_is_unjudged_not_passed(tmp_path: Path) -> None:
    script = (
        "import dolfinx_solver  # noqa: F401\n"
        "from dolfinx import mesh\nfrom mpi4py import MPI\n"
        "msh = mesh.create_unit_interval(MPI.COMM_WORLD, 1)\n"
        "print(f'{msh.geometry.x[1, 0]:.6f}')\n"
    )
    opts = {"A": "1.000000", "B": "0.500000", "C": "2.000000", "D": "0.250000"}
    cand = write_candidate(tmp_path / "c", options=opts, answer="A", solution=script)
    r = invariance(cand, timeout=120)
    assert not r.passed and r.checks[0].outcome == "error"
    assert "cannot decide" in r.checks[0].reason and "kept its order" in r.checks[0].reason


def _verified_candidate(store, run_id: str, cid: str, invariance: str | None) -> None:
    """A candidate that passed gate 1, with gate 1b's `invariance` outcome (None: not run)."""
    from scigate.store import CandidateRecord

    store.add_candidate(
        CandidateRecord(id=cid, run_id=run_id, question=f"q{cid} x", options={"A": "1"}, answer="A")
    )
    store.add_gate_result(run_id, cid, "verify", outcome="pass")
    if invariance:
        store.add_gate_result(run_id, cid, "invariance", outcome=invariance)


def test_pool_and_funnel_drop_gate_1b_failures_and_keep_unchecked_candidates(
    tmp_path: Path,
) -> None:
    """A candidate gate 1b rejected (or could not judge) never reaches the pool; one that
    a run without gate 1b gated is not rejected by it, and the funnel says how many."""
    from scigate.gate._audit import audit, latest_results, surviving_candidates
    from scigate.store import Store

    with Store(tmp_path / "run.db") as store:
        run_id = store.create_run("gate")
        for i, inv in enumerate(("pass", "fail", "error", None)):
            _verified_candidate(store, run_id, f"c{i}", inv)
        cands = {c.id: c for c in store.candidates()}
        assert surviving_candidates(latest_results(store), [], cands) == ["c0", "c3"]
        f = audit(store).funnel
    assert (f["verified"], f["invariant"], f["invariance_unchecked"], f["unique"]) == (4, 1, 1, 2)


# Scripts that tell the check from verification, or build their mesh where the check does
# not reorder it, and keep the layout defect's unperturbed value. None may pass gate 1b.
_BUILD = "msh = mesh.create_unit_square(MPI.COMM_WORLD, 16, 16)"
_ORIGINAL = (
    "getattr(mesh.create_rectangle, '__wrapped__', mesh.create_rectangle)"
    "(MPI.COMM_WORLD, [np.array([0.0, 0.0]), np.array([1.0, 1.0])], [16, 16])"
)
_EVASIONS = {
    # calls the constructor the hook wrapped through functools' __wrapped__
    "unwrapped-constructor": f"msh = {_ORIGINAL}",
    # builds the mesh in the C++ layer and wraps it itself
    "cpp-layer-mesh": (
        "import dolfinx.cpp as _c\nimport basix.ufl as _bu\n"
        "_m = _c.mesh.create_rectangle_float64(MPI.COMM_WORLD, [np.array([0.0, 0.0]), "
        "np.array([1.0, 1.0])], [16, 16], mesh.CellType.triangle, None, "
        "mesh.DiagonalType.right, 2)\n"
        "msh = mesh.Mesh(_m, ufl.Mesh(_bu.element('Lagrange', 'triangle', 1, shape=(2,))))"
    ),
    # sees the check's runner in the workspace and prints the value verification printed
    # (spelled so that gate 1's literal check does not see it)
    "runner-file-detected": (
        "import os, sys\n"
        "if os.path.exists('.scigate_check.py'):\n"
        "    print(f'{67134 / 1e6:.6f}')\n    sys.exit(0)\n" + _BUILD
    ),
    # closes the check's channel, forges its closing report and exits before the epilogue
    "forged-closing-report": (
        "import os, sys\nos.closerange(3, 1024)\n"
        "sys.stderr.write('scigate-invariance: done: 0 meshes built, 0 not reordered\\n')\n"
        f"msh = {_ORIGINAL}"
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("evasion", sorted(_EVASIONS))
def test_a_script_evading_the_reorder_is_never_passed(tmp_path: Path, evasion: str) -> None:
    solution = _SOLVE.replace(_BUILD, _EVASIONS[evasion]) + LAYOUT_DEFECT[len(_SOLVE) :]
    if evasion == "forged-closing-report":
        solution += "sys.stdout.flush()\nos._exit(0)\n"
    cand = _layout_candidate(tmp_path, evasion, solution, "B")
    r = invariance(cand, timeout=120)
    assert r.reference == "0.067134"  # gate 1 passed it
    assert not r.passed and r.outcome in ("fail", "error"), r.reason


def test_only_reports_with_the_runs_token_count_and_the_closing_one_is_required() -> None:
    check = REORDER.model_copy(update={"epilogue": "finish()\n"})
    tok = "scigate-invariance: t0k"
    done = f"{tok} done: 1 meshes built, 0 not reordered\n"
    ok = judge_check(
        check,
        _result("0.5\n", f"{tok} applied: x\n" + done),
        ["0.5\n"],
        reference="0.5",
        like="0.5",
        token="t0k",
    )
    assert ok.passed and ok.perturbed == ["applied: x"]
    forged = "scigate-invariance: done: 0 meshes built, 0 not reordered\n"
    r = judge_check(
        check, _result("0.5\n", forged), ["0.5\n"], reference="0.5", like="0.5", token="t0k"
    )
    assert r.outcome == "error" and "closing report" in r.reason
    hidden = f"{tok} unperturbed: a mesh built outside\n" + done
    r = judge_check(
        check, _result("0.5\n", hidden), ["0.5\n"], reference="0.5", like="0.5", token="t0k"
    )
    assert r.outcome == "error" and "unperturbed" in r.reason


@pytest.mark.slow
def test_gate_1b_gets_the_form_map_of_the_same_candidates_gate_1(tmp_path: Path) -> None:
    """`gate run` hands gate 1b the compiled-form map its own gate-1 record holds (the
    checks then load those modules without generating C), never another candidate's:
    two candidates with different forms each get exactly their own."""
    import asyncio

    from scigate.gate import load_candidate
    from scigate.gate._loop import LoopConfig, _Context, _save_candidate, gate_candidate
    from scigate.gate._workers import GateWorkers
    from scigate.store import Store

    seen: dict[str, object] = {}

    class Spy(GateWorkers):
        async def invariance(self, cand, **kwargs):
            seen[cand.id] = kwargs.get("forms")
            return await super().invariance(cand, **kwargs)

    # the same answer through another bilinear form (another FFCx module)
    dot = BY_DOF_COORDINATES.replace(
        "ufl.inner(ufl.grad(u), ufl.grad(v))", "ufl.dot(ufl.grad(v), ufl.grad(u))"
    )
    assert dot != BY_DOF_COORDINATES
    cands = [
        load_candidate(_layout_candidate(tmp_path, name, solution, "C"))
        for name, solution in [("inner", BY_DOF_COORDINATES), ("dot", dot)]
    ]
    cfg = LoopConfig(generator="templates", screens=["cue/letter-A"], rounds=2)
    with Store(tmp_path / "run.db") as store:
        run_id = store.create_run("gate", domain="fenicsx", config=cfg.model_dump())
        ctx = _Context(cfg, store, run_id, 2, None, workers=Spy())

        async def gate_all() -> None:
            for cand in cands:
                _save_candidate(store, run_id, cand)
                await gate_candidate(ctx, cand)

        asyncio.run(gate_all())
        maps = {c.id: store.gate_result(run_id, c.id, "verify")["detail"]["forms"] for c in cands}
    assert all(maps.values()) and maps[cands[0].id] != maps[cands[1].id]
    assert seen == maps


def test_the_unchecked_count_is_taken_before_the_screens(tmp_path: Path) -> None:
    """`invariance_unchecked` counts verified candidates gate 1b never ran on. A screen
    that later rejects some candidates does not change that count (it read 6 - 4 = -2
    as "+-2 unchecked" when taken after the screens)."""
    from scigate.gate._audit import audit
    from scigate.store import Store

    with Store(tmp_path / "run.db") as store:
        run_id = store.create_run("gate", config={"screens": ["s"]})
        for i, (inv, screen) in enumerate(
            (("pass", "pass"), ("pass", "fail"), ("pass", "fail"), (None, "fail"))
        ):
            _verified_candidate(store, run_id, f"c{i}", inv)
            store.add_gate_result(run_id, f"c{i}", "screen", outcome=screen, screen="s")
        f = audit(store).funnel
    assert (f["verified"], f["invariant"], f["invariance_unchecked"]) == (4, 3, 1)
    assert f["screens"] == {"s": 1}
