"""The Domain interface: what ToolGate needs to know about a scientific software domain."""

from __future__ import annotations

import sys
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field


class TemplateGenerator(Protocol):
    """Writes complete candidate directories from parametrized families (no LLM)."""

    families: list[str]

    def generate(self, index: int, out_dir: Path) -> Path:
        """Write candidate ``index`` into ``out_dir``; deterministic in seed and index."""
        ...


class SemanticCheck(BaseModel):
    """A perturbation whose effect on the printed answer is known in advance (gate 1b).

    The candidate's script runs again in the sandbox under the perturbation. With
    `expect="same"` (an invariance check) the perturbation cannot change a correct
    computation, and the gate accepts the candidate only if the printed value is unchanged
    at the proposed option's precision. With `expect="changed"` (a dependence check) the
    perturbation changes what the tool computes, and the printed value must differ from
    the unperturbed one at that precision: an answer that stays put did not come from the
    tool. A proposed answer that is an integer (a count: cells, dofs, iterations) is
    exempt from `changed` checks, since scaling computed values need not move it.
    """

    name: str
    description: str
    #: "same": the printed value must not change; "changed": it must
    expect: Literal["same", "changed"] = "same"
    #: Python source run in the script's interpreter before the script (e.g. wrapping a
    #: library's constructors); empty: the script runs as it is
    prelude: str = ""
    #: stderr lines starting with this are the prelude's reports of what it perturbed
    marker: str = ""
    #: Python source run after the script, even when it raises or exits (e.g. the
    #: prelude's closing `done:` report, without which the check decides nothing)
    epilogue: str = ""
    #: more than 1: the script runs under `mpiexec -n mpi_ranks` and every rank must print
    #: the serial value
    mpi_ranks: int = Field(1, ge=1)
    #: the software whose computation the check perturbs, as verdicts name it
    software: str = "the domain software"
    #: a regular expression (case-insensitive) the question must match for the check to
    #: apply; empty: always. A question it does not match gets the outcome `n/a` (neither
    #: a pass nor a fail) with the reason `not_applicable`
    applies_if: str = ""
    not_applicable: str = "the check does not apply to this question"


class Domain(ABC):
    """A domain pack: environment check, guide, seeds, examples and a template generator."""

    name: str
    solution_timeout: float = 300.0
    workspace_note: str = ""
    preload: tuple[str, ...] = ()
    """Modules a warm sandbox server imports once for this domain's Python runs (solution
    scripts, the agent's run_python); empty: every run starts a fresh interpreter."""

    @property
    def python(self) -> str:
        """Interpreter that runs solution scripts of this domain."""
        return sys.executable

    def semantic_checks(self, *, mpi_ranks: int = 1) -> list[SemanticCheck]:
        """The domain's invariance checks; `mpi_ranks` > 1 adds the MPI check (opt-in)."""
        return [mpi_check(mpi_ranks)] if mpi_ranks > 1 else []

    @property
    def mpiexec(self) -> str | None:
        """The MPI launcher next to the domain interpreter (the venv's MPICH), if any."""
        import shutil

        beside = Path(self.python).with_name("mpiexec")
        return str(beside) if beside.is_file() else shutil.which("mpiexec")

    @abstractmethod
    def check_environment(self) -> dict[str, Any]:
        """Which packages import (with versions) and whether a tiny computation works."""

    @abstractmethod
    def guide(self) -> str:
        """The domain guide given to an LLM generator."""

    @abstractmethod
    def seed_dirs(self) -> list[Path]:
        """Expert-written seed candidate directories."""

    @abstractmethod
    def example_dirs(self) -> list[Path]:
        """Worked-example candidate directories (regression items)."""

    @abstractmethod
    def template_generator(
        self, seed: int = 0, families: Sequence[str] | None = None
    ) -> TemplateGenerator:
        """A template generator for this domain (over `families`, default all)."""


def candidate_dirs(root: Path) -> list[Path]:
    """Sorted sub-directories of ``root`` that hold a question.md."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if (p / "question.md").is_file())


def mpi_check(ranks: int) -> SemanticCheck:
    """The script on `ranks` MPI processes: every rank must print the serial value."""
    return SemanticCheck(
        name=f"mpi-{ranks}-ranks",
        description=f"the script on {ranks} MPI ranks; every rank prints the serial value",
        mpi_ranks=ranks,
    )
