"""Inside the sandbox only: scale every value FEniCSx computes for the script (gate 1b's
dependence check, the opposite of an invariance check).

This file is not imported by scigate: the gate executes its text in a namespace of its own
at the head of the runner it writes into the workspace, then calls `install(token,
active)`. The entry points through which a computed number reaches a script are wrapped:

- `dolfinx.fem.assemble_scalar` (the value times a factor);
- `dolfinx.fem.assemble_vector` / `assemble_matrix` and their `dolfinx.fem.petsc`
  versions (the vector entry by entry, the matrix as a whole so symmetry is kept);
- `LinearProblem.solve`, `NonlinearProblem.solve` (`dolfinx.fem.petsc`) and
  `NewtonSolver.solve` (`dolfinx.nls.petsc`): the solution's dofs, after the solve;
- `Function.interpolate`: the interpolant's dofs;
- Basix: `FiniteElement.tabulate` (also through `basix.ufl` elements) and
  `make_quadrature` (the weights).

Each call k gets its own factor F_k = exp(g_k), g_k = (0.05 + 0.07 frac((k+1) phi)) /
(1 + k/1000) with phi the golden ratio: always above 1, so a chain of scaled values
(a solve, then an integral of the solution) cannot cancel out; spread so that two calls'
factors differ (a ratio of two integrals moves too); shrinking slowly, so ten thousand
chained solves of a time loop stay finite. Arrays get F_k times a per-entry jitter of
+-0.4 g_k (every entry still grows), so ratios of point values, normalised values and
locations of extremes change too. Only calls made by the script's
own code are perturbed (the caller's globals are `__main__`): DOLFINx's internal use (the
assembly inside a solve) and FFCx's use of Basix while JIT-compiling forms are left alone,
so no solver is disturbed and no perturbed kernel reaches the form cache.

With `active=False` the same wrappers are installed but change nothing and report
nothing: the reordered-mesh check runs under this sham, so a script that looks at the
wrappers (their type, attributes, where they were defined) sees the same in both runs and
cannot print the reference in one and something else in the other. What differs is only
the numbers, which a script can only see by computing with FEniCSx.

Reports go to a private copy of stderr, each line `MARKER token applied: ...`; calls of
DOLFINx's C++ assemblers (`dolfinx.cpp.fem`) straight from the script bypass the scaling
and are reported `unperturbed:`; `finish()` (run after the script) reports `done:`.
"""

import contextlib
import math
import os
import sys

# shared helpers: hook_prelude runs _hook_common.py first in this namespace
_from_script = globals()["_from_script"]
_like = globals()["_like"]
_emit = globals()["_emit"]

MARKER = "scigate-dependence:"
SEED = 20261203
PHI = (math.sqrt(5.0) - 1.0) / 2.0
SHOWN = 30
_channel = {"fd": 2, "token": "", "active": True}
_counts = {"perturbed": 0, "bypassed": 0}
_pending: dict[int, tuple[object, object]] = {}


def finish():
    """The closing report: how many computed values were scaled, how many bypassed."""
    _emit(
        f"done: {_counts['perturbed']} computed values scaled, "
        f"{_counts['bypassed']} C++-layer calls from the script"
    )


def _factors(size=None):
    """The next call's factor (scalar) or factors (one per entry)."""
    import numpy as np

    k = _counts["perturbed"]
    _counts["perturbed"] += 1
    g = (0.05 + 0.07 * ((k + 1) * PHI % 1.0)) / (1.0 + k / 1000.0)
    if size is None:
        return math.exp(g)
    rng = np.random.default_rng([SEED, k])
    return math.exp(g) * (1.0 + 0.4 * g * rng.uniform(-1.0, 1.0, size))


def _applied(what, f):
    if _counts["perturbed"] <= SHOWN:
        shown = f"x{f:.4f}" if isinstance(f, float) else f"x{float(f.mean()):.4f} (per entry)"
        _emit(f"applied: {what} {shown}")


def _scale_array(arr, what):
    f = _factors(arr.shape)
    arr *= f.astype(arr.dtype, copy=False) if hasattr(arr, "dtype") else f
    _applied(what, f)


def _scale_object(obj, what):
    """Scale an assembled object in place; False when its type is not known."""
    import numpy as np

    cls = type(obj).__name__
    if isinstance(obj, np.ndarray):
        _scale_array(obj, what)
    elif cls == "Vector" and hasattr(obj, "array"):  # dolfinx.la.Vector
        _scale_array(obj.array, what)
    elif cls == "MatrixCSR" and hasattr(obj, "data"):
        f = _factors()
        obj.data[:] *= f
        _applied(what, f)
    elif cls == "Vec":  # PETSc
        arr = obj.array
        _scale_array(arr, what)
    elif cls == "Mat":
        obj.assemble()
        f = _factors()
        obj.scale(f)
        _applied(what, f)
    else:
        return False
    return True


def _functions(u):
    return list(u) if isinstance(u, (list, tuple)) else [u]


def _wrap_scalar(fn, what):
    def wrapper(*args, **kwargs):
        value = fn(*args, **kwargs)
        if not _channel["active"] or not _from_script():
            return value
        f = _factors()
        _applied(what, f)
        return value * f

    return _like(fn, wrapper)


def _wrap_assembled(fn, what):
    def wrapper(*args, **kwargs):
        out = fn(*args, **kwargs)
        if not _channel["active"] or not _from_script():
            return out
        target = out if out is not None else (args[0] if args else None)
        if not _scale_object(target, what):
            _emit(f"unperturbed: {what} returned a {type(target).__name__}")
        return out

    return _like(fn, wrapper)


