"""FEniCSx domain: environment probe, guide, seeds, worked examples, template generator."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from .._base import Domain, SemanticCheck, candidate_dirs, mpi_check
from .._semantic import hook_prelude

HERE = Path(__file__).parent

# Runs in the domain interpreter: which packages import, their versions, and a tiny solve.
_PROBE = r"""
import importlib, json, sys, time
report = {"python": sys.version.split()[0], "packages": {}}
for name in ("dolfinx_solver", "dolfinx", "basix", "ufl", "ffcx", "petsc4py", "mpi4py", "numpy"):
    try:
        module = importlib.import_module(name)
        version = getattr(module, "__version__", None)
        if name == "petsc4py":
            from petsc4py import PETSc
            version = "%s (PETSc %s, scalar %s)" % (version, ".".join(map(str, PETSc.Sys.getVersion())), PETSc.ScalarType.__name__)
        report["packages"][name] = {"ok": True, "version": version}
    except Exception as exc:
        report["packages"][name] = {"ok": False, "error": "%s: %s" % (type(exc).__name__, exc)}
try:
    start = time.perf_counter()
    import dolfinx_solver  # noqa: F401
    import ufl
    from dolfinx import fem, mesh
    from dolfinx.fem.petsc import LinearProblem
    from mpi4py import MPI
    msh = mesh.create_unit_square(MPI.COMM_WORLD, 4, 4)
    V = fem.functionspace(msh, ("Lagrange", 1))
    u, v = ufl.TrialFunction(V), ufl.TestFunction(V)
    facets = mesh.locate_entities_boundary(msh, 1, lambda x: x[0] < 2)
    bc = fem.dirichletbc(0.0, fem.locate_dofs_topological(V, 1, facets), V)
    uh = LinearProblem(ufl.inner(ufl.grad(u), ufl.grad(v)) * ufl.dx, v * ufl.dx, bcs=[bc],
                       petsc_options_prefix="scigate_probe_",
                       petsc_options={"ksp_type": "preonly", "pc_type": "lu"}).solve()
    value = fem.assemble_scalar(fem.form(uh * ufl.dx))
    report["solve"] = {"ok": bool(0.01 < value < 0.05), "value": value,
                       "seconds": round(time.perf_counter() - start, 3)}
except Exception as exc:
    report["solve"] = {"ok": False, "error": "%s: %s" % (type(exc).__name__, exc)}
