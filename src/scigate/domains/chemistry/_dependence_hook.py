"""Inside the sandbox only: scale every value RDKit computes for the script (gate 1b's
dependence check for chemistry, the opposite of an invariance check).

This file is not imported by scigate: the gate executes its text in a namespace of its own
at the head of the runner it writes into the workspace, then calls `install(token,
active)`. The entry points through which a computed number reaches a script are wrapped:

- every public function of `rdkit.Chem.Descriptors`, `rdMolDescriptors` (also its
  `_Calc...Contribs` per-atom contributions), `Crippen`, `QED`, `GraphDescriptors`,
  `rdMolTransforms`, `Descriptors3D` and `rdFreeSASA`: a float result, or the floats in a
  returned list, tuple, dict or array, are scaled (integer counts and objects pass as
  they are);
- masses and radii: `Atom.GetMass` and the periodic table's `GetAtomicWeight`,
  `GetMostCommonIsotopeMass`, `GetMassForIsotope`, `GetRvdw`, `GetRcovalent`;
- charges: `ComputeGasteigerCharges` (the `_GasteigerCharge` and `_GasteigerHCharge`
  atom properties it stores, so every way of reading them sees the scaled value) and
  MMFF's `MMFFMolProperties.GetMMFFPartialCharge`;
- force fields: `ForceField.CalcEnergy` and the energies `MMFFOptimizeMoleculeConfs` /
  `UFFOptimizeMoleculeConfs` return.

Each call k gets its own factor F_k = exp(g_k) > 1 with g_k = (0.05 + 0.07 frac((k+1)
phi)) / (1 + k/1000), as in the FEniCSx hook, and floats of one call get a per-entry
jitter of +-0.4 g_k, so sums, ratios, differences and the location of an extreme move.
Only calls made by the script's own code are perturbed (the caller's globals are
`__main__`): RDKit's Python modules calling each other are left alone, so a value is
scaled once. With `active=False` the same wrappers are installed but change and report
nothing: the renumbered-atoms check runs under this sham, so a script that inspects the
wrappers sees the same in both runs.

Reports go to a private copy of stderr, each line `MARKER token applied: ...`; `finish()`
(run after the script) reports `done:`.
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

PACKAGE = "rdkit"  # _sweep re-points this library's module attributes at the wrappers

MODULES = (
    "rdkit.Chem.Descriptors",
    "rdkit.Chem.rdMolDescriptors",
    "rdkit.Chem.Crippen",
    "rdkit.Chem.QED",
    "rdkit.Chem.GraphDescriptors",
    "rdkit.Chem.rdMolTransforms",
    "rdkit.Chem.Descriptors3D",
    "rdkit.Chem.rdFreeSASA",
)


def _is_real(value):
    return isinstance(value, float) or type(value).__name__ in ("float64", "float32")


def _wrap_value(fn, what):
    """A function (or method) whose returned floats are scaled."""

    def wrapper(*args, **kwargs):
        out = fn(*args, **kwargs)
        if not _channel["active"] or not _from_script():
            return out
        if not (_is_real(out) or isinstance(out, (list, tuple, dict)) or hasattr(out, "dtype")):
            return out
        factor, f = _factor_source()
        scaled = _scaled(out, factor)
        if scaled is None:
            _counts["perturbed"] -= 1  # nothing real in it: not a scaled value
            return out
        _applied(what, f)
        return scaled

    return _like(fn, wrapper)


def _wrap_gasteiger(fn, what):
    """`ComputeGasteigerCharges(mol, ...)`: the charges it stores on the atoms, scaled."""

    def wrapper(*args, **kwargs):
        out = fn(*args, **kwargs)
        if not _channel["active"] or not _from_script() or not args:
            return out
        factor, f = _factor_source()
        for atom in args[0].GetAtoms():
            for prop in ("_GasteigerCharge", "_GasteigerHCharge"):
                if atom.HasProp(prop):
                    with contextlib.suppress(Exception):
                        atom.SetDoubleProp(prop, atom.GetDoubleProp(prop) * factor())
        _applied(what, f)
        return out

    return _like(fn, wrapper)


def _replace_everywhere(original, wrapper):
    """Put `wrapper` wherever a loaded rdkit module holds `original` (in one sweep at the
    end of `install`), so no alias such as `AllChem.ComputeGasteigerCharges` leads back."""
    _pending[id(original)] = (original, wrapper)


def _patch_method(cls, name, make):
    original = cls.__dict__.get(name)
    if original is not None:
        setattr(cls, name, make(original))


def install(token="", active=True):
    """Wrap the entry points; `active=False`: the sham (same wrappers, no scaling)."""
    import importlib

    _channel["token"] = token
    _channel["active"] = active
    with contextlib.suppress(OSError):
        _channel["fd"] = os.dup(2)  # private: the script's stderr redirections miss it
    try:
        from rdkit import Chem
        from rdkit.Chem import AllChem, rdPartialCharges  # noqa: F401
    except ImportError:
        return
    for modname in MODULES:
        try:
            module = importlib.import_module(modname)
        except Exception:
            continue
        for attr, value in list(vars(module).items()):
            if isinstance(value, type) or not callable(value):
                continue
            if attr.startswith("_") and not attr.startswith(("_Calc", "_GetAtomContribs")):
                continue
            if not str(getattr(value, "__module__", None) or "").startswith("rdkit"):
                continue  # re-exported from numpy, math, ...
            _replace_everywhere(value, _wrap_value(value, f"{modname.split('.')[-1]}.{attr}"))
    gasteiger = rdPartialCharges.ComputeGasteigerCharges
    _replace_everywhere(gasteiger, _wrap_gasteiger(gasteiger, "ComputeGasteigerCharges"))
    _patch_method(Chem.Atom, "GetMass", lambda fn: _wrap_value(fn, "Atom.GetMass"))
    table = type(Chem.GetPeriodicTable())
    for name in (
        "GetAtomicWeight",
        "GetMostCommonIsotopeMass",
        "GetMassForIsotope",
        "GetRvdw",
        "GetRcovalent",
    ):
        _patch_method(table, name, lambda fn, n=name: _wrap_value(fn, f"PeriodicTable.{n}"))
    with contextlib.suppress(ImportError, AttributeError):
        from rdkit.ForceField import rdForceField as ff

        _patch_method(
            ff.MMFFMolProperties,
            "GetMMFFPartialCharge",
            lambda fn: _wrap_value(fn, "MMFFMolProperties.GetMMFFPartialCharge"),
        )
        _patch_method(
            ff.ForceField, "CalcEnergy", lambda fn: _wrap_value(fn, "ForceField.CalcEnergy")
        )
    with contextlib.suppress(ImportError, AttributeError):
        from rdkit.Chem import rdForceFieldHelpers as helpers

        for name in ("MMFFOptimizeMoleculeConfs", "UFFOptimizeMoleculeConfs"):
            fn = getattr(helpers, name)
            _replace_everywhere(fn, _wrap_value(fn, name))
    _sweep()
