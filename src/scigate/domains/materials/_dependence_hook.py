"""Inside the sandbox only: scale every value pymatgen computes for the script (gate 1b's
dependence check for materials, the opposite of an invariance check).

This file is not imported by scigate: the gate executes its text in a namespace of its own
at the head of the runner it writes into the workspace, then calls `install(token,
active)`. The entry points through which a computed number reaches a script are wrapped:

- diffraction: `XRDCalculator.get_pattern` (peak positions scaled by the call's factor,
  intensities entry by entry);
- electrostatics: `EwaldSummation.total_energy`, `real_space_energy`,
  `reciprocal_space_energy`, `point_energy` and `get_site_energy`;
- bond valence: `calculate_bv_sum` and `calculate_bv_sum_unordered`;
- Voronoi: `VoronoiNN.get_voronoi_polyhedra` (every float of the polyhedra: volumes,
  areas, solid angles, distances);
- geometry: `Structure.density`, `Structure.volume`, `Lattice.volume`, `Lattice.d_hkl`,
  `Structure.get_distance` and `Composition.weight`.

Factors and the rule that only the script's own calls are scaled are those of the FEniCSx
and RDKit hooks (F_k = exp(g_k) > 1, a per-entry jitter of +-0.4 g_k). With
`active=False` the same wrappers are installed but change and report nothing (the
invariance runs). Reports go to a private copy of stderr, each line `MARKER token
applied: ...`; `finish()` (run after the script) reports `done:`.
"""

import contextlib
import math
import os
import random
import sys

# shared helpers: hook_prelude runs _hook_common.py first in this namespace
_from_script = globals()["_from_script"]
_like = globals()["_like"]

MARKER = "scigate-dependence:"
SEED = 20261204
PHI = (math.sqrt(5.0) - 1.0) / 2.0
SHOWN = 30
_channel = {"fd": 2, "token": "", "active": True}
_counts = {"perturbed": 0}
_pending = {}


def _emit(text):
    if not _channel["active"]:
        return
    tok = _channel["token"]
    line = f"{MARKER} {tok} {text}\n" if tok else f"{MARKER} {text}\n"
    with contextlib.suppress(OSError):
        os.write(_channel["fd"], line.encode("utf-8", "replace"))


def finish():
    """The closing report: how many computed values were scaled."""
    _emit(f"done: {_counts['perturbed']} computed values scaled")


def _factor_source():
    """The next call's factor source: the first entry gets exactly F_k, later ones jitter."""
    k = _counts["perturbed"]
    _counts["perturbed"] += 1
    g = (0.05 + 0.07 * ((k + 1) * PHI % 1.0)) / (1.0 + k / 1000.0)
    rng = random.Random(f"{SEED}:{k}")
    first = [True]

    def next_factor():
        if first[0]:
            first[0] = False
            return math.exp(g)
        return math.exp(g) * (1.0 + 0.4 * g * rng.uniform(-1.0, 1.0))

    return next_factor, math.exp(g)


def _scaled(value, factor):
    """`value` with every float in it scaled (containers rebuilt); None: nothing to scale."""
    if isinstance(value, float):
        return value * factor()
    if isinstance(value, (list, tuple)):
        parts = [_scaled(v, factor) for v in value]
        if all(p is None for p in parts):
            return None
        items = [v if p is None else p for v, p in zip(value, parts, strict=True)]
        return type(value)(items) if isinstance(value, tuple) else items
    if isinstance(value, dict):
        out = dict(value)
        hit = False
        for key, v in value.items():
            p = _scaled(v, factor)
            if p is not None:
                out[key], hit = p, True
        return out if hit else None
    if type(value).__name__ == "ndarray" and value.dtype.kind == "f" and value.size:
        arr = value.copy()
        flat = arr.reshape(-1)
        for i in range(flat.size):
            flat[i] *= factor()
        return arr
    return None


def _applied(what, f):
    if _counts["perturbed"] <= SHOWN:
        _emit(f"applied: {what} x{f:.4f}")


