"""One `bench build` attempt as an executor job: compose, word, check, screen, execute,
solve and judge one draft, wherever the executor runs it.

The job gets its cell, domain, kind and random state from the driver and returns an
`AttemptOutcome` (with the model call records of its solver); it writes nothing. The
driver settles outcomes in attempt order: duplicates of tasks accepted while the job ran
(after the snapshot it was sent), quotas, and the run database are the driver's.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from scigate.bench._answer import Underivable, execute_task, same_answer
from scigate.bench._catalog import given_for
from scigate.bench._compose import MARGIN, Draft, Rejected, compose, sample_subset
from scigate.bench._entities import load_entities
from scigate.bench._judge import Unjudged, judge_task
from scigate.bench._stats import task_shape
from scigate.bench._write import Worded, _options, rule_problems, write_llm, write_templates
from scigate.llm import cache_sample

# The stages of an attempt in the order they run; a rejection names the first that failed.
STAGES = ("compose", "write", "rules", "screen", "duplicate", "verify", "solver", "judge")
CallRecords = list[tuple[str, Any]]  # (role, ModelCallRecord)


class AttemptPlan(BaseModel):
    """What the driver decided for one attempt before it runs."""

    attempt: int  # 1-based number in the build (the attempt row's `round`)
    level: int
    format: str
    domain: str
    kind: str
    rng_state: tuple[Any, ...]  # the attempt's random stream (`random.Random.getstate()`)
    seen: int = 0  # how many accepted questions its job gets to check duplicates against


class AttemptOutcome(BaseModel):
    """What an attempt made: the task if every stage passed, else the stage and reason."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    attempt: int
    stage: str
    status: str  # passed | rejected | unjudged | error
    reason: str = ""
    detail: dict[str, Any] = Field(default_factory=dict)
    task: dict[str, Any] | None = None
    calls: CallRecords = Field(default_factory=list)
    rng_state: tuple[Any, ...]  # the random stream after the attempt
    seconds: float = 0.0


@dataclass
class BuildInput:
    """What the attempts in flight share (sent to the workers once, not with each job)."""

    config: Any  # BuildConfig
    run_id: str
    seen: list[frozenset[str]] = field(default_factory=list)  # tokens of accepted questions


class StageFailed(Exception):
    """An unexpected failure inside a stage (not a rejection); the executor retries the job."""


@dataclass
class _RunState:
    cache: dict = field(default_factory=dict)  # tool results of near-miss executions
    space: Any = None  # the solver's tool space


_STATE: dict[str, _RunState] = {}  # per process: only the latest build's state
_LOCK = threading.Lock()


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
    if draft.precision:
        task["precision"] = draft.precision
    task["id"] = _task_id(task)
    return task


# The words that state a numeric answer's precision, in the formats that ask for a value.
_PRECISION_WORDS = {"3 significant figures": "three significant figures"}


def _state_precision(draft: Draft, fmt: str, worded: Worded) -> Worded:
    """The question with the answer's precision stated ("Give numeric values to three
    significant figures."), so the scorer allows that much and no more."""
    if not draft.precision or fmt not in ("question & answer", "content completion"):
        return worded
    words = _PRECISION_WORDS.get(draft.precision, draft.precision)
    return worded.model_copy(
        update={"question": f"{worded.question} Give numeric values to {words}."}
    )


def _screen_view(draft: Draft, worded: Worded, rng: random.Random) -> tuple[str, dict[str, str]]:
    if worded.options:
        return worded.question, worded.options
    plain = write_templates(draft, "question & answer", random.Random(rng.random()))
    return plain.question, _options(draft, rng)


async def _screen(
    config: Any, draft: Draft, worded: Worded, rng: random.Random, responders: list[Any]
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
                "calls": len(result.calls),
                "reason": result.reason,
            }
        )
        if result.solved or result.inconclusive:
            return result.reason, results
    return None, results


def _run_state(run_id: str) -> _RunState:
    with _LOCK:
        if run_id not in _STATE:
            _STATE.clear()
            _STATE[run_id] = _RunState()
        return _STATE[run_id]


def run_attempt(shared: Any, plan: AttemptPlan) -> AttemptOutcome:
    """The executor job: one attempt from its plan (`shared` holds the `BuildInput`); its
    model calls are one sample of the response cache (the attempt's number)."""
    with cache_sample("bench-attempt", plan.attempt):
        return asyncio.run(attempt(shared.get(), plan))


