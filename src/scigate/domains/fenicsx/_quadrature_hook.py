"""Inside the sandbox only: lower UFL's estimated quadrature degree (gate 1b's
quadrature-default check).

This file is not imported by scigate: the gate executes its text in a namespace of its own
at the head of the runner it writes into the workspace, then calls `install(token,
shift)`. When a question states a quadrature degree, a correct script passes it to its
forms (`ufl.Measure(..., metadata={"quadrature_degree": q})`, `dx(degree=q)`), and FFCx
uses it. A script that ignores it gets the degree UFL estimates from the integrand. With
`shift` > 0 that estimate is lowered by `shift` (to at least 1) wherever it decides the
value:

- `ufl.algorithms.compute_form_data.attach_estimated_degrees` (what FFCx's analysis calls)
  is wrapped. An integral with a stated `quadrature_degree` is left alone. One whose
  integrand is a polynomial on affine simplices (no sin, exp, sqrt, abs, conditional or
  division by a non-constant; UFL's estimate is then its exact degree) is left alone too:
  the estimate integrates it exactly, as would any higher stated degree, so it cannot be
  what the stated degree is about. Every other integral gets its
  `estimated_polynomial_degree` lowered: a script that left a non-polynomial integrand (a
  sine of the coordinates, a quotient, a non-affine cell) to UFL's estimate where the
  question fixed the degree prints another value. Lowering rather than raising, because
  the estimate (the integrand's degree + 2 for each function) is usually converged to
  six decimals, so a higher degree would not move such a script.
- FFCx's compiled-form cache is keyed by the form's signature and the options
  (`module_name`), which the estimate is not part of. So a compile whose forms hold an
  integral to lower gets `|scigate-quadrature+shift` appended to the option signature
  (`_compute_option_signature` of `ffcx.codegeneration.jit`): it is compiled under a
  module name of its own and never loaded from a module compiled with the unshifted
  degree (the run's private JIT dir links every trusted module). The shared compiled-form
  cache (`sandbox/_formcache.py`) keys entries by the generated C text and the module
  name, both of which differ, so the shifted variant cannot stand in for the unshifted
  one there either. A compile with nothing to lower (every integral at a stated degree or
  polynomial) keeps its name and is compiled, or loaded, exactly as gate 1 had it: a
  correct script costs no fresh compile.
- `ffcx.codegeneration.jit.compile_forms` is wrapped to see each compile: a call that
  returns forms whose degrees the check did not estimate in this run (a module loaded
  from some cache the check could not reach) is reported `unperturbed:`, and the gate
  calls the run undecided (`error`), never a pass.

With `shift=0` (the sham, installed by the other FEniCSx checks) the same wrappers are in
place and change nothing, so a script sees the same functions in every gate-1b run.
Reports go to a private copy of stderr, each line `MARKER token applied: ...`; `finish()`
(run after the script) reports `done:`.
"""

import contextlib
import os
import sys

# shared helpers: hook_prelude runs _hook_common.py first in this namespace
_like = globals()["_like"]
_emit = globals()["_emit"]

MARKER = "scigate-quadrature:"
SHOWN = 20
_channel = {"fd": 2, "token": "", "shift": 0, "active": False}
_counts = {"forms": 0, "shifted": 0, "exact": 0, "stated": 0, "unseen": 0}
_estimated: set[str] = set()  # form signatures whose degrees this run's wrapper estimated
_current = {"estimating": 0, "tag": False}


def finish():
    """The closing report: forms compiled, integrals shifted and left at a stated degree."""
    _emit(
        f"done: {_counts['forms']} forms compiled, {_counts['shifted']} integrals at UFL's "
        f"estimated degree lowered by {_channel['shift']}, {_counts['exact']} polynomial, "
        f"{_counts['stated']} at a stated degree, {_counts['unseen']} forms loaded unestimated"
    )


_NON_POLYNOMIAL = (
    "MathFunction",  # sin, cos, exp, ln, sqrt, erf, ...
    "Abs",
    "Atan2",
    "BesselFunction",
    "Conditional",
    "MaxValue",
    "MinValue",
)


def _polynomial(integral):
    """True when UFL's estimate integrates `integral` exactly: a polynomial integrand
    (no function but + - * and powers by non-negative integers, divisions by constants
    only) on a mesh of affine simplices. False when unsure."""
    import ufl.classes as uc
    from ufl.corealg.traversal import unique_pre_traversal

    try:
        if not integral.ufl_domain().is_piecewise_linear_simplex_domain():
            return False
        for node in unique_pre_traversal(integral.integrand()):
            if type(node).__name__ in _NON_POLYNOMIAL or isinstance(node, uc.MathFunction):
                return False
            if isinstance(node, uc.Power):
                e = node.ufl_operands[1]
                if not (isinstance(e, uc.IntValue) and int(e) >= 0):
                    return False
            if isinstance(node, uc.Division) and not isinstance(
                node.ufl_operands[1], (uc.ScalarValue, uc.Constant)
            ):
                return False
    except Exception:
        return False
    return True


