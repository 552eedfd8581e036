"""`bench build`: compose, execute, word, check, screen and keep balanced, deduplicated tasks.

Each attempt targets the (level, format) cell furthest below its quota and the domain
with the fewest accepted tasks that can still make that level. It is recorded in the run
database whatever happens (status `accepted`, `rejected`, or the solver's or the judge's
`unjudged`/`error`, the stage and the reason).
An accepted task is re-derived from its own JSON (`execute_task`) before it is kept, so
`bench verify` re-derives every answer the build writes.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from scigate.bench._answer import FORMATS, Underivable, execute_task, same_answer
from scigate.bench._catalog import given_for
from scigate.bench._compose import Draft, Rejected, compose, sample_subset
from scigate.bench._entities import DOMAIN_KINDS, SINGLE_ONLY, load_entities
from scigate.bench._files import write_tasks
from scigate.bench._judge import Unjudged, judge_task
from scigate.bench._solver import check_solver_method, solve_task, solver_space
from scigate.bench._write import (
    LETTERS,
    Worded,
    _options,
    rule_problems,
    write_llm,
    write_templates,
)
from scigate.errors import BadInput

DOMAINS = ("chemistry", "biology", "materials")
GIVE_UP_AFTER = 8  # consecutive failed attempts before a domain is skipped for a level


class BuildConfig(BaseModel):
    """What one build makes."""

    n: int
    levels: list[int] = Field(default_factory=lambda: [1, 2, 3, 4])
    formats: list[str] = Field(default_factory=lambda: list(FORMATS))
    domains: list[str] = Field(default_factory=lambda: list(DOMAINS))
    generator: str = "templates"
    screens: list[str] = Field(default_factory=list)
    solver: str | None = None  # model spec of the agent that must solve each task
    solver_method: str = "react"
    judge: str | None = None  # model spec of the Appendix D sample-quality judge
    screen_calls: int = 3
    seed: int = 0
    max_attempts: int | None = None  # default 25 per task
    similarity: float = 0.9  # token Jaccard at which a question is a near duplicate


class BuildReport(BaseModel):
    """The build's funnel: attempts, accepted tasks per cell, rejections per stage."""

    run_id: str
    target: int
    accepted: int
    attempts: int
    cells: dict[str, int]
    domains: dict[str, int]
    rejected: dict[str, int]
    out: str
    seconds: float


def _quotas(config: BuildConfig) -> dict[tuple[int, str], int]:
    cells = [(lv, f) for lv in config.levels for f in config.formats]
    base, extra = divmod(config.n, len(cells))
    return {c: base + (1 if i < extra else 0) for i, c in enumerate(cells)}


def _task_id(task: dict[str, Any]) -> str:
    key = json.dumps([task["question"], task["tool_path"], task["Parameter"]], sort_keys=True)
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def _task_json(draft: Draft, fmt: str, worded: Worded, subset: list[str]) -> dict[str, Any]:
    labels = [e.label for e in draft.entities]
    plan: dict[str, Any] = {"rule": draft.rule, "given": given_for(draft.path)}
    if worded.claim is not None:
        plan["claim"] = worded.claim
    task: dict[str, Any] = {
        "question": worded.question,
        "tool_path": draft.path,
        "Parameter": labels[0] if draft.level == 1 else labels,
        "level": draft.level,
        "format": fmt,
        "domain": draft.domain,
        "plan": plan,
    }
    if worded.options:
        task["options"] = worded.options
    executed = execute_task(task)
    task["answer"] = executed.answer
    task["plan"] = {
        **executed.plan,
        "distractors": draft.distractors,
        "subset": subset,
        "entities": {e.label[:80]: e.name for e in draft.entities},
    }
    task["id"] = _task_id(task)
    return task


def _screen_view(draft: Draft, worded: Worded, rng: random.Random) -> tuple[str, dict[str, str]]:
    if worded.options:
        return worded.question, worded.options
    plain = write_templates(draft, "question & answer", random.Random(rng.random()))
    return plain.question, _options(draft, rng)


