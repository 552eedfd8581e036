"""Family (a): P1 Poisson problem on a deformed unit-square mesh (like item 0023).

Original boundaries are marked before the coordinates move; coefficients are functions
of the moved coordinates; the quantity of interest is a weighted quadratic functional.
"""

from __future__ import annotations

import random
from typing import Any

from ._expr import bound, to_code, to_tex

NAME = "deformed_poisson"
TEMPLATE = "deformed_poisson.py.j2"
MISTAKES = {
    "coeffs_original": "coefficients a, f, g, u_D and the functional evaluated in the original (unmoved) coordinates",
    "dirichlet_data_original": "Dirichlet data u_D interpolated before the mesh was moved",
    "wrong_diagonal": "mesh built with the other diagonal direction",
    "p2_for_p1": "degree-2 Lagrange space instead of degree 1",
    "neumann_sign": "Neumann term added with the wrong sign",
    "missing_neumann": "Neumann boundary term omitted",
    "swapped_nx_ny": "mesh divisions passed in the wrong order (ny x nx)",
    "low_quadrature": "quadrature degree 1 instead of the prescribed degree",
}

SIDES = {
    "left": ("np.isclose(x[0], 0.0)", "left boundary $x=0$"),
    "right": ("np.isclose(x[0], 1.0)", "right boundary $x=1$"),
    "bottom": ("np.isclose(x[1], 0.0)", "bottom boundary $y=0$"),
    "top": ("np.isclose(x[1], 1.0)", "top boundary $y=1$"),
}
SIDE_PAIRS = [
    ("left", "top"),
    ("left", "bottom"),
    ("right", "top"),
    ("left", "right"),
    ("bottom", "top"),
]


def _c(rng: random.Random, lo: float, hi: float, digits: int = 3) -> float:
    value = round(rng.uniform(lo, hi), digits)
    return value if value != 0 else round(hi, digits)


def _signed(rng: random.Random, lo: float, hi: float, digits: int = 3) -> float:
    return _c(rng, lo, hi, digits) * rng.choice((-1, 1))


def _poly(rng: random.Random, monos: list[tuple[int, int]], lo: float, hi: float) -> list:
    return [["p", _signed(rng, lo, hi), i, j] for i, j in monos]


def _positive(rng: random.Random, monos: list[tuple[int, int]], lo: float, hi: float) -> list:
    terms = _poly(rng, monos, lo, hi)
    base = round(1.3 * bound(terms) + rng.uniform(0.2, 0.6), 2)
    return [["p", base, 0, 0], *terms]


def draw_params(rng: random.Random) -> dict[str, Any]:
    """Random, well-posed parameters (valid deformation, positive diffusion)."""
    nx, ny = rng.randint(8, 18), rng.randint(8, 18)
    dirichlet = list(rng.choice(SIDE_PAIRS))
    neumann = [s for s in SIDES if s not in dirichlet]
    quad = [(1, 1), (0, 2), (2, 0), (2, 1), (1, 2)]
    map_x = [["sy", _signed(rng, 0.015, 0.045), rng.choice((1, 2))]]
    map_x += _poly(rng, rng.sample(quad, 3), 0.004, 0.02)
    map_y = [["sxsy", _signed(rng, 0.01, 0.03), 1, rng.choice((1, 2))]]
    map_y += _poly(rng, rng.sample(quad, 3), 0.004, 0.02)
    # Fixed monomial sets: the compiled forms depend on the structure only (values are
    # fem.Constant), so FFCx compiles each form once and reuses it for every draw.
    lin = [(1, 0), (0, 1), (1, 1), (2, 0), (0, 2)]
    return {
        "nx": nx,
        "ny": ny,
        "diagonal": rng.choice(("right", "left")),
        "dirichlet": dirichlet,
        "neumann": neumann,
        "map_x": map_x,
        "map_y": map_y,
        "a": _positive(rng, lin, 0.02, 0.2),
        "f": [["p", _signed(rng, 0.5, 1.2), 0, 0], *_poly(rng, [*lin, (2, 1)], 0.03, 0.4)],
        "g": [["p", _signed(rng, 0.02, 0.2), 0, 0], *_poly(rng, lin[:3] + lin[4:], 0.02, 0.15)],
        "uD": [["p", _signed(rng, 0.05, 0.3), 0, 0], *_poly(rng, lin, 0.02, 0.35)],
        "w": _positive(rng, lin, 0.01, 0.15),
        "beta": _c(rng, 0.01, 0.08),
        "gamma": _signed(rng, 0.005, 0.03),
        "q": [["p", 1.0, 1, 0], *_poly(rng, [(0, 1), (1, 1)], 0.1, 0.6)],
        "qdeg": rng.choice((4, 5, 6)),
        "decimals": 6,
    }


