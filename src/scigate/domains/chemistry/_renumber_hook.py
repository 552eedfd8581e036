"""Inside the sandbox only: every molecule the script parses comes back with its atoms in
another order, as if the question's SMILES had been written as a randomised SMILES.

This file is not imported by scigate: the gate executes its text in a namespace of its own
at the head of the runner it writes into the workspace, then calls `install(token)`.
`install` wraps RDKit's molecule parsers `MolFromSmiles`, `MolFromMolBlock` and
`MolFromInchi` wherever a loaded `rdkit` module holds them: the parsed molecule is
renumbered by a random permutation, written as a non-canonical SMILES (a randomised
SMILES: another start atom, another traversal) and parsed again with the script's own
arguments. The molecule is the same (atoms, bonds, charges, isotopes, stereo); what changes
is the order of its atoms and therefore every atom index. A correct script prints the same
value; one that reads "atom 3" or depends on input order does not. A permutation that the
canonical ranking shows to leave the order unchanged is retried under another seed.

The check fails closed: a molecule built through another parser (a Mol file, PDB, XYZ,
sequence, supplier) is reported `unperturbed:`, and `finish()` (run after the script)
reports `done:` last. Reports carry the run's token and go to a private copy of the
stderr descriptor, as for the FEniCSx hooks.
"""

import contextlib
import os
import random
import sys

# shared helpers: hook_prelude runs _hook_common.py first in this namespace
_from_script = globals()["_from_script"]
_like = globals()["_like"]
_emit = globals()["_emit"]

MARKER = "scigate-invariance:"
SEEDS = (20261204, 1, 2, 3, 5, 8, 13, 21)
WRAPPED = ("MolFromSmiles", "MolFromMolBlock", "MolFromInchi")
OTHERS = (
    "MolFromMolFile",
    "MolFromMol2Block",
    "MolFromMol2File",
    "MolFromPDBBlock",
    "MolFromPDBFile",
    "MolFromXYZBlock",
    "MolFromXYZFile",
    "MolFromSequence",
    "MolFromFASTA",
    "MolFromHELM",
    "MolFromTPLBlock",
    "MolFromPNGString",
    "JSONToMols",
    "SDMolSupplier",
    "SmilesMolSupplier",
    "ForwardSDMolSupplier",
    "MaeMolSupplier",
)
_channel = {"fd": 2, "token": ""}
_counts = {"molecules": 0, "unperturbed": 0}


def finish():
    """The closing report: molecules parsed, and how many were not renumbered."""
    _emit(f"done: {_counts['molecules']} molecules parsed, {_counts['unperturbed']} not renumbered")


def _order(chem, mol):
    return list(chem.CanonicalRankAtoms(mol, breakTies=True))


def _renumbered(chem, fn, mol, args, kwargs):
    """`mol` re-parsed from a randomised SMILES (or renumbered, when that cannot be
    written); None when every seed left the atom order as it was."""
    n = mol.GetNumAtoms()
    before = _order(chem, mol)
    for seed in SEEDS:
        perm = list(range(n))
        random.Random(seed).shuffle(perm)
        shuffled = chem.RenumberAtoms(mol, perm)
        try:
            smiles = chem.MolToSmiles(shuffled, canonical=False, isomericSmiles=True)
            fresh = fn(smiles, *args[1:], **kwargs) if fn.__name__ == "MolFromSmiles" else None
        except Exception:
            fresh = None
        if fresh is None or fresh.GetNumAtoms() != n:
            fresh = shuffled
        if _order(chem, fresh) != before:
            return fresh
    return None


def install(token=""):
    """Wrap the parsers in every loaded rdkit module; report other molecule sources."""
    _channel["token"] = token
    with contextlib.suppress(OSError):
        _channel["fd"] = os.dup(2)  # private: the script's stderr redirections miss it
    try:
        from rdkit import Chem
        from rdkit.Chem import AllChem  # noqa: F401  (its aliases are swept too)
    except ImportError:
        return

    def wrap(fn):
        def wrapper(*args, **kwargs):
            mol = fn(*args, **kwargs)
            if mol is None or not _from_script():
                return mol
            _counts["molecules"] += 1
            if mol.GetNumAtoms() < 2:
                _emit(f"skipped: a molecule of {mol.GetNumAtoms()} atom(s) has one order")
                return mol
            try:
                fresh = _renumbered(Chem, fn, mol, args, kwargs)
            except Exception as exc:
                _counts["unperturbed"] += 1
                _emit(f"unperturbed: {fn.__name__} could not be renumbered ({type(exc).__name__})")
                return mol
            if fresh is None:
                _emit("skipped: the molecule kept its atom order under every seed")
                return mol
            _emit(f"applied: {fn.__name__} atoms renumbered ({mol.GetNumAtoms()} atoms)")
            return fresh

        return _like(fn, wrapper)

    def reported(fn):
        def wrapper(*args, **kwargs):
            if _from_script():
                _counts["unperturbed"] += 1
                _emit(f"unperturbed: {fn.__name__} builds molecules the check does not renumber")
            return fn(*args, **kwargs)

        return _like(fn, wrapper)

    replace = {}
    for name in WRAPPED:
        fn = getattr(Chem, name, None)
        if fn is not None:
            replace[id(fn)] = (fn, wrap(fn))
    for name in OTHERS:
        fn = getattr(Chem, name, None)
        if fn is not None:
            replace[id(fn)] = (fn, reported(fn))
    for modname, module in list(sys.modules.items()):
        if module is None or not modname.startswith("rdkit"):
            continue
        for attr, value in list(getattr(module, "__dict__", {}).items()):
            hit = replace.get(id(value))
            if hit is not None and hit[0] is value:
                with contextlib.suppress(AttributeError, TypeError):
                    setattr(module, attr, hit[1])