async def _screen(
    config: BuildConfig, draft: Draft, worded: Worded, rng: random.Random, responders: list[Any]
) -> tuple[str | None, list[dict[str, Any]]]:
    from scigate.gate import Candidate, run_screen

    question, options = _screen_view(draft, worded, rng)
    letter = next(k for k, v in options.items() if same_answer(v, draft.core))
    candidate = Candidate(question=question, options=options, answer=letter)
    results = []
    for responder in responders:
        result = await run_screen(candidate, responder, calls=config.screen_calls, seed=config.seed)
        results.append(
            {
                "screen": responder.name,
                "solved": result.solved,
                "correct_calls": result.correct_calls,
                "reason": result.reason,
            }
        )
        if result.solved or result.inconclusive:
            return result.reason, results
    return None, results


async def _solve(
    config: BuildConfig, store: Any, run_id: str, attempt: int, space: Any, task: dict[str, Any]
) -> dict[str, Any]:
    """The solver stage; its model calls are stored under the attempt's call key."""
    from scigate.llm import get_model

    key = f"bench-build/{run_id}/{attempt}/solver"
    recorder = store.recorder(run_id=run_id, role="solver", call_key=key)
    model = get_model(config.solver, recorder=recorder)
    return await solve_task(model, space, task, config.solver_method)


def _pick_cell(
    quotas: dict[tuple[int, str], int], done: Counter[tuple[int, str]], blocked: set[int]
) -> tuple[int, str] | None:
    open_cells = [c for c, q in quotas.items() if done[c] < q and c[0] not in blocked]
    if not open_cells:
        return None
    return max(open_cells, key=lambda c: (quotas[c] - done[c], -list(quotas).index(c)))