def applicable(params: dict[str, Any]) -> list[str]:
    """Mistake kinds that change the computation for these parameters."""
    kinds = list(MISTAKES)
    if params["nx"] == params["ny"]:
        kinds.remove("swapped_nx_ny")
    if params["qdeg"] <= 1:
        kinds.remove("low_quadrature")
    return kinds


def context(params: dict[str, Any], mistakes: frozenset[str]) -> dict[str, Any]:
    """Jinja context of the solution script, with the given mistakes applied."""
    nx, ny = params["nx"], params["ny"]
    if "swapped_nx_ny" in mistakes:
        nx, ny = ny, nx
    diagonal = params["diagonal"]
    if "wrong_diagonal" in mistakes:
        diagonal = {"right": "left", "left": "right"}[diagonal]
    coef = lambda key: to_code(params[key], "Xc", "Yc", "ufl", const="C")  # noqa: E731
    return {
        "nx": nx,
        "ny": ny,
        "diagonal": diagonal,
        "dir_pred": " | ".join(SIDES[s][0] for s in params["dirichlet"]),
        "neu_pred": " | ".join(SIDES[s][0] for s in params["neumann"]),
        "orig_coords": "coeffs_original" in mistakes,
        "orig_dirichlet": "dirichlet_data_original" in mistakes,
        "degree": 2 if "p2_for_p1" in mistakes else 1,
        "mapX": "x + " + to_code(params["map_x"], "x", "y", "np"),
        "mapY": "y + " + to_code(params["map_y"], "x", "y", "np"),
        "a_code": coef("a"),
        "f_code": coef("f"),
        "g_code": coef("g"),
        "uD_code": coef("uD"),
        "uD_np": to_code(params["uD"], "x[0]", "x[1]", "np"),
        "w_code": coef("w"),
        "q_code": coef("q"),
        "beta": f"C({float(params['beta'])!r})",
        "gamma": f"C({float(params['gamma'])!r})",
        "qdeg": 1 if "low_quadrature" in mistakes else params["qdeg"],
        "neumann_term": "missing_neumann" not in mistakes,
        "neumann_sign": "-" if "neumann_sign" in mistakes else "+",
        "decimals": params["decimals"],
    }


def question(params: dict[str, Any]) -> str:
    """Public question text (fully specified; no options)."""
    p = params
    dname = " and ".join(SIDES[s][1] for s in p["dirichlet"])
    nname = " and ".join(SIDES[s][1] for s in p["neumann"])
    tex = lambda key: to_tex(p[key], "X", "Y")  # noqa: E731
    return (
        f"In DOLFINx, create a ${p['nx']}\\times{p['ny']}$ triangular unit-square mesh with "
        f"{p['diagonal']} diagonals (`create_unit_square(comm, {p['nx']}, {p['ny']}, "
        f"CellType.triangle, diagonal=DiagonalType.{p['diagonal']})`). Before moving any "
        f"coordinates, mark the original {dname} as Dirichlet facets, and the original {nname} "
        "as Neumann facets. Move each original mesh coordinate $(x,y)$ to $(X,Y)$ using\n\n"
        f"$$X = {to_tex(p['map_x'], 'x', 'y', lead='x')},$$\n\n"
        f"$$Y = {to_tex(p['map_y'], 'x', 'y', lead='y')}.$$\n\n"
        "On the moved mesh, solve in the continuous degree-one Lagrange space for $u_h$ "
        "satisfying $\\int a\\nabla u_h\\cdot\\nabla v\\,dx = \\int f v\\,dx + \\int g v\\,ds$ "
        "(the boundary integral over the marked Neumann facets only), with $u_h = u_D$ on the "
        "marked Dirichlet facets ($u_D$ interpolated into the same space). Use the moved "
        "coordinates in all coefficient functions:\n\n"
        f"$$a = {tex('a')},$$\n\n$$f = {tex('f')},$$\n\n$$g = {tex('g')},$$\n\n"
        f"$$u_D = {tex('uD')}.$$\n\n"
        "After solving, compute\n\n"
        f"$$J = \\int_{{\\Omega_h}} \\Big[({tex('w')})\\,u_h^2 + {p['beta']}\\,|\\nabla u_h|^2 "
        f"{'+' if p['gamma'] >= 0 else '-'} {abs(p['gamma'])}\\,u_h\\,({tex('q')})\\Big]\\,dx.$$\n\n"
        f"Use quadrature degree {p['qdeg']} for the volume and boundary forms, and a direct LU "
        f"solve. Report $J$ rounded to exactly {p['decimals']} decimal places."
    )
