"""`bench build`: compose, execute, word, check, screen and keep balanced, deduplicated tasks.

Each attempt targets the (level, format) cell furthest below its quota and the domain
with the fewest accepted tasks that can still make that level. It is recorded in the run
database whatever happens (status `accepted`, `rejected`, or the solver's or the judge's
`unjudged`/`error`, the stage and the reason).
An accepted task is re-derived from its own JSON (`execute_task`) before it is kept, so
`bench verify` re-derives every answer the build writes.

Attempts run as executor jobs (`_attempt.run_attempt`), `batch` of them in flight; this
driver draws attempt k + batch once attempt k is settled, settles outcomes in attempt order
(duplicates of and quotas filled by attempts that were in flight with it) and is the only
writer of the run database. A batch of one continues a single random stream: the
sequential build.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from scigate._bounds import check_bounds
from scigate.bench._attempt import STAGES, AttemptOutcome, AttemptPlan, BuildInput, run_attempt
from scigate.bench._config import BuildConfig
from scigate.bench._entities import DOMAIN_KINDS, SINGLE_ONLY
from scigate.bench._files import write_tasks
from scigate.bench._solver import check_solver_method
from scigate.bench._write import LETTERS
from scigate.executor import Executor, JobResult

if TYPE_CHECKING:
    from scigate.store import Store

GIVE_UP_AFTER = 8  # consecutive failed attempts before a kind of entity is skipped for a level
# ... once it has made a task at that level: a kind that makes level-4 tasks one attempt in
# five or eight (long paths need a candidate per constraint) is not given up on by chance
# (0.87**8 = 33 %, 0.87**48 = 0.1 %), which left a 900-task build at 102 of 225 level-4 tasks
GIVE_UP_AFTER_PRODUCTIVE = 6 * GIVE_UP_AFTER
# At most this many attempts in flight per task a cell still needs: about half of the
# attempts fail, so more would mostly be wasted (rejected at `quota` after paying for their
# solver and judge calls), fewer would leave workers idle near the end of a build.
IN_FLIGHT_PER_TASK = 2


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
    batch: int = 1
    executor: dict[str, Any] = Field(default_factory=dict)  # which executor, how many workers


def _quotas(config: BuildConfig) -> dict[tuple[int, str], int]:
    cells = [(lv, f) for lv in config.levels for f in config.formats]
    base, extra = divmod(config.n, len(cells))
    return {c: base + (1 if i < extra else 0) for i, c in enumerate(cells)}


def _pick_cell(
    quotas: dict[tuple[int, str], int],
    done: Counter[tuple[int, str]],
    blocked: set[int],
    pending: Counter[tuple[int, str]],
) -> tuple[int, str] | None:
    """The open cell furthest below its quota, counting `pending` attempts as filled,
    among those with fewer than IN_FLIGHT_PER_TASK attempts in flight per task missing."""
    open_cells = [
        c
        for c, q in quotas.items()
        if done[c] < q and c[0] not in blocked and pending[c] < IN_FLIGHT_PER_TASK * (q - done[c])
    ]
    if not open_cells:
        return None
    order = list(quotas)
    return max(open_cells, key=lambda c: (quotas[c] - done[c] - pending[c], -order.index(c)))


def check_build(config: BuildConfig) -> None:
    """BadInput, before any work, for settings no build can run with: a field outside its
    declared range or holding fewer values than declared (`BadValue` naming the field;
    also after a field was assigned, e.g. no level), model specs and screens."""
    check_bounds(config)
    _check_models(config)


def _check_models(config: BuildConfig) -> None:
    """Every model spec and screen usable (the workers rebuild them from their specs)."""
    from scigate.gate import make_responder
    from scigate.llm import check_spec, get_model

    for spec in config.screens:
        make_responder(spec)
    if config.generator != "templates":
        get_model(config.generator)
    if config.solver:
        check_solver_method(config.solver_method)
        check_spec(config.solver)
    if config.judge:
        get_model(config.judge)


class _Funnel:
    """The driver's state: what is accepted, per cell and domain, and the random stream."""

    def __init__(self, config: BuildConfig) -> None:
        self.config = config
        self.rng = random.Random(config.seed)
        self.quotas = _quotas(config)
        self.done: Counter[tuple[int, str]] = Counter()
        self.by_domain: Counter[str] = Counter()
        self.rejected: Counter[str] = Counter()
        self.streak: Counter[tuple[str, int, str]] = Counter()  # (domain, level, kind)
        self.productive: set[tuple[str, int, str]] = set()  # made a task at least once
        self.accepted: list[dict[str, Any]] = []
        self.seen: list[frozenset[str]] = []
        self.attempts = 0
        self.pending: Counter[tuple[int, str]] = Counter()  # in flight, not yet settled
        self.pending_domain: Counter[str] = Counter()

    def limit(self, domain: str, level: int, kind: str) -> int:
        """Consecutive failed attempts after which a kind is skipped for a level."""
        key = (domain, level, kind)
        return GIVE_UP_AFTER_PRODUCTIVE if key in self.productive else GIVE_UP_AFTER

    def plan(self, attempt: int, seen: int) -> AttemptPlan | None:
        """Attempt number `attempt`, drawn from the settled state as if the attempts in
        flight were accepted (so the batch spreads over the open cells); None when every
        cell is filled or blocked or has enough attempts in flight. `seen`: how many
        accepted questions its job is sent.

        With a batch of 1 the attempt continues the build's own random stream (the
        sequential build); with more, each attempt gets a stream seeded from it, so its
        draws never depend on where or when the others run."""
        rng, config = self.rng, self.config

        def kinds_ok(d: str, lv: int) -> list[str]:
            return [
                k
                for k in DOMAIN_KINDS[d]
                if (lv == 1 or k not in SINGLE_ONLY)
                and self.streak[(d, lv, k)] < self.limit(d, lv, k)
            ]

        level_ok = {lv: [d for d in config.domains if kinds_ok(d, lv)] for lv in config.levels}
        blocked = {lv for lv, ds in level_ok.items() if not ds}
        cell = _pick_cell(self.quotas, self.done, blocked, self.pending)
        if cell is None:  # nothing open, or enough in flight: wait for a settlement
            return None
        level, fmt = cell
        domain = min(
            level_ok[level],
            key=lambda d: (self.by_domain[d] + self.pending_domain[d], rng.random()),
        )
        kind = rng.choice(kinds_ok(domain, level))
        if config.batch == 1:
            state = rng.getstate()
        else:
            state = random.Random(rng.getrandbits(64)).getstate()
        self.pending[cell] += 1
        self.pending_domain[domain] += 1
        return AttemptPlan(
            attempt=attempt,
            level=level,
            format=fmt,
            domain=domain,
            kind=kind,
            rng_state=state,
            seen=seen,
        )

    def settle(self, plan: AttemptPlan, out: AttemptOutcome) -> AttemptOutcome:
        """The outcome in the light of the attempts settled while it ran: a near
        duplicate of a task accepted after its job's snapshot, or a task for a cell
        they filled, is rejected."""
        from scigate.gate import jaccard, tokens

        passed = out.status == "passed"
        if passed or out.stage in STAGES[STAGES.index("duplicate") + 1 :]:
            mine = tokens(out.detail.get("question", ""))
            for i in range(plan.seen, len(self.seen)):
                if jaccard(mine, self.seen[i]) >= self.config.similarity:
                    reason = f"near duplicate of task {i + 1}"
                    return out.model_copy(
                        update={"stage": "duplicate", "status": "rejected", "reason": reason}
                    )
        cell = (plan.level, plan.format)
        if passed and self.done[cell] >= self.quotas[cell]:
            reason = f"cell L{plan.level}/{plan.format} was filled while it ran"
            return out.model_copy(update={"stage": "quota", "status": "rejected", "reason": reason})
        return out

    def apply(self, plan: AttemptPlan, out: AttemptOutcome) -> str:
        """Count the attempt; its status in the run database."""
        self.attempts += 1
        self.pending[(plan.level, plan.format)] -= 1
        self.pending_domain[plan.domain] -= 1
        if out.status == "passed" and out.task is not None:
            from scigate.gate import tokens

            self.accepted.append(out.task)
            self.seen.append(tokens(out.task["question"]))
            self.done[(plan.level, plan.format)] += 1
            self.by_domain[plan.domain] += 1
            self.streak[(plan.domain, plan.level, plan.kind)] = 0
            self.productive.add((plan.domain, plan.level, plan.kind))
            return "accepted"
        self.rejected[out.stage] += 1
        if out.stage == "compose":
            self.streak[(plan.domain, plan.level, plan.kind)] += 1
        return out.status


