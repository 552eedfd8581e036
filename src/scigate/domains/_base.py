"""The Domain interface: what ToolGate needs to know about a scientific software domain."""

from __future__ import annotations

import sys
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol


class TemplateGenerator(Protocol):
    """Writes complete candidate directories from parametrized families (no LLM)."""

    families: list[str]

    def generate(self, index: int, out_dir: Path) -> Path:
        """Write candidate ``index`` into ``out_dir``; deterministic in seed and index."""
        ...


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
