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
- Voronoi: `VoronoiNN.get_voronoi_polyhedra` and `get_all_voronoi_polyhedra` (every float
  of the polyhedra: volumes, areas, solid angles, distances);
- geometry: `Structure.density`, `Structure.volume`, `Lattice.volume`, `Lattice.d_hkl`,
  `Structure.get_distance` and `Composition.weight`.

Factors and the rule that only the script's own calls are scaled are those of the FEniCSx
and RDKit hooks (F_k = exp(g_k) > 1, a per-entry jitter of +-0.4 g_k). With
`active=False` the same wrappers are installed but change and report nothing (the
invariance runs). Reports go to a private copy of stderr, each line `MARKER token
applied: ...`; `finish()` (run after the script) reports `done:`.
"""

import contextlib
import os

# shared helpers and state: hook_prelude runs _hook_common.py and _dependence_common.py
# first in this namespace
_from_script = globals()["_from_script"]
_like = globals()["_like"]
_channel, _counts, _pending = globals()["_channel"], globals()["_counts"], globals()["_pending"]
_emit, _applied, _sweep = globals()["_emit"], globals()["_applied"], globals()["_sweep"]
_factor_source, _scaled = globals()["_factor_source"], globals()["_scaled"]
SHOWN = globals()["SHOWN"]

PACKAGE = "pymatgen"  # _sweep re-points this library's module attributes at the wrappers


def _is_real(value):
    return isinstance(value, float)


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

        for name in ("get_voronoi_polyhedra", "get_all_voronoi_polyhedra"):
            _patch(VoronoiNN, name, lambda fn, n=name: _wrap_value(fn, f"VoronoiNN.{n}"))
    _sweep()
