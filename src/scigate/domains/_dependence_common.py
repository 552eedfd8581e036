"""Inside the sandbox only: what the chemistry and materials dependence hooks share.

Not imported by scigate: `hook_prelude` runs this text (after `_hook_common.py`) in front
of a dependence hook's own text, in the hook's namespace. The hook then defines `PACKAGE`
(the library whose modules `_sweep` re-points at the wrappers) and `_is_real` (which
values count as computed floats), and wraps its library's entry points. Factors: call k
gets F_k = exp(g_k) > 1 with g_k = (0.05 + 0.07 frac((k+1) phi)) / (1 + k/1000), as in the
FEniCSx hook; the floats of one call after the first jitter by +-0.4 g_k.
"""

import contextlib
import math
import random
import sys

# shared helpers: hook_prelude runs _hook_common.py first in this namespace
_emit = globals()["_emit"]

MARKER = "scigate-dependence:"
SEED = 20261204
PHI = (math.sqrt(5.0) - 1.0) / 2.0
SHOWN = 30
_channel = {"fd": 2, "token": "", "active": True}
_counts = {"perturbed": 0}
_pending: dict[int, tuple[object, object]] = {}
# the dependence hook that follows this text defines these two
PACKAGE = None  # its library's name: _sweep re-points that library's module attributes


def _is_real(value):
    """Whether `value` counts as a computed float (the hook's definition replaces this)."""
    raise NotImplementedError("the dependence hook defines _is_real")


def finish():
    """The closing report: how many computed values were scaled."""
    _emit(f"done: {_counts['perturbed']} computed values scaled")


def _factor_source():
    """A function giving the next entry's factor of one call (the call's own g_k)."""
    k = _counts["perturbed"]
    _counts["perturbed"] += 1
    g = (0.05 + 0.07 * ((k + 1) * PHI % 1.0)) / (1.0 + k / 1000.0)
    rng = random.Random(f"{SEED}:{k}")
    first = [True]

    def next_factor():
        if first[0]:  # a lone float gets exactly F_k
            first[0] = False
            return math.exp(g)
        return math.exp(g) * (1.0 + 0.4 * g * rng.uniform(-1.0, 1.0))

    return next_factor, math.exp(g)


def _scaled(value, factor):
    """`value` with every float in it scaled (containers rebuilt); None: nothing to scale."""
    if _is_real(value):
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


def _sweep():
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(PACKAGE):
            continue
        for attr, value in list(getattr(module, "__dict__", {}).items()):
            hit = _pending.get(id(value))
            if hit is not None and hit[0] is value:
                with contextlib.suppress(AttributeError, TypeError):
                    setattr(module, attr, hit[1])
    _pending.clear()