def _wrap_solve(fn, what, solution):
    """`solution(self, args, out)`: the arrays the solve wrote (dofs of its Functions)."""

    def wrapper(self, *args, **kwargs):
        out = fn(self, *args, **kwargs)
        if not _channel["active"] or not _from_script():
            return out
        for arr in solution(self, args, out):
            _scale_array(arr, what)
        return out

    return _like(fn, wrapper)


def _wrap_returned_array(fn, what, pick=None):
    """A function returning a fresh array (or a tuple whose item `pick` is scaled)."""

    def wrapper(*args, **kwargs):
        out = fn(*args, **kwargs)
        if not _channel["active"] or not _from_script():
            return out
        import numpy as np

        if pick is None:
            arr = np.array(out, copy=True)
            _scale_array(arr, what)
            return arr
        items = list(out)
        items[pick] = np.array(items[pick], copy=True)
        _scale_array(items[pick], what)
        return type(out)(items) if isinstance(out, tuple) else items

    return _like(fn, wrapper)


def _wrap_bypass(fn, what):
    def wrapper(*args, **kwargs):
        if _channel["active"] and _from_script():
            _counts["bypassed"] += 1
            _emit(f"unperturbed: the script called {what} directly (not scaled)")
        return fn(*args, **kwargs)

    return _like(fn, wrapper)


def _replace_everywhere(original, wrapper):
    """Put `wrapper` wherever a loaded dolfinx/basix module holds `original` (at the end
    of `install`, in one sweep), so no alias such as `dolfinx.fem.assemble.assemble_scalar`
    leads back to it."""
    _pending[id(original)] = (original, wrapper)


def _sweep(prefixes=("dolfinx", "basix")):
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(prefixes):
            continue
        for attr, value in list(getattr(module, "__dict__", {}).items()):
            hit = _pending.get(id(value))
            if hit is not None and hit[0] is value:
                with contextlib.suppress(AttributeError, TypeError):
                    setattr(module, attr, hit[1])
    _pending.clear()


def _patch_method(cls, name, make):
    original = cls.__dict__.get(name)
    if original is not None:
        setattr(cls, name, make(original))


def install(token="", active=True):
    """Wrap the entry points; `active=False`: the sham (same wrappers, no scaling)."""
    _channel["token"] = token
    _channel["active"] = active
    with contextlib.suppress(OSError):
        _channel["fd"] = os.dup(2)  # private: the script's stderr redirections miss it
    with contextlib.suppress(ImportError):
        _install_dolfinx()
    with contextlib.suppress(ImportError):
        _install_basix()
    _sweep()


def _install_dolfinx():
    import dolfinx_solver  # noqa: F401  (orders MPI before dolfinx)
    import dolfinx.cpp
    import dolfinx.fem
    import dolfinx.fem.petsc as fp

    for name in ("assemble_scalar",):
        fn = getattr(dolfinx.fem, name)
        _replace_everywhere(fn, _wrap_scalar(fn, f"dolfinx.fem.{name}"))
    for module, label in ((dolfinx.fem, "dolfinx.fem"), (fp, "dolfinx.fem.petsc")):
        for name in ("assemble_vector", "assemble_matrix"):
            fn = getattr(module, name, None)
            if fn is not None:
                _replace_everywhere(fn, _wrap_assembled(fn, f"{label}.{name}"))

    def own_u(self, args, out):
        # the Function(s), and the PETSc vector the problem also exposes as `x`
        arrays = [u.x.array for u in _functions(self.u)]
        with contextlib.suppress(Exception):
            arrays.append(self.x.array)
        return arrays

    _patch_method(
        fp.LinearProblem, "solve", lambda fn: _wrap_solve(fn, "LinearProblem.solve", own_u)
    )
    _patch_method(
        fp.NonlinearProblem, "solve", lambda fn: _wrap_solve(fn, "NonlinearProblem.solve", own_u)
    )
    with contextlib.suppress(ImportError, AttributeError):
        import dolfinx.nls.petsc as nls

        _patch_method(
            nls.NewtonSolver,
            "solve",
            lambda fn: _wrap_solve(
                fn, "NewtonSolver.solve", lambda self, args, out: [args[0].x.array]
            ),
        )
    _patch_method(
        dolfinx.fem.Function,
        "interpolate",
        lambda fn: _wrap_solve(fn, "Function.interpolate", lambda self, args, out: [self.x.array]),
    )
    for module, label in (
        (dolfinx.cpp.fem, "dolfinx.cpp.fem"),
        (getattr(dolfinx.cpp.fem, "petsc", None), "dolfinx.cpp.fem.petsc"),
    ):
        for name in dir(module) if module is not None else ():
            if name.startswith("assemble"):
                fn = getattr(module, name)
                setattr(module, name, _wrap_bypass(fn, f"{label}.{name}"))


def _install_basix():
    import basix
    import basix.finite_element as bfe

    _patch_method(
        bfe.FiniteElement,
        "tabulate",
        lambda fn: _wrap_returned_array(fn, "basix FiniteElement.tabulate"),
    )
    with contextlib.suppress(ImportError, AttributeError):
        import basix.ufl as bu

        for cls in vars(bu).values():
            if isinstance(cls, type) and "tabulate" in cls.__dict__:
                _patch_method(
                    cls,
                    "tabulate",
                    lambda fn: _wrap_returned_array(fn, "basix.ufl element tabulate"),
                )
    fn = basix.make_quadrature
    _replace_everywhere(fn, _wrap_returned_array(fn, "basix.make_quadrature weights", pick=1))
