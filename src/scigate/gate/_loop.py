"""The ToolGate loop: rounds of generate, verify, screens, solve; every outcome recorded.

Gates run cheapest first (local verification, then the screens in the order given,
then the tool-enabled solver). Every attempt and every rejection is appended to the run
database; a killed run resumes with `resume=True` without losing or duplicating records:
candidates and gate results are idempotent writes, a round's attempt row is written last,
and a round whose candidate was already generated is continued, not regenerated.
`rescreen` applies new screens (and the tool gate) to the verified candidates already in
a database, as the paper's post-generation audit does.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, Field

from scigate.errors import BadInput
from scigate.gate._candidate import Candidate
from scigate.gate._coding_agent import AgentLimits
from scigate.gate._environment import run_environment
from scigate.gate._funnel import Funnel, funnel_of_run, funnel_of_run_rescreen
from scigate.gate._generator import Generator, LLMGenerator, TemplateCandidates, build_feedback
from scigate.gate._responders import make_responder
from scigate.gate._screen import run_screen
from scigate.gate._solve import solve_with_command, solve_with_model
from scigate.gate._verify import VerifyResult, averify


class LoopConfig(BaseModel):
    """Everything that defines a ToolGate run (stored with the run for reproducibility)."""

    domain: str = "fenicsx"
    generator: str = "templates"
    screens: list[str] = Field(default_factory=list)
    solver: str | None = None
    solver_cmd: str | None = None
    rounds: int = 10
    seed: int = 0
    calls: int = 3
    early_stop: bool = True
    verify_timeout: float = 300.0
    solve_time_limit: float = 300.0
    solver_max_steps: int = 40
    solver_max_tokens: int = 500_000
    generator_time_limit: float = 300.0
    concurrency: int = 4
    fem_workers: int = Field(default_factory=lambda: max(1, os.cpu_count() or 1))
    families: list[str] | None = None

    @property
    def has_solver(self) -> bool:
        """Whether a tool-enabled solver (gate 3) is configured."""
        return bool(self.solver or self.solver_cmd)

    def check(self) -> None:
        """Reject impossible settings with one clear line."""
        if self.rounds < 0:
            raise BadInput("--rounds must be 0 or more")
        if self.calls < 1:
            raise BadInput("--calls must be at least 1")
        if self.concurrency < 1 or self.fem_workers < 1:
            raise BadInput("--concurrency and --fem-workers must be at least 1")
        if self.verify_timeout <= 0 or self.solve_time_limit <= 0:
            raise BadInput("--verify-timeout and --time-limit must be positive")
        if self.solver and self.solver_cmd:
            raise BadInput("give at most one of --solver and --solver-cmd")
        if len(set(self.screens)) != len(self.screens):
            raise BadInput("the same --screen is given twice")

    def validate(self) -> None:
        """`check`, plus every spec and the domain resolve (before anything is written)."""
        from scigate.domains import get_domain
        from scigate.llm import parse_spec

        self.check()
        domain = get_domain(self.domain)
        if self.generator == "templates" and self.families:
            domain.template_generator(self.seed, families=self.families)  # checks the names
        if self.generator not in ("templates", "rescreen"):
            parse_spec(self.generator)
        for s in self.screens:
            if not s.startswith("cue/"):
                parse_spec(s)
            else:
                make_responder(s)
        if self.solver:
            parse_spec(self.solver)


ProgressCallback = Callable[[int, int, Funnel], None]
# Runs one candidate's sandboxed verification (default: `averify` in this process;
# scigate.gate.executor_verifier sends it to an executor's workers).
Verifier = Callable[..., Awaitable[VerifyResult]]


class _Context:
    """Shared state of one loop: store, semaphores, responders, counters."""

    def __init__(
        self,
        cfg: LoopConfig,
        store: Any,
        run_id: str,
        total: int,
        progress: ProgressCallback | None,
        verifier: Verifier | None = None,
    ):
        from scigate.domains import get_domain

        self.verifier = verifier or averify
        self.cfg = cfg
        self.store = store
        self.run_id = run_id
        self.domain = get_domain(cfg.domain)
        self.fem = asyncio.Semaphore(cfg.fem_workers)
        self.generation = asyncio.Semaphore(1 if cfg.generator != "templates" else cfg.fem_workers)
        self.rounds = asyncio.Semaphore(cfg.concurrency)
        self.responders = [make_responder(s, store=store, run_id=run_id) for s in cfg.screens]
        self.funnel = Funnel(screens={s: 0 for s in cfg.screens})
        self.total = total
        self.done = 0
        self.progress = progress

    def tick(self) -> None:
        self.done += 1
        if self.progress:
            self.progress(self.done, self.total, self.funnel)


def make_generator(cfg: LoopConfig, domain: Any, store: Any, run_id: str) -> Generator:
    """`templates` or an LLM generator for a model spec."""
    if cfg.generator == "templates":
        return TemplateCandidates(
            domain, seed=cfg.seed, families=cfg.families, workers=cfg.fem_workers
        )
    return LLMGenerator(
        cfg.generator,
        domain=domain,
        store=store,
        run_id=run_id,
        limits=AgentLimits(wall_seconds=cfg.generator_time_limit, preload=domain.preload),
    )


async def run_loop(
    cfg: LoopConfig,
    store: Any,
    *,
    resume: bool = False,
    run_id: str | None = None,
    rounds_given: bool = True,
    progress: ProgressCallback | None = None,
    verifier: Verifier | None = None,
) -> tuple[str, Funnel]:
    """Run (or resume) a generation run; returns its id and funnel.

    `verifier(cand, timeout=, domain=)` runs a candidate's verification (default: here).

    On resume the stored configuration is used; `cfg.rounds` extends or shortens it only
    when `rounds_given` (the user asked for a number of rounds).
    """
    cfg.validate()
    if resume:
        run = store.get_run(run_id) if run_id else store.latest_run(kind="gate")
        if run is None:
            raise BadInput(f"nothing to resume in {store.path}: no gate run found")
        run_id = run["id"]
        stored = LoopConfig.model_validate(run["config"])
        given = {"screens": cfg.screens, "solver": cfg.solver, "solver_cmd": cfg.solver_cmd}
        changed = [k for k, v in given.items() if v and v != getattr(stored, k)]
        if changed:
            raise BadInput(
                f"--resume continues run {run_id} with its stored {', '.join(changed)} "
                f"({', '.join(str(getattr(stored, k)) for k in changed)}); leave them out, "
                "or use --rescreen to apply other screens or a solver"
            )
        if rounds_given:
            stored.rounds = cfg.rounds
        cfg = stored
        store.set_run_status(run_id, "running")
        store.add_event(run_id, "resumed", {"rounds": cfg.rounds})
    else:
        run_id = store.create_run("gate", domain=cfg.domain, config=cfg.model_dump(), run_id=run_id)
    assert run_id is not None
    store.add_event(run_id, "environment", run_environment())  # what a release reports
    done = store.done_rounds(run_id)
    todo = [r for r in range(cfg.rounds) if r not in done]
    ctx = _Context(cfg, store, run_id, cfg.rounds, progress, verifier)
    ctx.funnel = funnel_of_run(store, run_id, cfg.screens, tool_gate=cfg.has_solver)
    ctx.done = len(done)
    generator = make_generator(cfg, ctx.domain, store, run_id)
    try:
        await asyncio.gather(*(_guarded_round(ctx, generator, r) for r in todo))
    except BaseException:
        store.set_run_status(run_id, "interrupted")
        raise
    store.set_run_status(run_id, "finished")
    return run_id, funnel_of_run(store, run_id, cfg.screens, tool_gate=cfg.has_solver)


async def _guarded_round(ctx: _Context, generator: Generator, r: int) -> None:
    async with ctx.rounds:
        t0 = time.perf_counter()
        try:
            await _round(ctx, generator, r)
        except (asyncio.CancelledError, KeyboardInterrupt):
            raise
        except Exception as exc:  # recorded as the round's outcome, never lost
            ctx.store.add_event(ctx.run_id, "round-error", {"round": r, "error": repr(exc)})
            ctx.store.add_attempt(
                ctx.run_id,
                r,
                candidate_id=None,
                status="error",
                reason=f"{type(exc).__name__}: {exc}",
                seconds=time.perf_counter() - t0,
            )
            ctx.funnel.errors += 1
        ctx.funnel = funnel_of_run(
            ctx.store, ctx.run_id, ctx.cfg.screens, tool_gate=ctx.cfg.has_solver
        )
        ctx.tick()


async def _round(ctx: _Context, generator: Generator, r: int) -> None:
    store, run_id = ctx.store, ctx.run_id
    t0 = time.perf_counter()
    cand = _already_generated(store, run_id, r)
    gen_detail: dict[str, Any] = {}
    if cand is None:
        async with ctx.generation:
            feedback = await asyncio.to_thread(build_feedback, store, run_id)
            if generator.name == "templates":
                async with ctx.fem:
                    generated = await generator.generate(r, feedback)
            else:
                generated = await generator.generate(r, feedback)
        gen_detail = generated.model_dump(exclude={"candidate"})
        if generated.candidate is None:
            store.add_attempt(
                run_id,
                r,
                candidate_id=None,
                status="generator-failed",
                reason=generated.reason,
                detail=gen_detail,
                seconds=time.perf_counter() - t0,
            )
            return
        cand = generated.candidate
        cid = _save_candidate(store, run_id, cand)
        store.add_event(run_id, "generated", {"round": r, "candidate_id": cid, **gen_detail})
    status, reason, detail = await gate_candidate(ctx, cand)
    record = store.get_candidate(cand.id)
    if record is not None and record.duplicate_of:
        detail["duplicate_of"] = record.duplicate_of
        reason += f" (exact duplicate of {record.duplicate_of})"
    detail["generation"] = gen_detail
    store.add_attempt(
        run_id,
        r,
        candidate_id=cand.id,
        status=status,
        reason=reason,
        detail=detail,
        seconds=time.perf_counter() - t0,
    )


async def gate_candidate(ctx: _Context, cand: Candidate) -> tuple[str, str, dict[str, Any]]:
    """Verify, screen and solve one candidate (reusing results already recorded)."""
    store, run_id, cfg = ctx.store, ctx.run_id, ctx.cfg
    detail: dict[str, Any] = {"family": cand.meta.get("family")}
    verify = store.gate_result(run_id, cand.id, "verify")
    if verify is None:
        async with ctx.fem:
            res = await ctx.verifier(cand, timeout=cfg.verify_timeout, domain=cfg.domain)
        store.add_gate_result(
            run_id,
            cand.id,
            "verify",
            outcome="pass" if res.passed else "fail",
            reason=res.reason,
            detail=res.detail(),
            seconds=res.seconds,
        )
        verify = store.gate_result(run_id, cand.id, "verify")
    if verify["outcome"] != "pass":
        return "rejected-verify", verify["reason"], detail
    return await screen_and_solve(ctx, cand, detail)


async def screen_and_solve(
    ctx: _Context, cand: Candidate, detail: dict[str, Any]
) -> tuple[str, str, dict[str, Any]]:
    """The screens in order (stop at the first that solves it), then the tool gate."""
    store, run_id, cfg = ctx.store, ctx.run_id, ctx.cfg
    for responder in ctx.responders:
        got = store.gate_result(run_id, cand.id, "screen", responder.name)
        if got is None:
            res = await run_screen(
                cand,
                responder,
                calls=cfg.calls,
                seed=cfg.seed,
                early_stop=cfg.early_stop,
                key_prefix=f"{run_id}:",
            )
            store.add_gate_result(
                run_id,
                cand.id,
                "screen",
                screen=responder.name,
                outcome="error" if res.inconclusive else "fail" if res.solved else "pass",
                reason=res.reason,
                detail=res.summary(),
                seconds=res.seconds,
            )
            got = store.gate_result(run_id, cand.id, "screen", responder.name)
        if got["outcome"] == "error":
            return "error", got["reason"], detail
        if got["outcome"] != "pass":
            return "rejected-screen", got["reason"], detail
    solver = cfg.solver or (f"cmd:{cfg.solver_cmd}" if cfg.solver_cmd else None)
    if solver is None:
        return "screened", "passed every screen (no tool gate configured)", detail
    got = store.gate_result(run_id, cand.id, "solve", solver)
    if got is None:
        if cfg.solver:
            res = await solve_with_model(
                cand,
                cfg.solver,
                time_limit=cfg.solve_time_limit,
                max_steps=cfg.solver_max_steps,
                max_tokens=cfg.solver_max_tokens,
                domain=cfg.domain,
                store=store,
                run_id=run_id,
            )
        else:
            assert cfg.solver_cmd is not None
            async with ctx.fem:
                res = await solve_with_command(
                    cand, cfg.solver_cmd, time_limit=cfg.solve_time_limit, domain=cfg.domain
                )
        store.add_gate_result(
            run_id,
            cand.id,
            "solve",
            screen=solver,
            outcome="pass" if res.solved else "error" if res.error else "fail",
            reason=res.reason,
            detail=res.model_dump(),
            seconds=res.seconds,
        )
        got = store.gate_result(run_id, cand.id, "solve", solver)
    if got["outcome"] == "pass":
        return "accepted", got["reason"], detail
    if got["outcome"] == "error":  # the solver could not run: no evidence either way
        return "error", got["reason"], detail
    return "unsolved", f"flagged for review: {got['reason']}", detail


def _save_candidate(store: Any, run_id: str, cand: Candidate) -> str:
    from scigate.store import CandidateRecord

    record = CandidateRecord(
        id=cand.id,
        run_id=run_id,
        question=cand.question,
        options=cand.options,
        answer=cand.answer or "",
        answer_value=cand.answer_value or "",
        solution=cand.solution,
        meta=cand.meta,
        family=cand.meta.get("family"),
        generator=cand.meta.get("generator"),
    )
    cid, _ = store.add_candidate(record)
    return cid


def _already_generated(store: Any, run_id: str, r: int) -> Candidate | None:
    """The candidate a killed run generated for round `r` before it could finish the round."""
    for event in reversed(store.events(run_id, kind="generated")):
        if event["data"].get("round") == r:
            rec = store.get_candidate(event["data"]["candidate_id"])
            if rec is not None:
                return candidate_from_record(rec)
    return None


def candidate_from_record(rec: Any) -> Candidate:
    """A `Candidate` from a stored record."""
    return Candidate(
        question=rec.question,
        options=rec.options,
        answer=rec.answer or None,
        solution=rec.solution,
        meta=rec.meta or {},
        stored_id=rec.id,
    )


async def rescreen(
    store: Any,
    *,
    screens: list[str],
    solver: str | None = None,
    solver_cmd: str | None = None,
    domain: str = "fenicsx",
    calls: int = 3,
    seed: int = 0,
    solve_time_limit: float = 300.0,
    concurrency: int = 4,
    resume: bool = False,
    progress: ProgressCallback | None = None,
) -> tuple[str, Funnel]:
    """Apply screens (then the tool gate) to every verified candidate in the database."""
    cfg = LoopConfig(
        domain=domain,
        generator="rescreen",
        screens=screens,
        solver=solver,
        solver_cmd=solver_cmd,
        calls=calls,
        seed=seed,
        solve_time_limit=solve_time_limit,
        concurrency=concurrency,
    )
    cfg.check()
    verified = _verified_candidates(store)
    if not verified:
        raise BadInput(f"no verified candidates to rescreen in {store.path}")
    cfg.rounds = len(verified)
    run = store.latest_run(kind="rescreen") if resume else None
    if run is not None:
        stored = run.get("config") or {}
        given = {"screens": screens, "solver": solver, "solver_cmd": solver_cmd}
        if any(stored.get(k) != v for k, v in given.items()):
            raise BadInput(
                f"--resume continues rescreen run {run['id']}, which used screens "
                f"{stored.get('screens')} and solver "
                f"{stored.get('solver') or stored.get('solver_cmd')}; give the same ones, "
                "or leave out --resume to start a new rescreen"
            )
        run_id = run["id"]
        store.set_run_status(run_id, "running")
    else:
        run_id = store.create_run("rescreen", domain=domain, config=cfg.model_dump())
    store.add_event(run_id, "environment", run_environment())
    done = store.done_rounds(run_id)
    ctx = _Context(cfg, store, run_id, len(verified), progress)
    ctx.done = len(done)

    async def one(i: int, rec: Any) -> None:
        async with ctx.rounds:
            t0 = time.perf_counter()
            cand = candidate_from_record(rec)
            # Verification carries over from the generation run that recorded it.
            try:
                status, reason, detail = await screen_and_solve(ctx, cand, {"family": rec.family})
            except Exception as exc:  # one candidate's failure is its outcome, not the run's
                store.add_event(run_id, "round-error", {"round": i, "error": repr(exc)})
                status, reason, detail = "error", f"{type(exc).__name__}: {exc}", {}
            if rec.duplicate_of:
                detail["duplicate_of"] = rec.duplicate_of
            store.add_attempt(
                run_id,
                i,
                candidate_id=rec.id,
                status=status,
                reason=reason,
                detail=detail,
                seconds=time.perf_counter() - t0,
            )
            ctx.tick()

    try:
        await asyncio.gather(*(one(i, rec) for i, rec in enumerate(verified) if i not in done))
    except BaseException:
        store.set_run_status(run_id, "interrupted")
        raise
    store.set_run_status(run_id, "finished")
    f = funnel_of_run_rescreen(store, run_id, screens, len(verified))
    f.tool_gate = cfg.has_solver
    return run_id, f


def _verified_candidates(store: Any) -> list[Any]:
    rows = store.query(
        "SELECT DISTINCT candidate_id FROM gate_results WHERE gate = 'verify' AND outcome = 'pass'"
    )
    ids = {r["candidate_id"] for r in rows}
    recs = [r for r in store.candidates() if r.id in ids]
    return sorted(recs, key=lambda r: (r.created_at, r.id))
