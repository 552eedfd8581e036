"""Family (d): a Basix quadrature rule applied to a functional on a mapped (curved) domain.

Q = sum_q w_q F(Phi(p_q)) |det DPhi(p_q)| with the Basix default rule of a given degree
on the reference triangle or quadrilateral; F is not polynomial, so the value depends
on the exact rule.
"""

from __future__ import annotations

import random
from typing import Any

from ._expr import diff, to_code, to_tex

NAME = "mapped_quadrature"
TEMPLATE = "mapped_quadrature.py.j2"
MISTAKES = {
    "no_jacobian": "Jacobian determinant of the map omitted",
    "jacobian_at_centroid": "Jacobian determinant evaluated once at the reference centroid (affine approximation)",
    "degree_minus_one": "quadrature rule of one degree lower",
    "other_rule": "Gauss-Jacobi rule on the triangle / GLL rule on the quadrilateral instead of the default",
    "swapped_integrand": "integrand evaluated as F(Y, X)",
    "unmapped_points": "integrand evaluated at the reference points instead of the mapped points",
}
CENTROID = {"triangle": (1 / 3, 1 / 3), "quadrilateral": (0.5, 0.5)}


def _signed(rng: random.Random, lo: float, hi: float) -> float:
    return round(rng.uniform(lo, hi), 3) * rng.choice((-1, 1))


def _min_det(map_x: list, map_y: list) -> float:
    """Smallest Jacobian determinant of the map on a grid of the unit square."""
    import numpy as np

    xi, eta = np.meshgrid(np.linspace(0, 1, 21), np.linspace(0, 1, 21))
    namespace = {"np": np, "xi": xi, "eta": eta}
    d = {
        (c, v): eval(to_code(diff(terms, v), "xi", "eta", "np"), namespace)
        for c, terms in (("X", map_x), ("Y", map_y))
        for v in ("x", "y")
    }
    det = d["X", "x"] * d["Y", "y"] - d["X", "y"] * d["Y", "x"]
    return float(np.min(det))


def draw_params(rng: random.Random) -> dict[str, Any]:
    """Random cell, rule degree, smooth near-identity map and non-polynomial integrand."""
    while True:
        params = _draw(rng)
        if _min_det(params["map_x"], params["map_y"]) > 0.3:
            return params


def _draw(rng: random.Random) -> dict[str, Any]:
    quad = [(1, 1), (2, 0), (0, 2)]
    map_x = [["p", round(rng.uniform(0.8, 1.6), 2), 1, 0]]
    map_x += [["p", _signed(rng, 0.05, 0.2), i, j] for i, j in rng.sample(quad, 2)]
    map_x += [["sy", _signed(rng, 0.03, 0.1), 1]]
    map_y = [["p", round(rng.uniform(0.8, 1.6), 2), 0, 1]]
    map_y += [["p", _signed(rng, 0.05, 0.2), i, j] for i, j in rng.sample(quad, 2)]
    map_y += [["sx", _signed(rng, 0.03, 0.1), 1]]
    integrand = [
        ["e", round(rng.uniform(0.5, 2.0), 2), _signed(rng, 0.5, 2.0), _signed(rng, 0.5, 2.0)],
        ["sxsy", _signed(rng, 0.3, 1.5), rng.choice((1, 2)), rng.choice((1, 2, 3))],
        ["p", _signed(rng, 0.1, 1.0), *rng.choice([(1, 1), (2, 0), (0, 2), (2, 1)])],
    ]
    return {
        "cell": rng.choice(("triangle", "quadrilateral")),
        "qdeg": rng.choice((2, 3, 4, 5, 6)),
        "map_x": map_x,
        "map_y": map_y,
        "F": integrand,
        "decimals": 6,
    }


def applicable(params: dict[str, Any]) -> list[str]:
    """Mistake kinds that change the computation for these parameters."""
    kinds = list(MISTAKES)
    if params["qdeg"] <= 1:
        kinds.remove("degree_minus_one")
    return kinds


def context(params: dict[str, Any], mistakes: frozenset[str]) -> dict[str, Any]:
    """Jinja context of the solution script, with the given mistakes applied."""
    p, m = params, mistakes
    rule = "default"
    if "other_rule" in m:
        rule = "gauss_jacobi" if p["cell"] == "triangle" else "gll"
    cx, cy = CENTROID[p["cell"]]
    return {
        "cell": p["cell"],
        "qdeg": p["qdeg"] - (1 if "degree_minus_one" in m else 0),
        "rule": rule,
        "mapX": to_code(p["map_x"], "xi", "eta", "np"),
        "mapY": to_code(p["map_y"], "xi", "eta", "np"),
        "dXdxi": to_code(diff(p["map_x"], "x"), "xi", "eta", "np"),
        "dXdeta": to_code(diff(p["map_x"], "y"), "xi", "eta", "np"),
        "dYdxi": to_code(diff(p["map_y"], "x"), "xi", "eta", "np"),
        "dYdeta": to_code(diff(p["map_y"], "y"), "xi", "eta", "np"),
        "jac_centroid": "jacobian_at_centroid" in m,
        "cx": repr(cx),
        "cy": repr(cy),
        "no_jacobian": "no_jacobian" in m,
        "unmapped": "unmapped_points" in m,
        "swapped": "swapped_integrand" in m,
        "F_code": to_code(p["F"], "X", "Y", "np"),
        "decimals": p["decimals"],
    }


def question(params: dict[str, Any]) -> str:
    """Public question text (fully specified; no options)."""
    p = params
    ref = {
        "triangle": "reference triangle $\\hat T$ with vertices (0,0), (1,0), (0,1)",
        "quadrilateral": "reference square $\\hat T = [0,1]^2$",
    }[p["cell"]]
    return (
        f"Let $\\Phi(\\xi,\\eta) = (X, Y)$ map the {ref} onto a curved domain $\\Omega = \\Phi(\\hat T)$, with\n\n"
        f"$$X = {to_tex(p['map_x'], '\\xi', '\\eta')},\\qquad Y = {to_tex(p['map_y'], '\\xi', '\\eta')}.$$\n\n"
        "Approximate $\\int_\\Omega F(X,Y)\\,dX\\,dY$ by pulling back to $\\hat T$ and applying "
        f"the Basix default quadrature rule of degree {p['qdeg']} on that cell "
        f"(`basix.make_quadrature(CellType.{p['cell']}, {p['qdeg']})`):\n\n"
        "$$Q = \\sum_q w_q\\,F(\\Phi(\\hat p_q))\\,|\\det D\\Phi(\\hat p_q)|,$$\n\n"
        f"where $(\\hat p_q, w_q)$ are the rule's points and weights, $D\\Phi$ is the exact "
        f"Jacobian matrix of $\\Phi$, and\n\n$$F(X,Y) = {to_tex(p['F'], 'X', 'Y')}.$$\n\n"
        f"Report $Q$ rounded to exactly {p['decimals']} decimal places."
    )
