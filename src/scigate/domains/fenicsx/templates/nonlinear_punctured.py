"""Family (b): nonlinear Poisson -div((1 + c u^2) grad u) = f on a punctured unit square.

The hole is an axis-aligned rectangle of whole mesh cells, removed with
``dolfinx.mesh.create_submesh``; Dirichlet data on the outer boundary; Neumann, Robin or
Dirichlet data on the hole; Newton (SNES) solve; one of five quantities of interest.
"""

from __future__ import annotations

import random
from typing import Any

from ._expr import to_code, to_tex

NAME = "nonlinear_punctured"
TEMPLATE = "nonlinear_punctured.py.j2"
MISTAKES = {
    "linear_kappa": "nonlinearity dropped: solved with kappa = 1",
    "kappa_u_linear": "kappa = 1 + c*u instead of 1 + c*u^2",
    "hole_as_outer_dirichlet": "outer Dirichlet data imposed on every boundary facet, hole included",
    "hole_bc_missing": "hole boundary condition omitted (natural zero-flux condition)",
    "hole_term_sign": "hole boundary data entered with the wrong sign",
    "hole_not_removed": "hole cells not removed (problem solved on the full square)",
    "wrong_diagonal": "mesh built with the other diagonal direction",
    "p2_for_p1": "degree-2 Lagrange space instead of degree 1",
    "low_quadrature": "quadrature degree 1 instead of the prescribed degree",
    "flux_normal_sign": "flux computed with the normal pointing out of the hole (sign flipped)",
}
QOIS = ("int_u", "int_u2", "hole_flux", "max_nodal", "energy")
HOLES = [
    [0.4, 0.6, 0.4, 0.6],
    [0.3, 0.6, 0.4, 0.7],
    [0.3, 0.7, 0.3, 0.5],
    [0.5, 0.7, 0.2, 0.6],
    [0.2, 0.5, 0.5, 0.8],
]


def _c(rng: random.Random, lo: float, hi: float, digits: int = 3) -> float:
    value = round(rng.uniform(lo, hi), digits)
    return value if value != 0 else round(hi, digits)


def _signed(rng: random.Random, lo: float, hi: float) -> float:
    return _c(rng, lo, hi) * rng.choice((-1, 1))


def draw_params(rng: random.Random) -> dict[str, Any]:
    """Random parameters; the data are moderate so that Newton converges from zero."""
    hole_bc = rng.choice(("neumann", "robin", "dirichlet"))
    qois = [q for q in QOIS if q != "hole_flux" or hole_bc != "neumann"]
    # Fixed term structures: numbers enter the forms as fem.Constant, so FFCx compiles
    # each form once per structure and reuses it for every draw.
    forcing = [
        ["p", _c(rng, 1.0, 6.0), 0, 0],
        ["sxsy", _signed(rng, 0.5, 3.0), rng.choice((1, 2)), rng.choice((1, 2))],
        ["p", _signed(rng, 0.5, 3.0), 1, 1],
    ]
    g_d = [["p", _signed(rng, 0.02, 0.3), 0, 0]]
    g_d += [["p", _signed(rng, 0.05, 0.4), i, j] for i, j in [(1, 0), (0, 1), (1, 1)]]
    h = [["p", _signed(rng, 0.1, 1.0), 0, 0]]
    h += [["p", _signed(rng, 0.1, 0.8), i, j] for i, j in [(1, 0), (0, 1)]]
    return {
        "n": rng.choice((10, 20)),
        "diagonal": rng.choice(("right", "left")),
        "hole": rng.choice(HOLES),
        "c": _c(rng, 0.5, 3.0, 2),
        "f": forcing,
        "gD": g_d,
        "hole_bc": hole_bc,
        "h": h,
        "beta": _c(rng, 0.5, 4.0, 2),
        "u_hole": _signed(rng, 0.1, 0.6),
        "qoi": rng.choice(qois),
        "qdeg": rng.choice((4, 5, 6)),
        "decimals": 6,
    }


def applicable(params: dict[str, Any]) -> list[str]:
    """Mistake kinds that change the computation for these parameters."""
    kinds = list(MISTAKES)
    if params["hole_bc"] == "dirichlet":
        kinds.remove("hole_term_sign")
    if params["qoi"] != "hole_flux":
        kinds.remove("flux_normal_sign")
    else:
        kinds.remove("hole_not_removed")
    return kinds