print(json.dumps(report))
"""


#: How far the quadrature-default check lowers UFL's estimated degree (to at least 1), for
#: integrals with no stated degree whose integrand is not a polynomial on affine simplices
#: (a polynomial one is exact at the estimate and is left alone).
QUADRATURE_SHIFT = 3

#: A question that states a quadrature degree ("quadrature degree 5", "a degree-4
#: quadrature rule", "quadrature of degree 6", `quadrature_degree=5`); the
#: quadrature-default check applies only to those and is `n/a` for the others.
QUADRATURE_STATED = (
    r"quadrature[\s_-]+degree[\s\"']*(?:of|=|:|is|\$|\\\(|q\s*=)?\s*\$?\s*\d"
    r"|quadrature\s+(?:rule\s+|scheme\s+)?(?:of|with)\s+(?:polynomial\s+)?degree\s*\$?\s*\d"
    r"|degree[\s-]*\$?\d+\$?\s+(?:gauss(?:ian)?(?:[\s-]+\w+)?\s+)?quadrature"
)


def _preludes(*, scale: bool, shift: int = 0) -> str:
    """The three hooks installed with the run's token: the mesh reorder, the dependence
    hook scaling (`scale`) or as its sham, and the quadrature hook raising UFL's
    estimated degree by `shift` (0: its sham)."""
    return (
        '_scigate_token = globals().pop("_SCIGATE_TOKEN", "")\n'
        + hook_prelude(HERE, "_scigate_reorder", "_reorder_hook.py", "_scigate_token")
        + hook_prelude(
            HERE, "_scigate_dependence", "_dependence_hook.py", f"_scigate_token, {scale}"
        )
        + hook_prelude(
            HERE, "_scigate_quadrature", "_quadrature_hook.py", f"_scigate_token, {shift}"
        )
        + "del _scigate_token\n"
    )


class FenicsxDomain(Domain):
    """DOLFINx 0.11 with PETSc real scalars (wheel ``dolfinx-solver-real``)."""

    name = "fenicsx"
    solution_timeout = 300.0
    # importing these takes most of a small solve; warm sandbox runs fork after them.
    # numpy.ma (np.setdiff1d and np.unique reach it) and numpy.random (the reorder check
    # shuffles with it) are imported lazily by numpy: 10 and 6 ms of a 40 ms run.
    preload = (
        "dolfinx_solver",
        "dolfinx",
        "dolfinx.fem.petsc",
        "ufl",
        "basix",
        "numpy.ma",
        "numpy.random",
    )
    workspace_note = (
        "The workspace has Python with DOLFINx 0.11 (PETSc real scalars, MPI via mpi4py), "
        "UFL, Basix, FFCx and numpy. Import `dolfinx_solver` before `dolfinx`. Forms are "
        "JIT-compiled by FFCx on first use (cached in ~/.cache/fenics). gmsh is not installed; "
        "build meshes with dolfinx.mesh (create_unit_square, create_rectangle, create_submesh)."
    )

    def semantic_checks(self, *, mpi_ranks: int = 1) -> list[SemanticCheck]:
        """The mesh presented in another order, then every computed value scaled (both
        always), then UFL's default quadrature degree lowered (when the question states a
        degree; `n/a` otherwise); `mpi_ranks` > 1 adds the MPI run.

        Every run installs all three hooks, so a script sees the same wrapped functions in
        each: the reorder run under the other two hooks' shams, the dependence and
        quadrature runs with the mesh reordered too (a correct script is indifferent to
        that) and the other perturbing hook as its sham."""
        reorder = SemanticCheck(
            name="reordered-mesh",
            description="the same script with the mesh's cells and nodes presented in a "
            "shuffled order, so geometry and dof numberings change",
            prelude=_preludes(scale=False),
            marker="scigate-invariance:",
            epilogue="_scigate_reorder['finish']()\n",
        )
        dependence = SemanticCheck(
            name="fem-dependence",
            software="FEniCSx",
            description="the same script with every value DOLFINx and Basix compute for it "
            "(assembled integrals, vectors and matrices, solutions, interpolants, "
            "tabulations, quadrature weights) scaled by a factor of its own; an answer "
            "computed from them must change",
            expect="changed",
            prelude=_preludes(scale=True),
            marker="scigate-dependence:",
            epilogue="_scigate_dependence['finish']()\n",
        )
        quadrature = SemanticCheck(
            name="quadrature-default",
            software="FEniCSx",
            description=f"the same script with UFL's estimated quadrature degree lowered by "
            f"{QUADRATURE_SHIFT} for every integral that states no degree and is not a "
            "polynomial on affine cells (compiled afresh, under a module name of its own); "
            "the question states a quadrature degree, so a script that passes it to its "
            "forms prints the same value, one that left the degree to UFL's estimate moves",
            prelude=_preludes(scale=False, shift=QUADRATURE_SHIFT),
            marker="scigate-quadrature:",
            epilogue="_scigate_quadrature['finish']()\n",
            applies_if=QUADRATURE_STATED,
            not_applicable="the question states no quadrature degree",
        )
        return [reorder, dependence, quadrature] + ([mpi_check(mpi_ranks)] if mpi_ranks > 1 else [])

    def check_environment(self) -> dict[str, Any]:
        """Probe the domain interpreter in a subprocess (dolfinx never loads in the caller)."""
        try:
            proc = subprocess.run(
                [self.python, "-c", _PROBE], capture_output=True, text=True, timeout=300
            )
        except subprocess.TimeoutExpired:
            return {"ok": False, "python": self.python, "error": "environment probe timed out"}
        lines = proc.stdout.strip().splitlines()
        try:
            report = json.loads(lines[-1])
        except (IndexError, json.JSONDecodeError):
            return {
                "ok": False,
                "python": self.python,
                "error": f"probe exited {proc.returncode}: {proc.stderr.strip()[-300:]}",
            }
        report["interpreter"] = self.python
        needed = ("dolfinx_solver", "dolfinx", "basix", "ufl", "ffcx", "petsc4py", "mpi4py")
        report["ok"] = all(report["packages"][n]["ok"] for n in needed) and report["solve"]["ok"]
        return report

    def guide(self) -> str:
        """The FEniCSx domain guide (markdown)."""
        return (HERE / "guide.md").read_text()

    def seed_dirs(self) -> list[Path]:
        """The five expert seed items (nonlinear Poisson on a punctured square)."""
        return candidate_dirs(HERE / "seeds")

    def example_dirs(self) -> list[Path]:
        """Worked examples: item 0023 from the ToolGate paper."""
        return candidate_dirs(HERE / "examples")

    def template_generator(self, seed: int = 0, families=None):  # -> templates.TemplateGenerator
        """Template generator over the FEniCSx families (all of them by default)."""
        from .templates import TemplateGenerator

        return TemplateGenerator(
            seed=seed, families=families, python=self.python, timeout=self.solution_timeout
        )
