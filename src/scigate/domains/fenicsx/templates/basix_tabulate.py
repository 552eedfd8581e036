"""Family (c): Basix element tabulation.

Q = sum_i sin(alpha*(i+1)) * d(phi_i)_k/dx_j at a reference point, for a Lagrange
(variant given), Nedelec first kind (N1curl) or Raviart-Thomas element in Basix's own
degree-of-freedom ordering and tabulation layout.
"""

from __future__ import annotations

import random
from typing import Any

NAME = "basix_tabulate"
TEMPLATE = "basix_tabulate.py.j2"
MISTAKES = {
    "legacy_layout": "tabulated values read as (value component, basis function) instead of Basix's (basis function, component) layout",
    "swapped_derivative": "derivative taken in the other reference direction",
    "value_not_derivative": "basis function values used instead of the derivative",
    "coefficient_offset": "coefficients indexed from 0 (sin(alpha*i)) instead of from 1",
    "swapped_point": "reference point coordinates passed in the wrong order",
    "wrong_variant": "other Lagrange variant (equispaced vs GLL-warped)",
    "wrong_component": "other vector component",
    "degree_convention": "element degree off by one (lowest-order counted as degree 0)",
}
FAMILY_TEXT = {
    "P": "Lagrange (`basix.ElementFamily.P`)",
    "N1E": "Nédélec first kind H(curl) (`basix.ElementFamily.N1E`)",
    "RT": "Raviart–Thomas H(div) (`basix.ElementFamily.RT`)",
}


def draw_params(rng: random.Random) -> dict[str, Any]:
    """Random element, point, derivative direction and coefficient frequency."""
    family = rng.choice(("P", "P", "N1E", "RT"))
    cell = rng.choice(("triangle", "quadrilateral"))
    if family == "P":
        degree = rng.choice((3, 4)) if cell == "triangle" else 3
        variant = rng.choice(("gll_warped", "equispaced"))
    else:
        degree = rng.choice((1, 2))
        variant = None
    while True:
        px, py = round(rng.uniform(0.05, 0.9), 3), round(rng.uniform(0.05, 0.9), 3)
        if cell == "quadrilateral" or px + py < 0.95:
            break
    return {
        "family": family,
        "cell": cell,
        "degree": degree,
        "variant": variant,
        "point": [px, py],
        "deriv": rng.choice(("x", "y")),
        "component": 0 if family == "P" else rng.choice((0, 1)),
        "alpha": round(rng.uniform(0.3, 2.5), 2),
        "decimals": 6,
    }


def applicable(params: dict[str, Any]) -> list[str]:
    """Mistake kinds that change the computation for these parameters."""
    kinds = ["swapped_derivative", "value_not_derivative", "coefficient_offset", "swapped_point"]
    if params["family"] == "P":
        kinds.append("wrong_variant")
    else:
        kinds += ["legacy_layout", "wrong_component", "degree_convention"]
    return kinds


def context(params: dict[str, Any], mistakes: frozenset[str]) -> dict[str, Any]:
    """Jinja context of the solution script, with the given mistakes applied."""
    p, m = params, mistakes
    deriv = p["deriv"]
    if "swapped_derivative" in m:
        deriv = {"x": "y", "y": "x"}[deriv]
    dx, dy = (1, 0) if deriv == "x" else (0, 1)
    if "value_not_derivative" in m:
        dx, dy = 0, 0
    px, py = p["point"]
    if "swapped_point" in m:
        px, py = py, px
    variant = p["variant"]
    if variant and "wrong_variant" in m:
        variant = {"gll_warped": "equispaced", "equispaced": "gll_warped"}[variant]
    return {
        "family": p["family"],
        "cell": p["cell"],
        "degree": p["degree"] + (1 if "degree_convention" in m else 0),
        "variant": variant,
        "px": repr(float(px)),
        "py": repr(float(py)),
        "dx": dx,
        "dy": dy,
        "alpha": repr(float(p["alpha"])),
        "offset": 0 if "coefficient_offset" in m else 1,
        "legacy_layout": "legacy_layout" in m,
        "component": (1 - p["component"]) if "wrong_component" in m else p["component"],
        "decimals": p["decimals"],
    }


def question(params: dict[str, Any]) -> str:
    """Public question text (fully specified; no options)."""
    p = params
    variant = f" with Lagrange variant `{p['variant']}`" if p["variant"] else ""
    ref = {
        "triangle": "the reference triangle with vertices (0,0), (1,0), (0,1)",
        "quadrilateral": "the reference quadrilateral $[0,1]^2$",
    }[p["cell"]]
    comp = (
        ""
        if p["family"] == "P"
        else f" Take component {p['component']} (0-based, reference coordinates) of each vector-valued basis function."
    )
    xj = "x_0" if p["deriv"] == "x" else "x_1"
    return (
        f"Using Basix, create the degree-{p['degree']} {FAMILY_TEXT[p['family']]} element on "
        f"{ref}{variant} (`basix.create_element`, default settings otherwise). Let "
        "$\\phi_0,\\dots,\\phi_{N-1}$ be its reference basis functions in Basix's own "
        f"degree-of-freedom ordering.{comp} Compute\n\n"
        f"$$Q = \\sum_{{i=0}}^{{N-1}} \\sin\\big({p['alpha']}\\,(i+1)\\big)\\,"
        f"\\frac{{\\partial \\phi_i}}{{\\partial {xj}}}({p['point'][0]}, {p['point'][1]}),$$\n\n"
        f"where $(x_0, x_1)$ are the reference coordinates and the point is given as "
        f"$(x_0, x_1)$. Report $Q$ rounded to exactly {p['decimals']} decimal places."
    )