def _lowered(degree, shift):
    if isinstance(degree, tuple):
        return tuple(max(1, d - shift) for d in degree)
    return max(1, degree - shift)


def _sort(integrals):
    """(stated, polynomial, to lower) of `integrals`, by FFCx's rule (a stated degree wins)
    and `_polynomial`."""
    stated, exact, lower = [], [], []
    for integral in integrals:
        if integral.metadata().get("quadrature_degree", -1) >= 0:
            stated.append(integral)
        elif _polynomial(integral):
            exact.append(integral)  # exact at the estimate: another degree cannot move it
        else:
            lower.append(integral)
    return stated, exact, lower


def _report(stated, exact, lowered, tail=""):
    _counts["forms"] += 1
    _counts["shifted"] += len(lowered)
    _counts["stated"] += stated
    _counts["exact"] += exact
    if _counts["forms"] <= SHOWN:
        _emit(
            f"applied: form {_counts['forms']}: {stated} integrals at a stated degree, "
            f"{exact} polynomial at UFL's (exact) estimate, {len(lowered)} at UFL's "
            f"estimate lowered ({', '.join(lowered) or 'none'}){tail}"
        )


def _wrap_attach(fn):
    def attach_estimated_degrees(form):
        out = fn(form)
        _current["estimating"] += 1
        if not _channel["shift"]:
            return out
        stated, exact, lower = _sort(out.integrals())
        if lower and not _current["tag"]:
            # the compile was judged to need no lowering, yet its analysed form does: its
            # module name is the unshifted one, so it is neither lowered nor trusted
            _counts["unseen"] += 1
            _emit("unperturbed: a form to lower was compiled under its unshifted name")
            return out
        if not _current["tag"]:
            return out
        from ufl.classes import Form

        lowered, integrals = [], []
        for integral in out.integrals():
            if any(integral is i for i in lower):
                md = dict(integral.metadata())
                degree = md["estimated_polynomial_degree"]
                md["estimated_polynomial_degree"] = _lowered(degree, _channel["shift"])
                lowered.append(
                    f"{integral.integral_type()} {degree}->{md['estimated_polynomial_degree']}"
                )
                integral = integral.reconstruct(metadata=md)
            integrals.append(integral)
        _report(len(stated), len(exact), lowered)
        return Form(integrals)

    return attach_estimated_degrees


def _wrap_option_signature(fn):
    def _compute_option_signature(options):
        sig = fn(options)
        return f"{sig}|scigate-quadrature+{_channel['shift']}" if _current["tag"] else sig

    return _compute_option_signature


def _wrap_compile_forms(fn):
    def compile_forms(forms, *args, **kwargs):
        if not _channel["shift"]:
            return fn(forms, *args, **kwargs)
        try:
            sorted_ = [_sort(f.integrals()) for f in forms]
        except Exception:
            sorted_ = None  # cannot tell: lower (and require the estimate to be seen)
        lower = sorted_ is None or any(s[2] for s in sorted_)
        before = _current["estimating"]
        _current["tag"] = lower
        try:
            out = fn(forms, *args, **kwargs)
        finally:
            _current["tag"] = False
        if not lower:
            # nothing left to UFL's estimate that a degree could move: compiled (or
            # loaded from a cache) as it is, as gate 1 compiled it
            for stated, exact, _ in sorted_ or []:
                _report(len(stated), len(exact), [], "; compiled as it is")
            return out
        keys = set()
        with contextlib.suppress(Exception):
            keys = {f.signature() for f in forms}
        if _current["estimating"] > before:
            _estimated.update(keys)
        elif not keys or not keys <= _estimated:
            _counts["unseen"] += 1
            _emit(
                "unperturbed: a compiled form was loaded without the check's degree "
                "estimate (a cached module the check cannot see through)"
            )
        return out

    return compile_forms


def install(token="", shift=0):
    """Wrap UFL's degree estimate and FFCx's compile step; `shift=0`: the sham."""
    _channel["token"] = token
    _channel["shift"] = int(shift)
    _channel["active"] = bool(_channel["shift"])  # the sham reports nothing
    with contextlib.suppress(OSError):
        _channel["fd"] = os.dup(2)  # private: the script's stderr redirections miss it
    try:
        import ffcx.codegeneration.jit as jit
        import ufl.algorithms.compute_form_data  # noqa: F401
    except ImportError:
        return
    cfd = sys.modules["ufl.algorithms.compute_form_data"]
    cfd.attach_estimated_degrees = _like(
        cfd.attach_estimated_degrees, _wrap_attach(cfd.attach_estimated_degrees)
    )
    jit._compute_option_signature = _like(
        jit._compute_option_signature, _wrap_option_signature(jit._compute_option_signature)
    )
    jit.compile_forms = _like(jit.compile_forms, _wrap_compile_forms(jit.compile_forms))