def _failed(plan: AttemptPlan, result: JobResult) -> AttemptOutcome:
    """The `error` outcome of a job that kept failing on the executor."""
    return AttemptOutcome(
        attempt=plan.attempt,
        stage="job",
        status="error",
        reason=f"failed after {result.attempts} tries: {result.error}",
        detail=plan.model_dump(include={"level", "format", "domain", "kind"}),
        rng_state=plan.rng_state,
    )


async def abuild(
    config: BuildConfig,
    db: str | Path,
    out: str | Path,
    progress: Callable[[int, int, int], None] | None = None,
    executor: Executor | None = None,
) -> BuildReport:
    """Build `config.n` tasks into `out`, recording every attempt in the run database `db`.

    Attempts run as jobs on `executor` (default: a local executor with `config.batch`
    threads), `config.batch` of them in flight; the tasks and attempt records depend on
    the seed and the batch, not on the executor or its workers. This process stays the
    only writer of `db` and `out`."""
    from scigate.executor import LocalExecutor
    from scigate.store import Store

    check_build(config)
    max_attempts = config.max_attempts or 25 * config.n
    started = time.perf_counter()
    store = Store(db)
    run_id = store.create_run("bench-build", config=config.model_dump())
    own = executor is None
    spread = executor if executor is not None else LocalExecutor(config.batch)
    funnel = _Funnel(config)
    try:
        store.add_event(run_id, "executor", spread.describe())
        await _pipeline(config, funnel, spread, max_attempts, run_id, store, progress)
        write_tasks(out, funnel.accepted)
        store.add_event(
            run_id,
            "bench-build-done",
            {"accepted": len(funnel.accepted), "attempts": funnel.attempts},
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
        if own:
            spread.close()
    cells = {f"L{lv}/{f}": funnel.done[(lv, f)] for (lv, f) in funnel.quotas}
    return BuildReport(
        run_id=run_id,
        target=config.n,
        accepted=len(funnel.accepted),
        attempts=funnel.attempts,
        cells=cells,
        domains=dict(funnel.by_domain),
        rejected=dict(funnel.rejected),
        out=str(out),
        seconds=round(time.perf_counter() - started, 2),
        batch=config.batch,
        executor=spread.describe(),
    )


async def _pipeline(
    config: BuildConfig,
    funnel: _Funnel,
    spread: Executor,
    max_attempts: int,
    run_id: str,
    store: Store,
    progress: Callable[[int, int, int], None] | None,
) -> None:
    """Keep up to `config.batch` attempts in flight on `spread` and settle them in attempt
    order; new attempts are drawn only right after a settlement (or at the start), so
    every draw sees the same settled state whatever the executor and however long each
    job takes."""
    from scigate.executor import Job

    slots = asyncio.Semaphore(max(1, spread.workers))
    running: dict[int, tuple[AttemptPlan, asyncio.Future]] = {}
    shared, shared_len = None, -1
    planned = 0

    async def bounded(job: Job) -> JobResult:
        async with slots:
            return await spread.run(job)

    def fill() -> None:
        nonlocal shared, shared_len, planned
        while len(running) < config.batch and planned < max_attempts:
            # the accepted questions travel to the workers when a batch of them is new
            # (each time one is, with a batch of 1); the driver checks the ones after
            if shared is None or len(funnel.seen) - shared_len >= config.batch:
                common = BuildInput(config=config, run_id=run_id, seen=list(funnel.seen))
                shared, shared_len = spread.share(common), len(funnel.seen)
            plan = funnel.plan(planned + 1, shared_len)
            if plan is None:
                return
            planned += 1
            job = Job(id=str(plan.attempt), fn=run_attempt, args=(shared, plan))
            running[plan.attempt] = (plan, asyncio.ensure_future(bounded(job)))

    try:
        fill()
        while running:
            plan, future = running.pop(funnel.attempts + 1)
            result = await future
            outcome = result.value if result.ok else _failed(plan, result)
            if config.batch == 1:
                # the sequential build continues the attempt's stream (a failed job
                # hands back the state it started from)
                funnel.rng.setstate(outcome.rng_state)
            outcome = funnel.settle(plan, outcome)
            _record(store, run_id, outcome)
            status = funnel.apply(plan, outcome)
            store.add_attempt(
                run_id,
                plan.attempt,
                candidate_id=None,
                status=status,
                reason=f"{outcome.stage}: {outcome.reason}" if outcome.reason else "",
                detail={
                    **outcome.detail,
                    "stage": outcome.stage,
                    "task_id": (
                        outcome.task["id"]
                        if status == "accepted" and outcome.task is not None
                        else None
                    ),
                },
                seconds=outcome.seconds,
            )
            if progress:
                progress(len(funnel.accepted), config.n, funnel.attempts)
            fill()
    finally:
        for _, future in running.values():
            future.cancel()
        if running:
            await asyncio.gather(*(f for _, f in running.values()), return_exceptions=True)


def _record(store: Store, run_id: str, outcome: AttemptOutcome) -> None:
    """Store the model calls the attempt made (writer, screens, solver, judge), each role's
    under the attempt's call key."""
    recorders: dict[str, Callable[[Any], None]] = {}
    for role, record in outcome.calls:
        if role not in recorders:
            key = f"bench-build/{run_id}/{outcome.attempt}/{role}"
            recorders[role] = store.recorder(run_id=run_id, role=role, call_key=key)
        recorders[role](record)


def build(config: BuildConfig, db: str | Path, out: str | Path, **kw: Any) -> BuildReport:
    """Synchronous `abuild`."""
    return asyncio.run(abuild(config, db, out, **kw))


__all__ = ["LETTERS", "BuildConfig", "BuildReport", "abuild", "build", "check_build"]
