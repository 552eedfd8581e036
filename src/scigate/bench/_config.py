"""`BuildConfig`: what one `bench build` makes, each numeric setting's range declared once.

The ranges are the library's: a record outside them is refused with one line naming the
field (`scigate._bounds`); the CLI reads the same declarations for its flags' checks and
help. This module imports nothing heavy, so the CLI can.
"""

from __future__ import annotations

from typing import Annotated

from annotated_types import Interval
from pydantic import Field

from scigate._bounds import Bounded

#: The task formats, in the order of a build's cells.
FORMATS = ("question & answer", "multiple choice", "content completion", "true/false")
DOMAINS = ("chemistry", "biology", "materials")
#: The largest build one run makes, and the most attempts in flight (beyond, work hangs).
MAX_TASKS = 1_000_000
MAX_BATCH = 1_024


class BuildConfig(Bounded):
    """What one build makes; each numeric setting's range declared once, here (the CLI's
    flags read the same declarations for their checks and help)."""

    n: int = Field(ge=1, le=MAX_TASKS)
    levels: list[Annotated[int, Interval(ge=1, le=4)]] = Field(
        default_factory=lambda: [1, 2, 3, 4], min_length=1
    )
    formats: list[str] = Field(default_factory=lambda: list(FORMATS))
    domains: list[str] = Field(default_factory=lambda: list(DOMAINS))
    generator: str = "templates"
    screens: list[str] = Field(default_factory=list)
    solver: str | None = None  # model spec of the agent that must solve each task
    solver_method: str = "react"
    judge: str | None = None  # model spec of the Appendix D sample-quality judge
    screen_calls: int = Field(3, ge=1, le=1_000)  # model calls per screen
    seed: int = Field(0, ge=0, le=2**63 - 1)
    #: default 25 per task
    max_attempts: int | None = Field(None, ge=1, le=25 * MAX_TASKS)
    #: token Jaccard at which a question is a near duplicate
    similarity: float = Field(0.9, ge=0, le=1)
    batch: int = Field(1, ge=1, le=MAX_BATCH)  # attempts in flight (1: the sequential build)
    #: relative distance of every threshold from every candidate's value
    margin: float = Field(0.02, ge=0, le=1)
    checks: bool = True  # the acceptance checks (_compose.CHECKS); off only to measure them


__all__ = ["DOMAINS", "FORMATS", "MAX_BATCH", "MAX_TASKS", "BuildConfig"]
