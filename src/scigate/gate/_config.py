"""`LoopConfig`: what defines a ToolGate run, each numeric setting's range declared once.

The ranges (`Field(ge=..., le=...)`) are the library's: a record outside them is refused
with one line naming the field (`scigate._bounds`); the CLI reads the same declarations
for its flags' checks and help. This module imports nothing heavy, so the CLI can.
"""

from __future__ import annotations

import os

from pydantic import Field

from scigate._bounds import Bounded, check_bounds
from scigate.errors import BadInput, BadValue

#: Token Jaccard similarity at or above which a question is a near duplicate (the paper's).
NEAR_DUPLICATE_JACCARD = 0.7
#: The longest a single run, episode or model call may be given (s): beyond it, work hangs.
WEEK = 7 * 24 * 3600.0


class LoopConfig(Bounded):
    """Everything that defines a ToolGate run (stored with the run for reproducibility)."""

    domain: str = "fenicsx"
    generator: str = "templates"
    screens: list[str] = Field(default_factory=list)
    solver: str | None = None
    solver_cmd: str | None = None
    #: 0 is a run with no new rounds (a resume that only finishes the started ones)
    rounds: int = Field(10, ge=0, le=100_000)
    seed: int = Field(0, ge=0, le=2**63 - 1)
    calls: int = Field(3, ge=1, le=1_000)  # model calls per screen
    early_stop: bool = True
    verify_timeout: float = Field(300.0, gt=0, le=WEEK)
    solve_time_limit: float = Field(300.0, gt=0, le=WEEK)
    solver_max_steps: int = Field(40, ge=1, le=100_000)
    solver_max_tokens: int = Field(500_000, ge=1, le=1_000_000_000)
    generator_time_limit: float = Field(300.0, gt=0, le=WEEK)
    concurrency: int = Field(4, ge=1, le=1_024)  # rounds in flight
    fem_workers: int = Field(default_factory=lambda: max(1, os.cpu_count() or 1), ge=1, le=1_024)
    families: list[str] | None = None
    seeds_in_prompt: int = Field(5, ge=0, le=1_000)  # the paper's five expert seeds
    rotate_seeds: bool = False
    #: token Jaccard similarity to a survivor that rejects a question (0: no rejection)
    near_duplicate: float = Field(NEAR_DUPLICATE_JACCARD, ge=0, le=1)
    all_verified: bool = False  # rescreen: every verified candidate, not only the survivors
    #: gate 1b: the domain's semantic checks after verification (see `_invariance`)
    invariance: bool = True
    #: > 1 adds the MPI check (every rank prints the serial value) to gate 1b; 1: off
    mpi_ranks: int = Field(1, ge=1, le=64)

    @property
    def has_solver(self) -> bool:
        """Whether a tool-enabled solver (gate 3) is configured."""
        return bool(self.solver or self.solver_cmd)

    def check(self) -> None:
        """Reject impossible settings with one clear line naming the field."""
        check_bounds(self)  # also after a field was assigned (resume sets `rounds`)
        if self.solver and self.solver_cmd:
            raise BadInput("give at most one of solver and solver_cmd")
        if len(set(self.screens)) != len(self.screens):
            twice = next(s for s in self.screens if self.screens.count(s) > 1)
            raise BadInput(f"the same screen is given twice: {twice!r}")

    def validate(self) -> None:  # type: ignore[override]
        """`check`, plus the domain resolves and every model spec is usable: well formed,
        its key, python file or server address present (`scigate.llm.check_spec`), so a
        configuration error is one line before anything is written."""
        from scigate.domains import get_domain
        from scigate.gate._responders import make_responder
        from scigate.llm import check_spec

        self.check()
        domain = get_domain(self.domain)
        if self.generator == "templates" and self.families:
            domain.template_generator(self.seed, families=self.families)  # checks the names
        if self.generator not in ("templates", "rescreen"):
            check_spec(self.generator)
            seeds = len(domain.seed_dirs())
            if self.seeds_in_prompt > seeds:
                raise BadValue(
                    "seeds_in_prompt",
                    f"must be at most the {domain.name} domain's {seeds} seed items, "
                    f"got {self.seeds_in_prompt}",
                )
        for s in self.screens:
            if not s.startswith("cue/"):
                check_spec(s)
            else:
                make_responder(s)
        if self.solver:
            check_spec(self.solver)