async def abuild(
    config: BuildConfig,
    db: str | Path,
    out: str | Path,
    progress: Callable[[int, int, int], None] | None = None,
) -> BuildReport:
    """Build `config.n` tasks into `out`, recording every attempt in the run database `db`."""
    from scigate.gate import make_responder
    from scigate.gate._similarity import jaccard, tokens
    from scigate.store import Store

    bad_levels = [lv for lv in config.levels if lv not in (1, 2, 3, 4)]
    if bad_levels or not config.levels:
        raise BadInput(f"--levels takes 1, 2, 3 and/or 4, got {config.levels}")
    if config.n < 1:
        raise BadInput("--n must be at least 1")
    responders = [make_responder(s) for s in config.screens]
    writer = None
    if config.generator != "templates":
        from scigate.llm import get_model

        writer = get_model(config.generator)
    space = None
    if config.solver:
        from scigate.llm import check_spec

        check_solver_method(config.solver_method)
        check_spec(config.solver)
        space = solver_space()
    judge = None
    if config.judge:
        from scigate.llm import get_model

        judge = get_model(config.judge)
    rng = random.Random(config.seed)
    entities = load_entities()
    quotas = _quotas(config)
    max_attempts = config.max_attempts or 25 * config.n
    started = time.perf_counter()
    store = Store(db)
    run_id = store.create_run("bench-build", config=config.model_dump())
    done: Counter[tuple[int, str]] = Counter()
    by_domain: Counter[str] = Counter()
    rejected: Counter[str] = Counter()
    streak: Counter[tuple[str, int]] = Counter()
    accepted: list[dict[str, Any]] = []
    seen_tokens: list[frozenset[str]] = []
    attempts = 0
    cache: dict = {}
    try:
        while attempts < max_attempts:
            level_ok = {
                lv: [d for d in config.domains if streak[(d, lv)] < GIVE_UP_AFTER]
                for lv in config.levels
            }
            cell = _pick_cell(quotas, done, {lv for lv, ds in level_ok.items() if not ds})
            if cell is None:
                break
            level, fmt = cell
            domain = min(level_ok[level], key=lambda d: (by_domain[d], rng.random()))
            kinds = [k for k in DOMAIN_KINDS[domain] if level == 1 or k not in SINGLE_ONLY]
            kind = rng.choice(kinds)
            t0 = time.perf_counter()
            detail: dict[str, Any] = {"level": level, "format": fmt, "domain": domain, "kind": kind}
            stage, reason, task, status = "compose", "", None, "rejected"
            try:
                draft = compose(level, domain, kind, entities[kind], rng, cache)
                detail["path"] = draft.path
                subset = sample_subset(domain, draft.entities[0].type, rng, 12)
                subset = list(dict.fromkeys([*draft.path, *subset]))
                stage = "write"
                if writer is None:
                    worded = write_templates(draft, fmt, rng)
                else:
                    worded, call = await write_llm(writer, draft, fmt, subset, rng)
                    detail["writer"] = call
                detail["question"] = worded.question
                stage = "rules"
                problems = rule_problems(draft, worded)
                if problems:
                    raise Rejected("; ".join(problems))
                stage = "screen"
                if responders:
                    why, screens = await _screen(config, draft, worded, rng, responders)
                    detail["screens"] = screens
                    if why:
                        raise Rejected(why)
                stage = "duplicate"
                mine = tokens(worded.question)
                twin = next(
                    (
                        i
                        for i, other in enumerate(seen_tokens)
                        if jaccard(mine, other) >= config.similarity
                    ),
                    None,
                )
                if twin is not None:
                    raise Rejected(f"near duplicate of task {twin + 1}")
                stage = "verify"
                task = _task_json(draft, fmt, worded, subset)
                if not same_answer(execute_task(task).answer, task["answer"]):
                    raise Rejected("the task does not re-derive its own answer")
                if space is not None:
                    stage = "solver"
                    detail["solver"] = await _solve(
                        config, store, run_id, attempts + 1, space, task
                    )
                if judge is not None:
                    stage = "judge"
                    detail["judge"] = await judge_task(judge, task)
            except (Rejected, Underivable) as exc:
                if stage == "solver":
                    detail["solver"] = getattr(exc, "record", None)
                reason = str(exc)
                task = None
                status = exc.status if isinstance(exc, Unjudged) else "rejected"
            attempts += 1
            if task is not None:
                status = "accepted"
            if task is not None:
                accepted.append(task)
                seen_tokens.append(tokens(task["question"]))
                done[cell] += 1
                by_domain[domain] += 1
                streak[(domain, level)] = 0
            else:
                rejected[stage] += 1
                if stage == "compose":
                    streak[(domain, level)] += 1
            store.add_attempt(
                run_id,
                attempts,
                candidate_id=None,
                status=status,
                reason=f"{stage}: {reason}" if reason else "",
                detail={**detail, "stage": stage, "task_id": task and task["id"]},
                seconds=round(time.perf_counter() - t0, 3),
            )
            if progress:
                progress(len(accepted), config.n, attempts)
        write_tasks(out, accepted)
        store.add_event(
            run_id, "bench-build-done", {"accepted": len(accepted), "attempts": attempts}
        )
        store.set_run_status(run_id, "finished")
    except BaseException as exc:
        status = (
            "interrupted"
            if isinstance(exc, (KeyboardInterrupt, asyncio.CancelledError))
            else "failed"
        )
        store.set_run_status(run_id, status)
        raise
    finally:
        store.close()
    cells = {f"L{lv}/{f}": done[(lv, f)] for (lv, f) in quotas}
    return BuildReport(
        run_id=run_id,
        target=config.n,
        accepted=len(accepted),
        attempts=attempts,
        cells=cells,
        domains=dict(by_domain),
        rejected=dict(rejected),
        out=str(out),
        seconds=round(time.perf_counter() - started, 2),
    )


def build(config: BuildConfig, db: str | Path, out: str | Path, **kw: Any) -> BuildReport:
    """Synchronous `abuild`."""
    return asyncio.run(abuild(config, db, out, **kw))


__all__ = ["LETTERS", "BuildConfig", "BuildReport", "abuild", "build"]
