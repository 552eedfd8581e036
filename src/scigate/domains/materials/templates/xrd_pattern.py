"""Family (a): a powder X-ray diffraction pattern (pymatgen's `XRDCalculator`).

The intensity-weighted mean 2θ of the peaks in a stated range, or the relative intensity
(strongest peak = 100) of the second-strongest peak, for a stated wavelength.
"""

from __future__ import annotations

import random
from typing import Any

from ._common import STRUCTURE_MISTAKES, structure_context, structure_kinds
from ._structures import BUILD, describe, draw_structure

NAME = "xrd_pattern"
TEMPLATE = "xrd_pattern.py.j2"
WAVELENGTHS = {"CuKa": "CuKa1", "CuKa1": "CuKa", "MoKa": "CuKa", "CoKa": "CuKa", "FeKa": "CoKa"}
QUANTITIES = {
    "weighted_2theta": "the intensity-weighted mean 2θ in degrees, Σ I·2θ / Σ I over all peaks",
    "second_intensity": "the relative intensity (strongest peak = 100) of the second-strongest "
    "peak",
}
MISTAKES = {
    **STRUCTURE_MISTAKES,
    "wrong_wavelength": "a neighbouring radiation (Cu Kα vs Kα1, Mo or Co for Cu ...)",
    "default_range": "the default 2θ range (0–90°) instead of the stated one",
}


def draw_params(rng: random.Random) -> dict[str, Any]:
    """A (possibly substituted) structure, a radiation, a 2θ range and the quantity."""
    lo = rng.choice((10, 15, 20))
    return {
        **draw_structure(rng, doped=rng.random() < 0.6),
        "wavelength": rng.choice(sorted(WAVELENGTHS)),
        "range": [lo, rng.choice((100, 110, 120))],
        "quantity": rng.choice(sorted(QUANTITIES)),
        "decimals": 4,
    }


def applicable(params: dict[str, Any]) -> list[str]:
    """Mistake kinds that can change the computation."""
    return [*structure_kinds(params), "wrong_wavelength", "default_range"]


def context(params: dict[str, Any], mistakes: frozenset[str]) -> dict[str, Any]:
    """Jinja context of the solution script, with the given mistakes applied."""
    wavelength = params["wavelength"]
    if "wrong_wavelength" in mistakes:
        wavelength = WAVELENGTHS[wavelength]
    return {
        **structure_context(params, mistakes),
        "wavelength": repr(wavelength),
        "range": repr(tuple(params["range"])) if "default_range" not in mistakes else None,
        "quantity": params["quantity"],
        "decimals": params["decimals"],
    }


def question(params: dict[str, Any]) -> str:
    """Public question text (fully specified; no options)."""
    lo, hi = params["range"]
    return (
        f"Take {describe(params)}. {BUILD}. Compute its powder pattern with "
        f"`XRDCalculator(wavelength={params['wavelength']!r})` (no Debye–Waller factors) "
        f"over 2θ from {lo}° to {hi}° and report {QUANTITIES[params['quantity']]}, to "
        f"exactly {params['decimals']} decimal places."
    )
