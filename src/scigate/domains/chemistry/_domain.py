"""Chemistry domain: environment probe, guide, seeds, template generator and gate-1b checks."""

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
for name in ("rdkit", "numpy"):
    try:
        module = importlib.import_module(name)
        report["packages"][name] = {"ok": True, "version": getattr(module, "__version__", None)}
    except Exception as exc:
        report["packages"][name] = {"ok": False, "error": "%s: %s" % (type(exc).__name__, exc)}
try:
    start = time.perf_counter()
    from rdkit import Chem
    from rdkit.Chem import Descriptors
    value = Descriptors.ExactMolWt(Chem.MolFromSmiles("CC(=O)Oc1ccccc1C(=O)O"))
    report["solve"] = {"ok": abs(value - 180.042259) < 1e-5, "value": value,
                       "seconds": round(time.perf_counter() - start, 3)}
except Exception as exc:
    report["solve"] = {"ok": False, "error": "%s: %s" % (type(exc).__name__, exc)}
print(json.dumps(report))
"""


def _preludes(*, scale: bool) -> str:
    """Both hooks with the run's token: atoms renumbered, and RDKit's values scaled
    (`scale`) or the scaling hook as its sham."""
    return (
        '_scigate_token = globals().pop("_SCIGATE_TOKEN", "")\n'
        + hook_prelude(HERE, "_scigate_renumber", "_renumber_hook.py", "_scigate_token")
        + hook_prelude(
            HERE,
            "_scigate_dependence",
            "_dependence_hook.py",
            f"_scigate_token, {scale}",
            dependence=True,
        )
        + "del _scigate_token\n"
    )


class ChemistryDomain(Domain):
    """RDKit cheminformatics: masses, charges, descriptors, substructure selections."""

    name = "chemistry"
    solution_timeout = 120.0
    preload = ("rdkit.Chem", "rdkit.Chem.AllChem", "rdkit.Chem.Descriptors")
    workspace_note = (
        "The workspace has Python with RDKit (rdkit.Chem, AllChem, Descriptors, Crippen, "
        "rdMolDescriptors, MolStandardize.rdMolStandardize, the MMFF and UFF force fields) "
        "and numpy. Open Babel, mordred and network access are not available."
    )

    def semantic_checks(self, *, mpi_ranks: int = 1) -> list[SemanticCheck]:
        """Atoms renumbered (every parsed molecule re-read from a randomised SMILES), then
        every value RDKit computes scaled. MPI does not apply to RDKit scripts."""
        renumber = SemanticCheck(
            name="renumbered-atoms",
            description="the same script with every molecule it parses re-read from a "
            "randomised SMILES, so every atom index changes",
            prelude=_preludes(scale=False),
            marker="scigate-invariance:",
            epilogue="_scigate_renumber['finish']()\n",
        )
        dependence = SemanticCheck(
            name="rdkit-dependence",
            software="RDKit",
            description="the same script with every value RDKit computes for it (masses, "
            "charges, descriptors, atom contributions, energies) scaled by a factor of "
            "its own; an answer computed from them must change",
            expect="changed",
            prelude=_preludes(scale=True),
            marker="scigate-dependence:",
            epilogue="_scigate_dependence['finish']()\n",
        )
        return [renumber, dependence]

    def check_environment(self) -> dict[str, Any]:
        """Probe the domain interpreter in a subprocess (RDKit never loads in the caller)."""
        return probe_environment(self.python, _PROBE, needed=("rdkit",))

    def guide(self) -> str:
        """The chemistry domain guide (markdown)."""
        return (HERE / "guide.md").read_text()

    def seed_dirs(self) -> list[Path]:
        """The five expert seed items."""
        return candidate_dirs(HERE / "seeds")

    def example_dirs(self) -> list[Path]:
        """No worked examples beyond the seeds."""
        return []

    def template_generator(self, seed: int = 0, families: Sequence[str] | None = None):
        """Template generator over the chemistry families (all of them by default)."""
        from .templates import template_generator

        return template_generator(seed, families, python=self.python, timeout=self.solution_timeout)