def _scale_result(out, what):
    factor, f = _factor_source()
    scaled = _scaled(out, factor)
    if scaled is None:
        _counts["perturbed"] -= 1
        return out
    _applied(what, f)
    return scaled


def _wrap_value(fn, what):
    """A function or method whose returned floats are scaled."""

    def wrapper(*args, **kwargs):
        out = fn(*args, **kwargs)
        if not _channel["active"] or not _from_script():
            return out
        return _scale_result(out, what)

    return _like(fn, wrapper)


def _wrap_property(prop, what):
    def getter(self):
        out = prop.fget(self)
        if not _channel["active"] or not _from_script():
            return out
        return _scale_result(out, what)

    return property(_like(prop.fget, getter), prop.fset, prop.fdel, prop.__doc__)


def _wrap_pattern(fn):
    def wrapper(*args, **kwargs):
        pattern = fn(*args, **kwargs)
        if not _channel["active"] or not _from_script():
            return pattern
        factor, f = _factor_source()
        pattern.x = pattern.x * f
        pattern.y = _scaled(pattern.y, factor) if len(pattern.y) else pattern.y
        _applied("XRDCalculator.get_pattern", f)
        return pattern

    return _like(fn, wrapper)


def _patch(cls, name, make):
    original = cls.__dict__.get(name)
    if original is None:
        return
    if isinstance(original, property):
        setattr(cls, name, _wrap_property(original, f"{cls.__name__}.{name}"))
    elif type(original).__name__ == "cached_property":  # recomputed on each access now
        setattr(cls, name, _wrap_property(property(original.func), f"{cls.__name__}.{name}"))
    else:
        setattr(cls, name, make(original))


def _sweep():
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith("pymatgen"):
            continue
        for attr, value in list(getattr(module, "__dict__", {}).items()):
            hit = _pending.get(id(value))
            if hit is not None and hit[0] is value:
                with contextlib.suppress(AttributeError, TypeError):
                    setattr(module, attr, hit[1])
    _pending.clear()


def install(token="", active=True):
    """Wrap the entry points; `active=False`: the sham (same wrappers, no scaling)."""
    _channel["token"] = token
    _channel["active"] = active
    with contextlib.suppress(OSError):
        _channel["fd"] = os.dup(2)  # private: the script's stderr redirections miss it
    try:
        from pymatgen.core import Composition, Lattice
        from pymatgen.core import structure as ps
    except ImportError:
        return
    for cls, name in (
        (ps.IStructure, "density"),
        (ps.IStructure, "volume"),
        (ps.IStructure, "get_distance"),
        (Lattice, "volume"),
        (Lattice, "d_hkl"),
        (Composition, "weight"),
    ):
        _patch(cls, name, lambda fn, n=name: _wrap_value(fn, n))
    with contextlib.suppress(ImportError, AttributeError):
        from pymatgen.analysis.diffraction.xrd import XRDCalculator

        _patch(XRDCalculator, "get_pattern", _wrap_pattern)
    with contextlib.suppress(ImportError, AttributeError):
        from pymatgen.analysis.ewald import EwaldSummation

        for name in (
            "total_energy",
            "real_space_energy",
            "reciprocal_space_energy",
            "point_energy",
            "get_site_energy",
        ):
            _patch(EwaldSummation, name, lambda fn, n=name: _wrap_value(fn, f"Ewald.{n}"))
    with contextlib.suppress(ImportError, AttributeError):
        from pymatgen.analysis import bond_valence as bv

        for name in ("calculate_bv_sum", "calculate_bv_sum_unordered"):
            fn = getattr(bv, name)
            _pending[id(fn)] = (fn, _wrap_value(fn, name))
    with contextlib.suppress(ImportError, AttributeError):
        from pymatgen.analysis.local_env import VoronoiNN

        _patch(
            VoronoiNN,
            "get_voronoi_polyhedra",
            lambda fn: _wrap_value(fn, "VoronoiNN.get_voronoi_polyhedra"),
        )
    _sweep()
