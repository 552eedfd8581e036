"""Template generator: parametrized FEniCSx families with computed distractors.

For candidate ``index`` of a run with ``seed`` the generator draws parameters for the
family ``families[index % len(families)]``, computes the correct value and the values of
realistic mistakes with the same rendered script (one warm worker process), picks three
distractors so that the correct value lands at the scheduled value rank, places it at
the scheduled letter and writes the candidate directory. The self-check, that the saved
``solution.py`` prints the proposed option, uses the warm worker's run of the very source
that is saved (its printed line), not a second run in a fresh interpreter: gate 1 runs
the saved script in a fresh sandboxed process anyway, so a fresh run here would repeat
it (it was three quarters of the generation time). ``fresh_check=True`` restores the
fresh-interpreter run, e.g. for candidates written outside a gate run.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scigate._tmp import scigate_tempdir
from scigate.errors import BadInput, ScigateError
from scigate.sandbox import copy_tree

from ._families import FAMILIES, get_family, render
from ._runner import ScriptWorker
from ._schedule import LETTERS, schedule

GENERATOR_ID = "scigate.fenicsx.templates/1"
MAX_ATTEMPTS = 8


def format_value(value: float, decimals: int) -> str:
    """``value`` with exactly ``decimals`` decimals; a rounded zero never carries a sign."""
    text = f"{value:.{decimals}f}"
    return text.lstrip("-") if float(text) == 0 else text


def near_rounding_tie(value: float, decimals: int, margin: float = 1e-3) -> bool:
    """True when ``value`` is so close to a rounding tie that platforms could print it differently."""
    scaled = abs(value) * 10**decimals
    return abs(scaled - math.floor(scaled) - 0.5) < margin


@dataclass
class _Pool:
    """Distractor values computed so far for one parameter set, keyed by mistake label."""

    correct: str
    values: dict[str, str] = field(default_factory=dict)

    def add(self, label: str, text: str) -> None:
        if text != self.correct and text not in self.values.values():
            self.values[label] = text

    def pick(self, rank: int, rng: random.Random) -> list[tuple[str, str]] | None:
        """Three (mistake, value) pairs putting the correct value at ``rank``, or None."""
        v = float(self.correct)
        below = sorted((k, t) for k, t in self.values.items() if float(t) < v)
        above = sorted((k, t) for k, t in self.values.items() if float(t) > v)
        if len(below) < rank - 1 or len(above) < 4 - rank:
            return None
        return rng.sample(below, rank - 1) + rng.sample(above, 4 - rank)


class TemplateGenerator:
    """Writes template candidates; deterministic in (seed, index)."""

    def __init__(
        self,
        seed: int = 0,
        families: Sequence[str] | None = None,
        *,
        python: str = sys.executable,
        timeout: float = 300.0,
        check_solution: bool = True,
        fresh_check: bool = False,
    ):
        self.seed = seed
        self.families = list(families) if families is not None else list(FAMILIES)
        if not self.families:
            raise BadInput("at least one template family is needed")
        for name in self.families:
            get_family(name)
        self.python = python
        self.timeout = timeout
        self.check_solution = check_solution
        self.fresh_check = fresh_check
        self.worker = ScriptWorker(python, timeout)
        self.scripts_run = 0

    def __enter__(self) -> TemplateGenerator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the worker process."""
        self.worker.close()

    def family_for(self, index: int) -> str:
        """The family used for candidate ``index``."""
        return self.families[index % len(self.families)]

    def _value(self, family: str, params: dict[str, Any], mistakes: frozenset[str]) -> str | None:
        self.scripts_run += 1
        result = self.worker.run(render(family, params, mistakes))
        if not result.ok or not math.isfinite(result.value):
            return None
        return format_value(result.value, params["decimals"])

    def _rng(self, index: int, attempt: int) -> random.Random:
        family = self.family_for(index)
        return random.Random(f"scigate-template:{self.seed}:{index}:{family}:{attempt}")

    def questions(self, index: int) -> list[str]:
        """The question of every parameter draw candidate ``index`` may use, in attempt
        order (no script runs): its question is one of these, whichever draw succeeds."""
        module = get_family(self.family_for(index))
        return [
            module.question(module.draw_params(self._rng(index, a))) for a in range(MAX_ATTEMPTS)
        ]

    def generate(self, index: int, out_dir: Path) -> Path:
        """Write candidate ``index`` into ``out_dir`` (created) and return it."""
        family = self.family_for(index)
        rank, letter = schedule(self.seed, index)
        module = get_family(family)
        for attempt in range(MAX_ATTEMPTS):
            rng = self._rng(index, attempt)
            params = module.draw_params(rng)
            chosen = self._choose(family, params, rank, rng)
            if chosen is None:
                continue
            correct, picked, evaluated, printed = chosen
            return self._write(
                Path(out_dir),
                family=family,
                params=params,
                correct=correct,
                printed=printed,
                picked=picked,
                rank=rank,
                letter=letter,
                rng=rng,
                meta_extra={
                    "seed": self.seed,
                    "index": index,
                    "attempt": attempt,
                    "evaluated": evaluated,
                },
            )
        raise ScigateError(
            f"{family}: no parameter set in {MAX_ATTEMPTS} attempts put the answer at rank {rank}"
        )

    def _choose(
        self, family: str, params: dict[str, Any], rank: int, rng: random.Random
    ) -> tuple[str, list[tuple[str, str]], dict[str, str | None], str] | None:
        """Correct value, three distractors at the scheduled rank, what was evaluated and
        the line the solution's source printed in the worker; or None to redraw."""
        module = get_family(family)
        value = self.worker.run(render(family, params))
        self.scripts_run += 1
        decimals = params["decimals"]
        if not value.ok or not math.isfinite(value.value):
            return None
        if near_rounding_tie(value.value, decimals) or abs(value.value) < 10 ** (2 - decimals):
            return None
        pool = _Pool(format_value(value.value, decimals))
        evaluated: dict[str, str | None] = {}
        kinds = module.applicable(params)
        singles = rng.sample(kinds, len(kinds))
        pairs = [f"{a}+{b}" for a, b in itertools.combinations(sorted(kinds), 2)]
        pairs = rng.sample(pairs, len(pairs))[: 2 * len(kinds)]
        for label in singles + pairs:
            text = self._value(family, params, frozenset(label.split("+")))
            evaluated[label] = text
            if text is not None:
                pool.add(label, text)
            picked = pool.pick(rank, rng) if len(evaluated) >= min(len(singles), 5) else None
            if picked is not None:
                return pool.correct, picked, evaluated, value.printed
        return None

    def _write(
        self,
        out: Path,
        *,
        family: str,
        params: dict[str, Any],
        correct: str,
        printed: str,
        picked: list[tuple[str, str]],
        rank: int,
        letter: str,
        rng: random.Random,
        meta_extra: dict[str, Any],
        generator: str = GENERATOR_ID,
    ) -> Path:
        module = get_family(family)
        others = [c for c in LETTERS if c != letter]
        placed = rng.sample(picked, 3)
        options = {letter: correct} | {c: t for c, (_, t) in zip(others, placed, strict=True)}
        options = {c: options[c] for c in LETTERS}
        distractors = [
            {
                "letter": c,
                "mistake": label,
                "description": "; ".join(module.MISTAKES[k] for k in label.split("+")),
                "value": t,
            }
            for c, (label, t) in zip(others, placed, strict=True)
        ]
        value_rank = sorted(float(t) for t in options.values()).index(float(correct)) + 1
        if value_rank != rank or len(set(options.values())) != 4:
            raise ScigateError("internal error: option placement broke the schedule")
        meta = {
            "domain": "fenicsx",
            "family": family,
            "generator": generator,
            **meta_extra,
            "params": params,
            "answer": {"letter": letter, "value": correct},
            "letter": letter,
            "value_rank": value_rank,
            "distractors": distractors,
        }
        out.mkdir(parents=True, exist_ok=True)
        (out / "question.md").write_text(module.question(params) + "\n")
        (out / "options.json").write_text(json.dumps(options, indent=2) + "\n")
        (out / "answer.txt").write_text(letter + "\n")
        (out / "solution.py").write_text(render(family, params))
        (out / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
        if self.check_solution:
            if self.fresh_check:
                printed = run_solution(out, self.python, self.timeout)
            if printed != correct:
                raise ScigateError(
                    f"{out}: solution.py printed {printed!r} but the worker computed {correct!r}"
                )
        return out

    def write_candidate(
        self,
        family: str,
        params: dict[str, Any],
        rank: int,
        letter: str,
        out_dir: Path,
        *,
        rng_key: str,
        generator: str = GENERATOR_ID,
        meta_extra: dict[str, Any] | None = None,
    ) -> Path:
        """Write a candidate for fixed ``params`` (seed items); raises if ``rank`` is unreachable."""
        rng = random.Random(rng_key)
        chosen = self._choose(family, params, rank, rng)
        if chosen is None:
            raise ScigateError(f"{family}: these parameters cannot put the answer at rank {rank}")
        correct, picked, evaluated, printed = chosen
        return self._write(
            Path(out_dir),
            family=family,
            params=params,
            correct=correct,
            printed=printed,
            picked=picked,
            rank=rank,
            letter=letter,
            rng=rng,
            meta_extra={**(meta_extra or {}), "evaluated": evaluated},
            generator=generator,
        )


def run_solution(candidate: Path, python: str = sys.executable, timeout: float = 300.0) -> str:
    """Run ``solution.py`` in a fresh copy without answer.txt; return its single printed line."""
    with scigate_tempdir("check") as tmp:
        copy = Path(tmp) / "candidate"
        # Regular files and directories only, nothing followed (scigate.sandbox._hostfs).
        copy_tree(candidate, copy, exclude=("answer.txt",), what="candidate file")
        proc = subprocess.run(
            [python, "solution.py"],
            cwd=copy,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    if proc.returncode != 0 or len(lines) != 1:
        raise ScigateError(
            f"{candidate}: solution.py exited {proc.returncode} with {len(lines)} lines; "
            f"stderr tail: {proc.stderr[-500:]}"
        )
    return lines[0].strip()
