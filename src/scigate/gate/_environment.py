"""The software and isolation a run worked under, recorded with the run and in a release."""

from __future__ import annotations

import platform
from importlib import metadata
from typing import Any

from scigate import __version__

#: Distributions whose versions decide what a solution script or a solver computes.
PACKAGES = (
    "dolfinx-solver-real",
    "fenics-basix",
    "fenics-ffcx",
    "fenics-ufl",
    "mpi4py",
    "petsc4py",
    "rdkit",
    "pymatgen",
    "numpy",
    "openai",
    "anthropic",
    "inspect_ai",
)


def run_environment() -> dict[str, Any]:
    """Versions of scigate, Python and the domain software, and the sandbox's isolation mode.

    Reads installed package metadata only (no heavy import); the isolation probe is the
    sandbox's own, cached for the process.
    """
    from scigate.sandbox import bwrap_status, unisolated_allowed

    versions: dict[str, str] = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    prefix, note = bwrap_status()
    if prefix:
        mode = "bwrap"
    elif unisolated_allowed():
        mode = "unisolated (allowed)"
    else:
        mode = "unavailable (untrusted runs refused)"
    return {
        "scigate": __version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": versions,
        "isolation": {"mode": mode, "note": note},
    }
