"""Finite-element tools on Basix and DOLFINx (FEniCSx).

Basix and DOLFINx are imported inside the tool bodies; DOLFINx always after
`import dolfinx_solver`, which prepares its environment.
"""

from __future__ import annotations

from typing import Any

from scigate.tools._tool import ToolInputError, tool

_BASIX = ["basix"]
_DOLFINX = ["dolfinx_solver", "dolfinx", "mpi4py"]

_FAMILY_ALIASES = {
    "lagrange": "P",
    "cg": "P",
    "p": "P",
    "dg": "P",
    "nedelec": "N1E",
    "n1curl": "N1E",
    "nedelec 1st kind h(curl)": "N1E",
    "n2curl": "N2E",
    "raviart-thomas": "RT",
    "rt": "RT",
    "n1div": "RT",
    "bdm": "BDM",
    "n2div": "BDM",
    "crouzeix-raviart": "CR",
    "cr": "CR",
    "bubble": "bubble",
    "serendipity": "serendipity",
    "regge": "Regge",
    "hhj": "HHJ",
    "hermite": "Hermite",
    "dpc": "DPC",
}


def _cell(basix: Any, cell: str) -> Any:
    name = (cell or "").strip().lower()
    try:
        cell_type = basix.CellType[name]
    except KeyError:
        valid = ", ".join(c.name for c in basix.CellType if c.name != "point")
        raise ToolInputError(f"unknown cell type {cell!r}; expected one of {valid}") from None
    if cell_type == basix.CellType.point:
        raise ToolInputError("the point cell has no elements")
    return cell_type


def _element(family: str, cell: str, degree: int, discontinuous: bool = False) -> Any:
    import basix

    key = (family or "").strip()
    name = _FAMILY_ALIASES.get(key.lower(), key)
    try:
        fam = basix.ElementFamily[name]
    except KeyError:
        valid = ", ".join(f.name for f in basix.ElementFamily if f.name != "custom")
        raise ToolInputError(
            f"unknown element family {family!r}; expected one of {valid}"
        ) from None
    cell_type = _cell(basix, cell)
    if not 0 <= degree <= 20:
        raise ToolInputError("degree must be between 0 and 20")
    kwargs: dict[str, Any] = {"discontinuous": discontinuous}
    if fam == basix.ElementFamily.P:
        kwargs["lagrange_variant"] = basix.LagrangeVariant.gll_warped
    try:
        return basix.create_element(fam, cell_type, degree, **kwargs)
    except RuntimeError as exc:
        raise ToolInputError(
            f"Basix cannot create {family} on {cell} of degree {degree}: {exc}"
        ) from None


@tool(
    name="BasixElementDimension",
    functionality=(
        "Number of degrees of freedom (dimension) of a finite element from Basix, given the "
        "family (P/Lagrange, N1curl, RT, BDM, CR...), the reference cell and the degree."
    ),
    inputs=["element family", "cell type", "polynomial degree"],
    outputs=["element dimension"],
    category="fem",
    source="Python Package(basix)",
    objects=["finite element"],
    scenarios=["finite element method", "discretisation design"],
    requires=_BASIX,
    examples=[
        ({"family": "P", "cell": "triangle", "degree": 2}, 6),
        ({"family": "N1curl", "cell": "tetrahedron", "degree": 1}, 6),
        ({"family": "RT", "cell": "triangle", "degree": 1}, 3),
    ],
)
def element_dimension(family: str, cell: str, degree: int) -> int:
    """The element's number of degrees of freedom."""
    return int(_element(family, cell, degree).dim)


@tool(
    name="BasixQuadrature",
    functionality=(
        "Quadrature points and weights on a reference cell from Basix that integrate "
        "polynomials of the given degree exactly."
    ),
    inputs=["cell type", "quadrature degree"],
    outputs=["quadrature rule"],
    category="fem",
    source="Python Package(basix)",
    objects=["quadrature rule", "reference cell"],
    scenarios=["finite element method", "numerical integration"],
    requires=_BASIX,
    examples=[
        ({"cell": "interval", "degree": 1}, {"points": [[0.5]], "weights": [1.0], "count": 1}),
        (
            {"cell": "triangle", "degree": 2},
            {
                "points": [[1 / 6, 1 / 6], [1 / 6, 2 / 3], [2 / 3, 1 / 6]],
                "weights": [1 / 6, 1 / 6, 1 / 6],
                "count": 3,
            },
        ),
    ],
)
def quadrature(cell: str, degree: int) -> dict[str, Any]:
    """Basix's default quadrature rule of `degree` on `cell`."""
    import basix

    cell_type = _cell(basix, cell)
    if not 0 <= degree <= 30:
        raise ToolInputError("degree must be between 0 and 30")
    points, weights = basix.make_quadrature(cell_type, degree)
    return {"points": points.tolist(), "weights": weights.tolist(), "count": len(weights)}


