"""Inside the sandbox only: every crystal structure the script builds is described in
another, equivalent way (gate 1b's invariance checks for materials).

This file is not imported by scigate: the gate executes its text in a namespace of its own
at the head of the runner it writes into the workspace, then calls `install(token, mode)`.
`install` wraps pymatgen's `Structure` constructors (`Structure(...)` called by the script,
and the factories `from_spacegroup`, `from_sites`, `from_str`, `from_file`, `from_dict`):
the structure they return is changed in place, before the script sees it, to

- `mode="setting"`: the same crystal with its sites in another order and its origin
  shifted by a random fractional vector (an answer that reads "site 0" or depends on
  where the origin sits moves);
- `mode="supercell"`: the same, made into an equivalent supercell (2 along one axis), so
  an intensive answer (per formula unit, per site, relative) stays and one that is per
  cell or assumes a site count moves;
- `mode="none"`: nothing (installed so the wrappers look the same in every run).

The check fails closed: an immutable `IStructure`, or a structure read through
`CifParser` or `Poscar`, is reported `unperturbed:`; `finish()` (run after the script)
reports `done:` last. Reports carry the run's token and go to a private copy of the
stderr descriptor, as for the FEniCSx hooks.
"""

import contextlib
import os
import random

# shared helpers: hook_prelude runs _hook_common.py first in this namespace
_from_script = globals()["_from_script"]
_like = globals()["_like"]
_emit = globals()["_emit"]

MARKER = "scigate-invariance:"
SEED = 20261204
FACTORIES = ("from_spacegroup", "from_sites", "from_str", "from_file", "from_dict")
SUPERCELLS = ([2, 1, 1], [1, 2, 1], [1, 1, 2])
_channel = {"fd": 2, "token": "", "mode": "setting", "active": True}
_counts = {"structures": 0, "unperturbed": 0}


def finish():
    """The closing report: structures built, and how many were not re-described."""
    _emit(
        f"done: {_counts['structures']} structures built, {_counts['unperturbed']} not re-described"
    )


def _redescribe(structure, what):
    """Change `structure` in place into an equivalent description (per the mode)."""
    mode = _channel["mode"]
    if mode == "none":
        return
    _counts["structures"] += 1
    from pymatgen.core import Structure

    if not isinstance(structure, Structure):  # immutable: cannot be changed in place
        _counts["unperturbed"] += 1
        _emit(f"unperturbed: {what} returned an immutable {type(structure).__name__}")
        return
    rng = random.Random(f"{SEED}:{_counts['structures']}")
    if mode == "supercell":
        structure.make_supercell(rng.choice(SUPERCELLS))
    n = len(structure)
    order = list(range(n))
    while n > 1 and order == list(range(n)):
        rng.shuffle(order)
    sites = list(structure.sites)
    for i, j in enumerate(order):
        structure._sites[i] = sites[j]
    shift = [rng.uniform(0.05, 0.95) for _ in range(3)]
    structure.translate_sites(list(range(n)), shift, frac_coords=True, to_unit_cell=True)
    kind = "supercell, " if mode == "supercell" else ""
    _emit(f"applied: {what}: {kind}{n} sites permuted, origin shifted")


def _wrap_factory(fn, name):
    def wrapper(cls, *args, **kwargs):
        out = fn(cls, *args, **kwargs)
        if _from_script():
            _redescribe(out, f"Structure.{name}")
        return out

    return _like(fn, wrapper)


def _wrap_init(fn):
    def wrapper(self, *args, **kwargs):
        fn(self, *args, **kwargs)
        if _from_script():
            _redescribe(self, "Structure(...)")

    return _like(fn, wrapper)


def _wrap_reader(fn, what):
    def wrapper(*args, **kwargs):
        if _from_script() and _channel["mode"] != "none":
            _counts["unperturbed"] += 1
            _emit(f"unperturbed: {what} reads structures the check does not re-describe")
        return fn(*args, **kwargs)

    return _like(fn, wrapper)


def install(token="", mode="setting"):
    """Wrap the constructors and factories; report the readers the check cannot see into."""
    _channel["token"] = token
    _channel["mode"] = mode
    _channel["active"] = mode != "none"  # the sham reports nothing
    with contextlib.suppress(OSError):
        _channel["fd"] = os.dup(2)  # private: the script's stderr redirections miss it
    try:
        from pymatgen.core import structure as ps
    except ImportError:
        return
    for cls in (ps.IStructure, ps.Structure):
        for name in FACTORIES:
            original = cls.__dict__.get(name)
            if isinstance(original, classmethod):
                setattr(cls, name, classmethod(_wrap_factory(original.__func__, name)))
    ps.Structure.__init__ = _wrap_init(ps.Structure.__init__)
    with contextlib.suppress(ImportError, AttributeError):
        from pymatgen.io.cif import CifParser

        for name in ("parse_structures", "get_structures"):
            if name in CifParser.__dict__:
                setattr(
                    CifParser, name, _wrap_reader(CifParser.__dict__[name], f"CifParser.{name}")
                )
    with contextlib.suppress(ImportError, AttributeError):
        from pymatgen.io.vasp.inputs import Poscar

        for name in ("from_file", "from_str"):
            original = Poscar.__dict__.get(name)
            if isinstance(original, classmethod):
                setattr(
                    Poscar, name, classmethod(_wrap_reader(original.__func__, f"Poscar.{name}"))
                )
