"""Nonlinear Poisson problem -div((1 + c u^2) grad u) = f on a punctured unit square (Newton)."""

import dolfinx_solver  # noqa: F401  (must be imported before dolfinx)
import numpy as np
import ufl
from dolfinx import default_scalar_type, fem, mesh
from dolfinx.fem.petsc import NonlinearProblem
from mpi4py import MPI

square = mesh.create_unit_square(
    MPI.COMM_WORLD, 20, 20, mesh.CellType.triangle, diagonal=mesh.DiagonalType.right
)
tdim = square.topology.dim
fdim = tdim - 1
# Keep the cells whose midpoints lie outside the open hole.
cells = np.arange(square.topology.index_map(tdim).size_local, dtype=np.int32)
mid = mesh.compute_midpoints(square, tdim, cells)
inside = (mid[:, 0] > 0.3) & (mid[:, 0] < 0.7) & (mid[:, 1] > 0.3) & (mid[:, 1] < 0.5)
msh = mesh.create_submesh(square, tdim, cells[~inside])[0]
msh.topology.create_connectivity(fdim, tdim)


def C(value):
    """A named constant: compiled forms then depend on the formulas, not on the numbers."""
    return fem.Constant(msh, default_scalar_type(value))


outer = mesh.locate_entities_boundary(
    msh,
    fdim,
    lambda x: (
        np.isclose(x[0], 0.0)
        | np.isclose(x[0], 1.0)
        | np.isclose(x[1], 0.0)
        | np.isclose(x[1], 1.0)
    ),
)
eps = 1e-10
hole = mesh.locate_entities_boundary(
    msh,
    fdim,
    lambda x: (x[0] > 0.3 - eps) & (x[0] < 0.7 + eps) & (x[1] > 0.3 - eps) & (x[1] < 0.5 + eps),
)
hole_tags = mesh.meshtags(msh, fdim, np.sort(hole), np.ones(len(hole), dtype=np.int32))

V = fem.functionspace(msh, ("Lagrange", 1))
x, y = ufl.SpatialCoordinate(msh)
md = {"quadrature_degree": 4}
dx = ufl.Measure("dx", domain=msh, metadata=md)
ds = ufl.Measure("ds", domain=msh, subdomain_data=hole_tags, metadata=md)

u = fem.Function(V)
v = ufl.TestFunction(V)
kappa = 1 + C(0.8) * u**2
f = (C(12.0)) + (C(-4.0) * x**2) + (C(3.0) * y)
g_D = fem.Function(V)
g_D.interpolate(
    fem.Expression((C(0.1)) + (C(-0.2) * x) + (C(0.3) * x * y), V.element.interpolation_points)
)
bcs = [fem.dirichletbc(g_D, fem.locate_dofs_topological(V, fdim, outer))]
bcs.append(fem.dirichletbc(np.float64(0.2), fem.locate_dofs_topological(V, fdim, hole), V))

F = kappa * ufl.inner(ufl.grad(u), ufl.grad(v)) * dx - f * v * dx

problem = NonlinearProblem(
    F,
    u,
    bcs=bcs,
    petsc_options_prefix="nonlinear_punctured_",
    petsc_options={
        "snes_type": "newtonls",
        "snes_linesearch_type": "none",
        "snes_rtol": 1e-12,
        "snes_atol": 1e-12,
        "snes_max_it": 50,
        "ksp_type": "preonly",
        "pc_type": "lu",
    },
)
problem.solve()
reason = problem.solver.getConvergedReason()
if reason <= 0:
    raise RuntimeError(f"Newton did not converge (reason {reason})")

result = msh.comm.allreduce(float(u.x.array.max()), op=MPI.MAX)
print(f"{result:.6f}")