@tool(
    name="BasixTabulate",
    functionality=(
        "Values of the basis functions of a Basix finite element at given points of the "
        "reference cell (one row per point, one column per basis function and component)."
    ),
    inputs=["element family", "cell type", "polynomial degree", "points"],
    outputs=["basis values"],
    category="fem",
    source="Python Package(basix)",
    objects=["finite element", "basis function"],
    scenarios=["finite element method", "interpolation"],
    requires=_BASIX,
    examples=[
        (
            {"family": "P", "cell": "triangle", "degree": 1, "points": [[0.25, 0.25]]},
            {"values": [[0.5, 0.25, 0.25]], "value_shape": [], "dim": 3},
        )
    ],
)
def tabulate(family: str, cell: str, degree: int, points: list[list[float]]) -> dict[str, Any]:
    """Tabulate basis values (no derivatives) at `points`."""
    import basix
    import numpy as np

    element = _element(family, cell, degree)
    pts = np.asarray(points, dtype=float)
    tdim = len(basix.topology(element.cell_type)) - 1
    if pts.ndim != 2 or pts.shape[1] != tdim or len(pts) == 0:
        raise ToolInputError(f"points must be a non-empty list of {tdim}-coordinate points")
    table = element.tabulate(0, pts)[0]  # (points, dofs, value size)
    values = table.reshape(len(pts), -1)
    return {
        "values": values.tolist(),
        "value_shape": list(element.value_shape),
        "dim": int(element.dim),
    }


@tool(
    name="ReferenceCellGeometry",
    functionality="Vertex coordinates, topological dimension and volume of a Basix reference cell.",
    inputs=["cell type"],
    outputs=["points"],
    category="fem",
    source="Python Package(basix)",
    objects=["reference cell"],
    scenarios=["finite element method"],
    requires=_BASIX,
    examples=[
        (
            {"cell": "triangle"},
            {"vertices": [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], "dimension": 2, "volume": 0.5},
        )
    ],
)
def reference_cell(cell: str) -> dict[str, Any]:
    """The reference cell's vertices and volume."""
    import basix

    cell_type = _cell(basix, cell)
    return {
        "vertices": basix.geometry(cell_type).tolist(),
        "dimension": len(basix.topology(cell_type)) - 1,
        "volume": float(basix.cell.volume(cell_type)),
    }


_MESH_CELLS = {"triangle": 2, "quadrilateral": 2, "tetrahedron": 3, "hexahedron": 3}


@tool(
    name="DolfinxUnitMeshStatistics",
    functionality=(
        "Build a DOLFINx unit-square (triangle/quadrilateral) or unit-cube "
        "(tetrahedron/hexahedron) mesh with n cells per side and report the numbers of "
        "cells, vertices, facets and Lagrange degrees of freedom."
    ),
    inputs=["mesh resolution", "cell type", "polynomial degree"],
    outputs=["mesh statistics"],
    category="fem",
    source="Python Package(dolfinx)",
    objects=["mesh", "function space"],
    scenarios=["finite element method", "problem sizing"],
    requires=_DOLFINX,
    examples=[
        (
            {"n": 4, "cell": "triangle", "degree": 2},
            {"cells": 32, "vertices": 25, "facets": 56, "dofs": 81, "dimension": 2},
        ),
        (
            {"n": 2, "cell": "hexahedron", "degree": 1},
            {"cells": 8, "vertices": 27, "facets": 36, "dofs": 27, "dimension": 3},
        ),
    ],
)
def unit_mesh_statistics(n: int, cell: str = "triangle", degree: int = 1) -> dict[str, int]:
    """Mesh and P`degree` space sizes of a DOLFINx unit mesh."""
    key = (cell or "").strip().lower()
    if key not in _MESH_CELLS:
        raise ToolInputError(f"cell must be one of {', '.join(_MESH_CELLS)}, got {cell!r}")
    if not 1 <= n <= 64:
        raise ToolInputError("n must be between 1 and 64")
    if not 1 <= degree <= 4:
        raise ToolInputError("degree must be between 1 and 4")
    import dolfinx_solver  # noqa: F401  (orders MPI ahead of the DOLFINx bindings)

    # isort: split
    import dolfinx
    from mpi4py import MPI

    dim = _MESH_CELLS[key]
    cell_type = dolfinx.mesh.CellType[key]
    if dim == 2:
        mesh = dolfinx.mesh.create_unit_square(MPI.COMM_SELF, n, n, cell_type=cell_type)
    else:
        mesh = dolfinx.mesh.create_unit_cube(MPI.COMM_SELF, n, n, n, cell_type=cell_type)
    mesh.topology.create_entities(dim - 1)
    space = dolfinx.fem.functionspace(mesh, ("Lagrange", degree))
    return {
        "cells": mesh.topology.index_map(dim).size_global,
        "vertices": mesh.topology.index_map(0).size_global,
        "facets": mesh.topology.index_map(dim - 1).size_global,
        "dofs": space.dofmap.index_map.size_global * space.dofmap.index_map_bs,
        "dimension": dim,
    }