def context(params: dict[str, Any], mistakes: frozenset[str]) -> dict[str, Any]:
    """Jinja context of the solution script, with the given mistakes applied."""
    p, m = params, mistakes
    c = f"C({float(p['c'])!r})"
    if "linear_kappa" in m:
        kappa = "1.0"
    elif "kappa_u_linear" in m:
        kappa = f"1 + {c} * u"
    else:
        kappa = f"1 + {c} * u**2"
    remove_hole = "hole_not_removed" not in m
    hole_term = p["hole_bc"] if p["hole_bc"] in ("neumann", "robin") else None
    if "hole_bc_missing" in m or "hole_as_outer_dirichlet" in m or not remove_hole:
        hole_term = None
    hx0, hx1, hy0, hy1 = (repr(float(v)) for v in p["hole"])
    return {
        "n": p["n"],
        "diagonal": {"right": "left", "left": "right"}[p["diagonal"]]
        if "wrong_diagonal" in m
        else p["diagonal"],
        "remove_hole": remove_hole,
        "hx0": hx0,
        "hx1": hx1,
        "hy0": hy0,
        "hy1": hy1,
        "all_boundary_dirichlet": "hole_as_outer_dirichlet" in m,
        "degree": 2 if "p2_for_p1" in m else 1,
        "qdeg": 1 if "low_quadrature" in m else p["qdeg"],
        "kappa": kappa,
        "c": c,
        "f_code": to_code(p["f"], "x", "y", "ufl", const="C"),
        "gD_code": to_code(p["gD"], "x", "y", "ufl", const="C"),
        "hole_dirichlet": p["hole_bc"] == "dirichlet"
        and remove_hole
        and "hole_bc_missing" not in m
        and "hole_as_outer_dirichlet" not in m,
        "u_hole": repr(float(p["u_hole"])),
        "hole_term": hole_term,
        "hole_sign": "-" if "hole_term_sign" in m else "",
        "h_code": to_code(p["h"], "x", "y", "ufl", const="C"),
        "beta": f"C({float(p['beta'])!r})",
        "qoi": p["qoi"],
        "normal_sign": "-" if "flux_normal_sign" in m else "",
        "decimals": p["decimals"],
    }


def _qoi_text(p: dict[str, Any]) -> str:
    c = p["c"]
    return {
        "int_u": "$Q = \\int_{\\Omega_h} u_h\\,dx$",
        "int_u2": "$Q = \\int_{\\Omega_h} u_h^2\\,dx$",
        "hole_flux": (
            f"the flux through the hole boundary $Q = \\int_{{\\Gamma_H}} (1 + {c}u_h^2)"
            "\\nabla u_h\\cdot n\\,ds$, with $n$ the unit normal pointing out of $\\Omega_h$ "
            "(into the hole)"
        ),
        "max_nodal": "$Q$ = the largest nodal value (degree of freedom) of $u_h$",
        "energy": f"$Q = \\int_{{\\Omega_h}} (1 + {c}u_h^2)|\\nabla u_h|^2\\,dx$",
    }[p["qoi"]]


def question(params: dict[str, Any]) -> str:
    """Public question text (fully specified; no options)."""
    p = params
    hx0, hx1, hy0, hy1 = p["hole"]
    hole_text = {
        "neumann": (
            f"on $\\Gamma_H$ impose the Neumann condition $(1 + {p['c']}u^2)\\nabla u\\cdot n = h$ "
            "with $n$ the unit normal pointing out of $\\Omega_h$ (into the hole), i.e. add "
            f"$\\int_{{\\Gamma_H}} h v\\,ds$ to the right-hand side, where $h = {to_tex(p['h'], 'x', 'y')}$"
        ),
        "robin": (
            f"on $\\Gamma_H$ impose the Robin condition $(1 + {p['c']}u^2)\\nabla u\\cdot n + "
            f"{p['beta']}u = r$ with $n$ the unit normal pointing out of $\\Omega_h$ (into the "
            f"hole), i.e. add $\\int_{{\\Gamma_H}} ({p['beta']}u - r)v\\,ds$ to the residual, where "
            f"$r = {to_tex(p['h'], 'x', 'y')}$"
        ),
        "dirichlet": f"on $\\Gamma_H$ impose the Dirichlet condition $u = {p['u_hole']}$",
    }[p["hole_bc"]]
    return (
        f"In DOLFINx, create a ${p['n']}\\times{p['n']}$ triangular unit-square mesh with "
        f"{p['diagonal']} diagonals (`create_unit_square(comm, {p['n']}, {p['n']}, "
        f"CellType.triangle, diagonal=DiagonalType.{p['diagonal']})`). Remove the hole "
        f"$H = ({hx0}, {hx1})\\times({hy0}, {hy1})$ by keeping only the cells whose midpoints "
        "lie outside $H$ (`dolfinx.mesh.create_submesh` on those cells); call the result "
        "$\\Omega_h$, its outer boundary (the sides of the unit square) $\\Gamma_O$ and the "
        "boundary of the hole $\\Gamma_H$.\n\n"
        "In the continuous degree-one Lagrange space on $\\Omega_h$, solve the nonlinear problem "
        f"$-\\nabla\\cdot((1 + {p['c']}u^2)\\nabla u) = f$ with\n\n"
        f"$$f = {to_tex(p['f'], 'x', 'y')},$$\n\n"
        f"the Dirichlet condition $u = g_D$ on $\\Gamma_O$ with $g_D = {to_tex(p['gD'], 'x', 'y')}$ "
        "(interpolated into the same space), and "
        f"{hole_text}. Use Newton's method (PETSc SNES `newtonls`, no line search, zero initial "
        "guess, direct LU solves, converged to absolute and relative residual tolerance "
        f"$10^{{-12}}$) and quadrature degree {p['qdeg']} for all volume and boundary forms.\n\n"
        f"Report {_qoi_text(p)}, rounded to exactly {p['decimals']} decimal places."
    )
