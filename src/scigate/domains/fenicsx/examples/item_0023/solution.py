"""Item 0023 of the ToolGate paper, written from the public question text.

17x14 right-diagonal triangular unit-square mesh; Dirichlet (x=0, y=1) and Neumann
(x=1, y=0) facets marked on the original mesh; coordinates moved; P1 solve with all
coefficients as UFL expressions of the moved SpatialCoordinate; quadrature degree 5.
"""

import dolfinx_solver  # noqa: F401  (must be imported before dolfinx)
import numpy as np
import ufl
from dolfinx import fem, mesh
from dolfinx.fem.petsc import LinearProblem
from mpi4py import MPI

msh = mesh.create_unit_square(
    MPI.COMM_WORLD, 17, 14, mesh.CellType.triangle, diagonal=mesh.DiagonalType.right
)
fdim = msh.topology.dim - 1

# Mark the original boundaries before moving any coordinate.
dirichlet_facets = mesh.locate_entities_boundary(
    msh, fdim, lambda x: np.isclose(x[0], 0.0) | np.isclose(x[1], 1.0)
)
neumann_facets = mesh.locate_entities_boundary(
    msh, fdim, lambda x: np.isclose(x[0], 1.0) | np.isclose(x[1], 0.0)
)
neumann_facets = np.setdiff1d(neumann_facets, dirichlet_facets)

# Move each original coordinate (x, y) to (X, Y).
coords = msh.geometry.x
x, y = coords[:, 0].copy(), coords[:, 1].copy()
coords[:, 0] = x + 0.041 * np.sin(2 * np.pi * y) + 0.017 * x * y - 0.009 * y**2 + 0.004 * x**2 * y
coords[:, 1] = (
    y
    + 0.027 * np.sin(np.pi * x) * np.sin(2 * np.pi * y)
    + 0.019 * x**2
    - 0.014 * x * y
    + 0.006 * y**2
)

V = fem.functionspace(msh, ("Lagrange", 1))
X, Y = ufl.SpatialCoordinate(msh)  # moved coordinates
a_coef = 0.88 + 0.24 * X - 0.13 * Y + 0.05 * X * Y + 0.031 * X**2 + 0.017 * Y**2
f = 1.07 - 0.36 * X + 0.29 * Y + 0.18 * X * Y - 0.11 * X**2 + 0.07 * Y**2 + 0.05 * X**2 * Y
g = -0.09 + 0.14 * X + 0.06 * Y - 0.035 * X * Y + 0.022 * Y**2
u_D_expr = 0.16 + 0.31 * X - 0.27 * Y + 0.05 * X * Y + 0.028 * X**2 - 0.034 * Y**2

order = np.argsort(neumann_facets)
facet_tags = mesh.meshtags(
    msh, fdim, neumann_facets[order], np.ones(len(neumann_facets), dtype=np.int32)
)
metadata = {"quadrature_degree": 5}
dx = ufl.Measure("dx", domain=msh, metadata=metadata)
ds = ufl.Measure("ds", domain=msh, subdomain_data=facet_tags, metadata=metadata)

u_D = fem.Function(V)
u_D.interpolate(fem.Expression(u_D_expr, V.element.interpolation_points))
bc = fem.dirichletbc(u_D, fem.locate_dofs_topological(V, fdim, dirichlet_facets))

u, v = ufl.TrialFunction(V), ufl.TestFunction(V)
problem = LinearProblem(
    a_coef * ufl.inner(ufl.grad(u), ufl.grad(v)) * dx,
    f * v * dx + g * v * ds(1),
    bcs=[bc],
    petsc_options_prefix="item0023_",
    petsc_options={"ksp_type": "preonly", "pc_type": "lu"},
)
u_h = problem.solve()

J = (
    (0.71 - 0.12 * X + 0.18 * Y + 0.064 * X * Y + 0.027 * X**2 - 0.021 * Y**2) * u_h**2
    + 0.042 * ufl.inner(ufl.grad(u_h), ufl.grad(u_h))
    + 0.018 * u_h * (X - 0.52 * Y + 0.13 * X * Y)
) * dx
value = msh.comm.allreduce(fem.assemble_scalar(fem.form(J)), op=MPI.SUM)
print(f"{value:.6f}")
