"""Materials domain: environment probe, guide, seeds, template generator and gate-1b checks."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._base import Domain, SemanticCheck, candidate_dirs
from .._probe import probe_environment
from .._semantic import hook_prelude

HERE = Path(__file__).parent

# Runs in the domain interpreter: which packages import, their versions, and a tiny computation.
_PROBE = r"""
import importlib, json, sys, time
report = {"python": sys.version.split()[0], "packages": {}}
for name in ("pymatgen.core", "spglib", "numpy", "scipy"):
    try:
        module = importlib.import_module(name)
        report["packages"][name] = {"ok": True, "version": getattr(module, "__version__", None)}
    except Exception as exc:
        report["packages"][name] = {"ok": False, "error": "%s: %s" % (type(exc).__name__, exc)}
try:
    start = time.perf_counter()
    from pymatgen.core import Lattice, Structure
    s = Structure.from_spacegroup("Fm-3m", Lattice.cubic(5.64), ["Na", "Cl"],
                                  [[0, 0, 0], [0.5, 0.5, 0.5]])
    report["solve"] = {"ok": len(s) == 8 and abs(s.density - 2.1685) < 1e-3,
                       "value": s.density, "seconds": round(time.perf_counter() - start, 3)}
except Exception as exc:
    report["solve"] = {"ok": False, "error": "%s: %s" % (type(exc).__name__, exc)}
print(json.dumps(report))
"""


def _preludes(mode: str, *, scale: bool) -> str:
    """Both hooks with the run's token: every structure re-described (`mode`: "setting"
    permutes sites and shifts the origin, "supercell" also makes an equivalent supercell,
    "none" changes nothing), and pymatgen's values scaled (`scale`) or the sham."""
    return (
        '_scigate_token = globals().pop("_SCIGATE_TOKEN", "")\n'
        + hook_prelude(HERE, "_scigate_setting", "_setting_hook.py", f"_scigate_token, {mode!r}")
        + hook_prelude(
            HERE,
            "_scigate_dependence",
            "_dependence_hook.py",
            f"_scigate_token, {scale}",
            dependence=True,
        )
        + "del _scigate_token\n"
    )


class MaterialsDomain(Domain):
    """pymatgen crystal structures: diffraction, electrostatics, bond valence, Voronoi."""

    name = "materials"
    solution_timeout = 120.0
    preload = (
        "pymatgen.core",
        "pymatgen.analysis.diffraction.xrd",
        "pymatgen.analysis.ewald",
        "pymatgen.analysis.bond_valence",
        "pymatgen.analysis.local_env",
    )
    workspace_note = (
        "The workspace has Python with pymatgen (pymatgen.core Structure/Lattice, "
        "analysis.diffraction.xrd, analysis.ewald, analysis.bond_valence, "
        "analysis.local_env, symmetry.analyzer with spglib), numpy and scipy. There is no "
        "network access (no Materials Project API); build structures from the question."
    )

    def semantic_checks(self, *, mpi_ranks: int = 1) -> list[SemanticCheck]:
        """Sites permuted and origin shifted; an equivalent supercell; pymatgen's values
        scaled. MPI does not apply to pymatgen scripts."""
        setting = SemanticCheck(
            name="permuted-sites",
            description="the same script with every structure it builds described in "
            "another equivalent way: sites in another order, origin shifted",
            prelude=_preludes("setting", scale=False),
            marker="scigate-invariance:",
            epilogue="_scigate_setting['finish']()\n",
        )
        supercell = SemanticCheck(
            name="equivalent-supercell",
            description="the same script with every structure it builds replaced by an "
            "equivalent supercell; an intensive answer (per formula unit, per site, "
            "relative) cannot change",
            prelude=_preludes("supercell", scale=False),
            marker="scigate-invariance:",
            epilogue="_scigate_setting['finish']()\n",
        )
        dependence = SemanticCheck(
            name="pymatgen-dependence",
            software="pymatgen",
            description="the same script with every value pymatgen computes for it "
            "(diffraction patterns, Ewald energies, bond-valence sums, Voronoi volumes, "
            "densities, distances) scaled by a factor of its own; an answer computed from "
            "them must change",
            expect="changed",
            prelude=_preludes("setting", scale=True),
            marker="scigate-dependence:",
            epilogue="_scigate_dependence['finish']()\n",
        )
        return [setting, supercell, dependence]

    def check_environment(self) -> dict[str, Any]:
        """Probe the domain interpreter in a subprocess (pymatgen never loads in the caller)."""
        return probe_environment(self.python, _PROBE, needed=("pymatgen.core",))

    def guide(self) -> str:
        """The materials domain guide (markdown)."""
        return (HERE / "guide.md").read_text()

    def seed_dirs(self) -> list[Path]:
        """The five expert seed items."""
        return candidate_dirs(HERE / "seeds")

    def example_dirs(self) -> list[Path]:
        """No worked examples beyond the seeds."""
        return []

    def template_generator(self, seed: int = 0, families: Sequence[str] | None = None):
        """Template generator over the materials families (all of them by default)."""
        from .templates import template_generator

        return template_generator(seed, families, python=self.python, timeout=self.solution_timeout)
