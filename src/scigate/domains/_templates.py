"""Computed template families for any domain (chemistry, materials): the FEniCSx machinery
made generic in the family set, the domain name and the modules the worker preloads.

A family is a module with ``NAME``, ``TEMPLATE`` (a Jinja file next to it), ``MISTAKES``
(kind -> description), ``draw_params(rng)``, ``applicable(params)``, ``context(params,
mistakes)`` and ``question(params)``. The correct value and every distractor come from
the same template: a mistake only switches a branch of the rendered script. For
candidate ``index`` the generator draws parameters for ``families[index % len]``, computes
the correct value and realistic mistakes in one warm worker, picks three distractors that
put the correct value at the scheduled value rank, places it at the scheduled letter
(`fenicsx.templates.schedule`: each rank and letter once per block of four) and checks
that the saved ``solution.py`` prints the proposed option: the warm worker's printed line
of the very source that is saved, as the FEniCSx generator does (gate 1 runs the saved
script in a fresh sandboxed process anyway; a fresh run here repeated it, a new RDKit or
pymatgen interpreter per candidate: chemistry's generation in a 40-round gate run went
from 50.2 to 16.5 s).
``fresh_check=True`` restores the fresh-interpreter run.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import sys
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any

import jinja2

from scigate.errors import BadInput, ScigateError

from .fenicsx.templates import (
    LETTERS,
    ScriptWorker,
    format_value,
    near_rounding_tie,
    run_solution,
    schedule,
)
from .fenicsx.templates import TemplatePool as _Pool

MAX_ATTEMPTS = 8


class FamilySet:
    """The template families of one domain and the rendering of their scripts."""

    def __init__(self, domain: str, modules: Sequence[ModuleType], directory: Path):
        self.domain = domain
        self.families: dict[str, ModuleType] = {m.NAME: m for m in modules}
        self.directory = directory

    def get(self, name: str) -> ModuleType:
        """The family module called ``name`` (BadInput if unknown)."""
        try:
            return self.families[name]
        except KeyError:
            raise BadInput(
                f"unknown {self.domain} template family {name!r}; known: {', '.join(self.families)}"
            ) from None

    @cached_property
    def _env(self) -> jinja2.Environment:
        return jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(self.directory)),
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            undefined=jinja2.StrictUndefined,
            autoescape=False,
        )

    def render(
        self, family: str, params: dict[str, Any], mistakes: frozenset[str] = frozenset()
    ) -> str:
        """Source of the standalone script computing ``family`` at ``params`` with ``mistakes``."""
        module = self.get(family)
        unknown = set(mistakes) - set(module.MISTAKES)
        if unknown:
            raise BadInput(f"unknown mistakes for {family}: {sorted(unknown)}")
        return self._env.get_template(module.TEMPLATE).render(**module.context(params, mistakes))


class ComputedTemplateGenerator:
    """Writes template candidates of one domain; deterministic in (seed, index)."""

    def __init__(
        self,
        family_set: FamilySet,
        *,
        generator_id: str,
        preload: Sequence[str] = (),
        seed: int = 0,
        families: Sequence[str] | None = None,
        python: str = sys.executable,
        timeout: float = 300.0,
        check_solution: bool = True,
        fresh_check: bool = False,
        max_attempts: int = MAX_ATTEMPTS,
    ):
        self.family_set = family_set
        self.max_attempts = max_attempts
        self.generator_id = generator_id
        self.seed = seed
        self.families = list(families) if families is not None else list(family_set.families)
        if not self.families:
            raise BadInput("at least one template family is needed")
        for name in self.families:
            family_set.get(name)
        self.python = python
        self.timeout = timeout
        self.check_solution = check_solution
        self.fresh_check = fresh_check
        self.worker = ScriptWorker(python, timeout, preload=preload, trusted_jit=False)
        self.scripts_run = 0

    def __enter__(self) -> ComputedTemplateGenerator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the worker process."""
        self.worker.close()

    def family_for(self, index: int) -> str:
        """The family used for candidate ``index``."""
        return self.families[index % len(self.families)]

    def questions(self, index: int) -> list[str]:
        """The question of every parameter draw candidate ``index`` may use, in attempt
        order (no script runs): its question is one of these, whichever draw succeeds."""
        module = self.family_set.get(self.family_for(index))
        return [
            module.question(module.draw_params(self._rng(index, a)))
            for a in range(self.max_attempts)
        ]

    def value(self, family: str, params: dict[str, Any], mistakes: frozenset[str]) -> str | None:
        """The printed value of ``family`` at ``params`` with ``mistakes`` (None: failed)."""
        self.scripts_run += 1
        result = self.worker.run(self.family_set.render(family, params, mistakes))
        if not result.ok or not math.isfinite(result.value):
            return None
        return format_value(result.value, params["decimals"])

    def _rng(self, index: int, attempt: int) -> random.Random:
        family = self.family_for(index)
        return random.Random(
            f"scigate-template:{self.family_set.domain}:{self.seed}:{index}:{family}:{attempt}"
        )

    def generate(self, index: int, out_dir: Path) -> Path:
        """Write candidate ``index`` into ``out_dir`` (created) and return it."""
        family = self.family_for(index)
        rank, letter = schedule(self.seed, index)
        module = self.family_set.get(family)
        for attempt in range(self.max_attempts):
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
                letter=letter,
                rank=rank,
                rng=rng,
                meta_extra={
                    "seed": self.seed,
                    "index": index,
                    "attempt": attempt,
                    "evaluated": evaluated,
                },
                generator=self.generator_id,
            )
        raise ScigateError(
            f"{family}: no parameter set in {self.max_attempts} attempts put the answer at rank {rank}"
        )

    def _choose(
        self, family: str, params: dict[str, Any], rank: int, rng: random.Random
    ) -> tuple[str, list[tuple[str, str]], dict[str, str | None], str] | None:
        """Correct value, three distractors at the scheduled rank, what was evaluated and
        the line the solution's source printed in the worker; or None to redraw."""
        module = self.family_set.get(family)
        decimals = params["decimals"]
        self.scripts_run += 1
        result = self.worker.run(self.family_set.render(family, params))
        if not result.ok or not math.isfinite(result.value):
            return None
        if near_rounding_tie(result.value, decimals) or abs(result.value) < 10 ** (1 - decimals):
            return None
        pool = _Pool(format_value(result.value, decimals))
        evaluated: dict[str, str | None] = {}
        kinds = module.applicable(params)
        singles = rng.sample(kinds, len(kinds))
        pairs = [f"{a}+{b}" for a, b in itertools.combinations(sorted(kinds), 2)]
        pairs = rng.sample(pairs, len(pairs))[: 2 * len(kinds)]
        for label in singles + pairs:
            text = self.value(family, params, frozenset(label.split("+")))
            evaluated[label] = text
            if text is not None:
                pool.add(label, text)
            picked = pool.pick(rank, rng) if len(evaluated) >= min(len(singles), 5) else None
            if picked is not None:
                return pool.correct, picked, evaluated, result.printed
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
        generator: str,
    ) -> Path:
        module = self.family_set.get(family)
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
            "domain": self.family_set.domain,
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
        (out / "solution.py").write_text(self.family_set.render(family, params))
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
        generator: str = "expert-seed",
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