async def attempt(common: BuildInput, plan: AttemptPlan) -> AttemptOutcome:
    """Run the stages of one attempt; rejections become the outcome, an unexpected error
    is raised as `StageFailed` naming the stage."""
    from scigate.gate import jaccard, tokens

    config = common.config
    state = _run_state(common.run_id)
    rng = random.Random()
    rng.setstate(plan.rng_state)
    t0 = time.perf_counter()
    detail: dict[str, Any] = {
        "level": plan.level,
        "format": plan.format,
        "domain": plan.domain,
        "kind": plan.kind,
    }
    calls: CallRecords = []
    stage, reason, task, status = "compose", "", None, "passed"
    try:
        margin = getattr(config, "margin", MARGIN)
        draft = compose(
            plan.level,
            plan.domain,
            plan.kind,
            load_entities()[plan.kind],
            rng,
            state.cache,
            margin,
            checks=getattr(config, "checks", True),
        )
        detail["path"] = draft.path
        checks: dict[str, str] = dict(draft.checks)
        detail["checks"] = checks
        subset = sample_subset(plan.domain, draft.entities[0].type, rng, 12)
        subset = list(dict.fromkeys([*draft.path, *subset]))
        stage = "write"
        if config.generator == "templates":
            worded = write_templates(draft, plan.format, rng)
        else:
            from scigate.llm import get_model

            writer = get_model(config.generator, recorder=_to(calls, "writer"))
            worded, call = await write_llm(writer, draft, plan.format, subset, rng)
            detail["writer"] = call
        worded = _state_precision(draft, plan.format, worded)
        detail["question"] = worded.question
        stage = "rules"
        problems = rule_problems(draft, worded)
        if problems:
            raise Rejected("; ".join(problems))
        checks["rules"] = "passed"
        stage = "screen"
        if config.screens:
            from scigate.gate import make_responder

            responders = [make_responder(s, recorder=_to(calls, "screen")) for s in config.screens]
            why, screens = await _screen(config, draft, worded, rng, responders)
            detail["screens"] = screens
            if why:
                raise Rejected(why)
            checks["screen"] = f"{len(config.screens)} screens fail"
        stage = "duplicate"
        mine = tokens(worded.question)
        twin = next(
            (i for i, other in enumerate(common.seen) if jaccard(mine, other) >= config.similarity),
            None,
        )
        if twin is not None:
            raise Rejected(f"near duplicate of task {twin + 1}")
        stage = "verify"
        task = _task_json(draft, plan.format, worded, subset)
        if not same_answer(execute_task(task).answer, task["answer"]):
            raise Rejected("the task does not re-derive its own answer")
        checks["verify"] = "re-derived from the task JSON"
        if config.solver:
            stage = "solver"
            detail["solver"] = await _solve(config, state, task, calls)
            checks["solver"] = "passed"
        if config.judge:
            from scigate.llm import get_model

            stage = "judge"
            judge = get_model(config.judge, recorder=_to(calls, "judge"))
            detail["judge"] = await judge_task(judge, task)
            checks["judge"] = "passed"
        task["checks"] = dict(checks)
        detail["shape"] = task_shape(task)  # its Table A5 figures, for `bench report`
    except (Rejected, Underivable) as exc:
        if stage == "solver":
            detail["solver"] = getattr(exc, "record", None)
        reason = str(exc)
        detail["check"] = getattr(exc, "check", None) or stage
        # the checks a draft passed before the failing one
        if passed := getattr(exc, "passed", None):
            detail["checks"] = dict(passed)
        task = None
        status = exc.status if isinstance(exc, Unjudged) else "rejected"
    except Exception as exc:
        from scigate.executor import reason as one_line

        raise StageFailed(f"{stage}: {one_line(exc)}") from None
    return AttemptOutcome(
        attempt=plan.attempt,
        stage=stage,
        status=status,
        reason=reason,
        detail=detail,
        task=task,
        calls=calls,
        rng_state=rng.getstate(),
        seconds=round(time.perf_counter() - t0, 3),
    )


def _to(calls: CallRecords, role: str) -> Callable[[Any], None]:
    """A recorder that keeps each model call's record under `role` for the driver to store
    (writer, screen, solver and judge calls alike: the build's cost comes from them)."""
    return lambda record: calls.append((role, record))


async def _solve(
    config: Any, state: _RunState, task: dict[str, Any], calls: CallRecords
) -> dict[str, Any]:
    """The solver stage; its model call records go to `calls` (the driver stores them)."""
    from scigate.bench._solver import solve_task, solver_space
    from scigate.llm import get_model

    if state.space is None:
        state.space = solver_space()
    model = get_model(config.solver, recorder=_to(calls, "solver"))
    return await solve_task(model, state.space, task, config.solver_method)


__all__ = ["STAGES", "AttemptOutcome", "AttemptPlan", "BuildInput", "StageFailed", "run_attempt"]
