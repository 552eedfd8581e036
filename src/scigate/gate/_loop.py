"""The ToolGate loop: rounds of generate, verify, screens, solve; every outcome recorded.

Gates run cheapest first (local verification, then the screens in the order given,
then the tool-enabled solver). Every attempt and every rejection is appended to the run
database; a killed run resumes with `resume=True` without losing or duplicating records:
candidates and gate results are idempotent writes, a round's attempt row is written last,
and a round whose candidate was already generated is continued, not regenerated.
`rescreen` applies new screens (and the tool gate) to the candidates already in a
database that survived the earlier screens (or, with `all_verified`, to every verified
one), as the paper's post-generation audit does; its rows are its own run, never part of
the generation funnel or the generator's feedback.

A generator that reads feedback starts round r+1 only after round r's gate 1 has
finished, so every prompt holds the outcome of every earlier round's finished gates
(screens and solving may still overlap). A candidate whose question nearly repeats a
surviving one is rejected before gate 1 (`_novelty`). An attempt's `gen_seconds` is
the generator's own working time; every gate records its own time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scigate.errors import BadInput, ScigateError
from scigate.gate._candidate import Candidate
from scigate.gate._coding_agent import AgentLimits
from scigate.gate._config import LoopConfig
from scigate.gate._environment import run_environment
from scigate.gate._funnel import Funnel, funnel_of_run, funnel_of_run_rescreen
from scigate.gate._generator import (
    Feedback,
    Generator,
    LLMGenerator,
    TemplateCandidates,
    build_feedback,
)
from scigate.gate._novelty import NearDuplicate, near_duplicate
from scigate.gate._responders import make_responder
from scigate.gate._screen import run_screen
from scigate.gate._similarity import TokenMask, any_similar, token_masks, tokens
from scigate.gate._workers import GateWorkers
from scigate.llm import cache_sample

if TYPE_CHECKING:
    from scigate.store import Store

ProgressCallback = Callable[[int, int, Funnel], None]


class _Context:
    """Shared state of one loop: store, semaphores, responders, counters."""

    def __init__(
        self,
        cfg: LoopConfig,
        store: Store,
        run_id: str,
        total: int,
        progress: ProgressCallback | None,
        workers: GateWorkers | None = None,
    ):
        from scigate.domains import get_domain

        self.workers = workers or GateWorkers()
        self.cfg = cfg
        self.store = store
        self.run_id = run_id
        self.domain = get_domain(cfg.domain)
        self.fem = asyncio.Semaphore(cfg.fem_workers)
        self.sandbox = self.workers.slots(self.fem)  # bounds the sandboxed stages in flight
        self.generation = asyncio.Semaphore(1 if cfg.generator != "templates" else cfg.fem_workers)
        self.rounds = asyncio.Semaphore(cfg.concurrency)
        self.responders = [make_responder(s, store=store, run_id=run_id) for s in cfg.screens]
        self.funnel = Funnel(screens={s: 0 for s in cfg.screens})
        self.total = total
        self.done = 0
        self.progress = progress
        self.gate1: dict[int, asyncio.Event] = {}  # set when a round's gate 1 has finished
        self.question_tokens: dict[str, frozenset[str]] = {}  # near-duplicate check's cache
        # The near-duplicate check in the order of generation (`_order_near_duplicates`):
        # each round's possible questions, an event set when a round has ended, the
        # candidate of each round and the survivors from before this loop.
        self.plans: dict[int, list[str]] = {}
        self.plan_masks: dict[int, list[TokenMask]] = {}  # their tokens (`any_similar`)
        self.plan_families: dict[int, str] = {}
        self.ended: dict[int, asyncio.Event] = {}
        self.round_cids: dict[int, str] = {}
        self.prior_survivors: set[str] = set()

    @property
    def ordered(self) -> bool:
        """True when the near-duplicate check runs in the order of generation."""
        return bool(self.plans)

    def later_rounds(self, r: int) -> set[str]:
        """The candidates of this loop's rounds from `r` on (not survivors before it)."""
        return {c for k, c in self.round_cids.items() if k >= r} - self.prior_survivors

    async def earlier_similar_ended(self, r: int) -> None:
        """Wait until every earlier round of this loop that may have a question similar
        to one round `r` may have has ended (all its gates decided)."""
        threshold = self.cfg.near_duplicate
        mine = self.plan_masks.get(r, [])
        for k in sorted(self.ended):
            if k >= r:
                break
            event = self.ended[k]
            if event.is_set():
                continue
            if any_similar(mine, self.plan_masks.get(k, []), threshold):
                await event.wait()

    async def previous_gate1(self, r: int) -> None:
        """Wait until round r - 1 of this loop has finished gate 1 (or ended earlier)."""
        event = self.gate1.get(r - 1)
        if event is not None:
            await event.wait()

    def gate1_finished(self, r: int | None) -> None:
        if r is not None and r in self.gate1:
            self.gate1[r].set()

    def tick(self) -> None:
        self.done += 1
        if self.progress:
            self.progress(self.done, self.total, self.funnel)


def make_generator(cfg: LoopConfig, domain: Any, store: Store, run_id: str) -> Generator:
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
        seeds_in_prompt=cfg.seeds_in_prompt,
        rotate_seeds=cfg.rotate_seeds,
        seed=cfg.seed,
    )


TRUST_FLAG = "--trust-stored-specs"


def _spec_risks(spec: str) -> list[str]:
    """What in a model spec can send the user's credentials elsewhere or run code of the
    spec's choosing: an explicit `base_url`, an `api_key_env`, a `python/` model file."""
    from urllib.parse import unquote

    head, _, query = spec.strip().partition("?")
    risks = ["a python/ model file"] if head.partition("/")[0].strip().lower() == "python" else []
    keys = {unquote(part.partition("=")[0]).strip() for part in query.split("&")}
    risks += [key for key in ("base_url", "api_key_env") if key in keys]
    return risks


def recorded_specs(config: dict[str, Any]) -> dict[str, Any]:
    """The model specs and the solver command a run recorded, by option."""
    generator = config.get("generator")
    return {
        "--generator": generator if generator not in (None, "templates", "rescreen") else None,
        "--screen": list(config.get("screens") or []),
        "--solver": config.get("solver"),
        "--solver-cmd": config.get("solver_cmd"),
    }


def untrusted_stored_specs(stored: dict[str, Any], given: LoopConfig) -> list[str]:
    """One phrase per spec a run recorded that may send the user's keys to an endpoint
    the database names or run code it names (`_spec_risks`; a `--solver-cmd` runs with
    the user's keys and a network), and that the command line does not give for the
    same option: a database is not trusted with credentials (issue 19)."""
    given_specs = recorded_specs(given.model_dump())
    found = []
    for option, specs in recorded_specs(stored).items():
        ours = given_specs[option]
        for spec in specs if isinstance(specs, list) else [specs]:
            if not spec or spec == ours or (isinstance(ours, list) and spec in ours):
                continue
            if option == "--solver-cmd":
                risks = ["a command run with your keys and a network"]
            elif option == "--screen" and str(spec).startswith("cue/"):
                risks = []
            else:
                risks = _spec_risks(str(spec))
            if risks:
                found.append(f"{option} {str(spec)!r} ({', '.join(risks)})")
    return found


def _refuse_untrusted(what: str, found: list[str]) -> None:
    if found:
        raise BadInput(
            f"{what} recorded {'; '.join(found)}: a run database can name where your keys go "
            f"and what code runs, so give the same option on the command line, or pass "
            f"{TRUST_FLAG} if you trust this database"
        )


ResumeCallback = Callable[[str, dict[str, Any]], None]


async def run_loop(
    cfg: LoopConfig,
    store: Store,
    *,
    resume: bool = False,
    run_id: str | None = None,
    rounds_given: bool = True,
    progress: ProgressCallback | None = None,
    workers: GateWorkers | None = None,
    trust_stored_specs: bool = False,
    on_resume: ResumeCallback | None = None,
) -> tuple[str, Funnel]:
    """Run (or resume) a generation run; returns its id and funnel.

    `workers` run the sandboxed stages (default: `GateWorkers`, this process; an
    `ExecutorWorkers` sends them to an executor). Each start and resume records an
    `executor` event saying which executor and how many workers ran it.

    On resume the stored configuration is used; `cfg.rounds` extends or shortens it only
    when `rounds_given` (the user asked for a number of rounds). A stored spec with a
    `base_url`, an `api_key_env`, a `python/` file, or a stored `--solver-cmd`, is refused
    (BadInput, before any file is loaded or anything written) unless `cfg` gives the same
    one or `trust_stored_specs`; `on_resume(run_id, recorded_specs)` is then told what
    the run will use.
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
        if not trust_stored_specs:  # before validate(), which loads python/ files
            _refuse_untrusted(
                f"--resume: run {run_id}", untrusted_stored_specs(stored.model_dump(), cfg)
            )
        if rounds_given:
            stored.rounds = cfg.rounds
        stored.validate()  # the stored specs need their keys now too, before any write
        cfg = stored
        store.set_run_status(run_id, "running")  # refused while another process runs it
        if on_resume is not None:  # told only once the run is ours: one line on refusal
            on_resume(run_id, recorded_specs(stored.model_dump()))
        store.add_event(run_id, "resumed", {"rounds": cfg.rounds})
    else:
        run_id = store.create_run("gate", domain=cfg.domain, config=cfg.model_dump(), run_id=run_id)
    assert run_id is not None
    store.add_event(run_id, "environment", run_environment())  # what a release reports
    ctx = _Context(cfg, store, run_id, cfg.rounds, progress, workers)
    store.add_event(run_id, "executor", ctx.workers.describe(cfg.fem_workers))
    done = store.done_rounds(run_id)
    todo = [r for r in range(cfg.rounds) if r not in done]
    ctx.funnel = funnel_of_run(
        store, run_id, cfg.screens, tool_gate=cfg.has_solver, invariance=cfg.invariance
    )
    ctx.done = len(done)
    generator = make_generator(cfg, ctx.domain, store, run_id)
    if generator.uses_feedback:
        ctx.gate1 = {r: asyncio.Event() for r in todo}
    await _order_near_duplicates(ctx, generator, todo)
    try:
        await asyncio.gather(*(_guarded_round(ctx, generator, r) for r in todo))
    except BaseException:
        store.set_run_status(run_id, "interrupted")
        raise
    finally:
        close = getattr(generator, "close", None)
        if close is not None:  # the template workers: stopped and reaped
            close()
    store.set_run_status(run_id, "finished")
    return run_id, funnel_of_run(
        store, run_id, cfg.screens, tool_gate=cfg.has_solver, invariance=cfg.invariance
    )


async def _guarded_round(ctx: _Context, generator: Generator, r: int) -> None:
    # Before taking a slot: a round waiting for its predecessor never holds one, nor does
    # one waiting for the earlier rounds its near-duplicate check depends on.
    await ctx.previous_gate1(r)
    if ctx.ordered:
        await ctx.earlier_similar_ended(r)
    async with ctx.rounds:
        t0 = time.perf_counter()
        try:
            # the round's calls are one sample of the response cache: a resumed run
            # re-issuing round r is answered with round r's calls, not another round's
            with cache_sample("gate-round", r):
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
        finally:
            ctx.gate1_finished(r)  # a round that ended before gate 1 releases the next one
            if r in ctx.ended:
                ctx.ended[r].set()
        ctx.funnel = funnel_of_run(
            ctx.store,
            ctx.run_id,
            ctx.cfg.screens,
            tool_gate=ctx.cfg.has_solver,
            invariance=ctx.cfg.invariance,
        )
        ctx.tick()


async def _round(ctx: _Context, generator: Generator, r: int) -> None:
    store, run_id = ctx.store, ctx.run_id
    t0 = time.perf_counter()
    cand, gen_detail = _already_generated(store, run_id, r)
    early: NearDuplicate | None = None
    # in an ordered loop `_guarded_round` has waited for the earlier similar rounds
    if cand is None and ctx.ordered:
        early = await _duplicate_whichever_draw(ctx, r)
        if early is not None:  # its distractors would be computed for nothing
            cand = _dropped_early(ctx, r)
            gen_detail = {"reason": "every parameter draw nearly repeats a survivor"}
            gen_detail["seconds"] = round(time.perf_counter() - t0, 3)
            cid = _save_candidate(store, run_id, cand)
            ctx.round_cids[r] = cid
            # before the `generated` event: a resumed round is never gated without it
            _record_near_duplicate(ctx, cand, early, seconds=gen_detail["seconds"])
            store.add_event(run_id, "generated", {"round": r, "candidate_id": cid, **gen_detail})
    if cand is None:
        async with ctx.generation:
            feedback = (
                await asyncio.to_thread(build_feedback, store, run_id)
                if generator.uses_feedback
                else Feedback()
            )
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
                gen_seconds=generated.seconds,
            )
            return
        cand = generated.candidate
        cid = _save_candidate(store, run_id, cand)
        ctx.round_cids[r] = cid
        store.add_event(run_id, "generated", {"round": r, "candidate_id": cid, **gen_detail})
    else:
        ctx.round_cids[r] = cand.id
    gen_seconds = float(gen_detail.get("seconds") or 0.0)
    dup = early or await _reject_near_duplicate(ctx, cand, r)
    if dup is not None:
        status, reason, detail = "rejected-duplicate", dup.reason(), dup.model_dump()
    else:
        status, reason, detail = await gate_candidate(ctx, cand, round_index=r)
    record = store.get_candidate(cand.id)
    if dup is None and record is not None and record.duplicate_of:
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
        gen_seconds=gen_seconds,
    )


async def _order_near_duplicates(ctx: _Context, generator: Generator, todo: list[int]) -> None:
    """With a generator that tells each round's possible questions beforehand (the
    templates'), make the near-duplicate check independent of completion order: round
    r is compared with the survivors from before the loop and of rounds before r only,
    once every earlier round that may be similar has ended (as a sequential run would),
    and a round whose every parameter draw nearly repeats a survivor is dropped before
    any script runs (`_duplicate_whichever_draw`)."""
    questions = getattr(generator, "questions", None)
    if questions is None or ctx.cfg.near_duplicate <= 0 or not todo:
        return
    first = await asyncio.to_thread(questions, todo[0])
    if first is None:
        return
    plans = {todo[0]: first}
    plans.update(await asyncio.to_thread(lambda: {r: questions(r) for r in todo[1:]}))
    family_for = getattr(generator, "family_for", None)
    if family_for is not None:
        ctx.plan_families = {r: family_for(r) for r in todo}
    ctx.plan_masks = token_masks({r: [tokens(q) for q in qs] for r, qs in plans.items()})
    ctx.ended = {r: asyncio.Event() for r in todo}
    ctx.prior_survivors = {row["id"] for row in ctx.store.survivor_questions()}
    ctx.plans = plans


async def _duplicate_whichever_draw(ctx: _Context, r: int) -> NearDuplicate | None:
    """The near duplicate of round r's first draw when every draw's question nearly
    repeats a survivor, whatever the options (so the round's candidate is dropped
    whichever draw it ends with), else None."""
    found: NearDuplicate | None = None
    exclude = ctx.later_rounds(r)
    for question in ctx.plans[r]:
        dup = await asyncio.to_thread(
            near_duplicate,
            ctx.store,
            question,
            None,
            ctx.cfg.near_duplicate,
            token_cache=ctx.question_tokens,
            exclude=exclude,
        )
        if dup is None:
            return None
        found = found or dup
    return found


def _dropped_early(ctx: _Context, r: int) -> Candidate:
    """The record of a round dropped before generation: its first draw's question, no
    options, answer or solution (they were never computed)."""
    family = ctx.plan_families.get(r)
    return Candidate(
        question=ctx.plans[r][0],
        options={},
        meta={
            "domain": ctx.domain.name,
            "generator": "templates",
            "seed": ctx.cfg.seed,
            "index": r,
            "dropped_before_generation": True,
            **({"family": family} if family else {}),
        },
    )


def _record_near_duplicate(
    ctx: _Context, cand: Candidate, dup: NearDuplicate, *, seconds: float
) -> None:
    ctx.store.add_gate_result(
        ctx.run_id,
        cand.id,
        "duplicate",
        outcome="fail",
        reason=dup.reason(),
        detail=dup.model_dump(),
        seconds=seconds,
    )


async def _reject_near_duplicate(
    ctx: _Context, cand: Candidate, r: int | None = None
) -> NearDuplicate | None:
    """Record and return the near duplicate that rejects `cand` before gate 1 (or None);
    in an ordered loop (`_order_near_duplicates`) the survivors of rounds from `r` on
    are left out."""
    store, run_id = ctx.store, ctx.run_id
    got = store.gate_result(run_id, cand.id, "duplicate")
    if got is not None:  # decided before a resume
        return None if got["outcome"] == "pass" else NearDuplicate.model_validate(got["detail"])
    if store.gate_result(run_id, cand.id, "verify") is not None:
        return None  # passed this check before a resume: it is not re-decided
    t0 = time.perf_counter()
    dup = await asyncio.to_thread(
        near_duplicate,
        store,
        cand.question,
        cand.options,
        ctx.cfg.near_duplicate,
        token_cache=ctx.question_tokens,
        exclude=ctx.later_rounds(r) if ctx.ordered and r is not None else frozenset(),
    )
    if dup is None:
        return None
    _record_near_duplicate(ctx, cand, dup, seconds=round(time.perf_counter() - t0, 3))
    return dup


async def gate_candidate(
    ctx: _Context, cand: Candidate, *, round_index: int | None = None
) -> tuple[str, str, dict[str, Any]]:
    """Verify, screen and solve one candidate (reusing results already recorded).

    When gate 1 has finished, round `round_index`'s successor may start generating.
    """
    store, run_id, cfg = ctx.store, ctx.run_id, ctx.cfg
    detail: dict[str, Any] = {"family": cand.meta.get("family")}
    verify = store.gate_result(run_id, cand.id, "verify")
    if verify is None:
        async with ctx.sandbox:
            res = await ctx.workers.verify(cand, timeout=cfg.verify_timeout, domain=cfg.domain)
        store.add_gate_result(
            run_id,
            cand.id,
            "verify",
            outcome="pass" if res.passed else "fail",
            reason=res.reason,
            detail=res.detail(),
            seconds=res.seconds,
        )
        verify = _written(store.gate_result(run_id, cand.id, "verify"))
    ctx.gate1_finished(round_index)
    if verify["outcome"] != "pass":
        return "rejected-verify", verify["reason"], detail
    if cfg.invariance:
        inv = await invariance_stage(ctx, cand, verify)
        if inv["outcome"] == "fail":
            return "rejected-invariance", inv["reason"], detail
        if inv["outcome"] != "pass":  # could not decide: no evidence either way
            return "error", inv["reason"], detail
    return await screen_and_solve(ctx, cand, detail)


async def invariance_stage(
    ctx: _Context, cand: Candidate, verify: dict[str, Any]
) -> dict[str, Any]:
    """Gate 1b on a verified candidate (its recorded result when there is one)."""
    store, run_id, cfg = ctx.store, ctx.run_id, ctx.cfg
    got = store.gate_result(run_id, cand.id, "invariance")
    if got is None:
        async with ctx.sandbox:
            res = await ctx.workers.invariance(
                cand,
                reference=(verify.get("detail") or {}).get("printed"),
                mpi_ranks=cfg.mpi_ranks,
                timeout=cfg.verify_timeout,
                domain=cfg.domain,
                forms=(verify.get("detail") or {}).get("forms"),  # this candidate's own
            )
        store.add_gate_result(
            run_id,
            cand.id,
            "invariance",
            outcome=res.outcome,
            reason=res.reason,
            detail=res.detail(),
            seconds=res.seconds,
        )
        got = _written(store.gate_result(run_id, cand.id, "invariance"))
    return got


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
            got = _written(store.gate_result(run_id, cand.id, "screen", responder.name))
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
            solved = await ctx.workers.solve_model(
                cand,
                cfg.solver,
                recorder=store.recorder(run_id=run_id, candidate_id=cand.id, role="solver"),
                time_limit=cfg.solve_time_limit,
                max_steps=cfg.solver_max_steps,
                max_tokens=cfg.solver_max_tokens,
                domain=cfg.domain,
            )
        else:
            assert cfg.solver_cmd is not None
            async with ctx.sandbox:
                solved = await ctx.workers.solve_command(
                    cand, cfg.solver_cmd, time_limit=cfg.solve_time_limit, domain=cfg.domain
                )
        store.add_gate_result(
            run_id,
            cand.id,
            "solve",
            screen=solver,
            outcome="pass" if solved.solved else "error" if solved.error else "fail",
            reason=solved.reason,
            detail=solved.model_dump(),
            seconds=solved.seconds,
        )
        got = _written(store.gate_result(run_id, cand.id, "solve", solver))
    if got["outcome"] == "pass":
        return "accepted", got["reason"], detail
    if got["outcome"] == "error":  # the solver could not run: no evidence either way
        return "error", got["reason"], detail
    return "unsolved", f"flagged for review: {got['reason']}", detail


def _written(result: dict[str, Any] | None) -> dict[str, Any]:
    """A gate result read back after its write (an idempotent write always leaves one)."""
    if result is None:
        raise ScigateError("a gate result just written is missing from the run database")
    return result


def _save_candidate(store: Store, run_id: str, cand: Candidate) -> str:
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


def _already_generated(
    store: Store, run_id: str, r: int
) -> tuple[Candidate | None, dict[str, Any]]:
    """The candidate a killed run generated for round `r` before it could finish the
    round, with the generation record (its time and usage)."""
    for event in reversed(store.events(run_id, kind="generated")):
        if event["data"].get("round") == r:
            rec = store.get_candidate(event["data"]["candidate_id"])
            if rec is not None:
                gen = {k: v for k, v in event["data"].items() if k not in ("round", "candidate_id")}
                return candidate_from_record(rec), gen
    return None, {}


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
    store: Store,
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
    all_verified: bool = False,
    progress: ProgressCallback | None = None,
    workers: GateWorkers | None = None,
    trust_stored_specs: bool = False,
    on_resume: ResumeCallback | None = None,
) -> tuple[str, Funnel]:
    """Apply screens (then the tool gate) to the verified candidates that no earlier
    screen solved, or with `all_verified` to every verified candidate in the database.

    The screens (model calls only) run in this process; the solver on `workers`. A resumed
    rescreen uses the screens and solver given (they must equal the recorded ones);
    `on_resume(run_id, recorded_specs)` is told them."""
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
        all_verified=all_verified,
    )
    cfg.validate()
    run = store.latest_run(kind="rescreen") if resume else None
    if run is not None:
        stored = run.get("config") or {}
        given = {"screens": screens, "solver": solver, "solver_cmd": solver_cmd}
        if any(stored.get(k) != v for k, v in given.items()) or bool(
            stored.get("all_verified")
        ) != bool(all_verified):
            raise BadInput(
                f"--resume continues rescreen run {run['id']}, which used screens "
                f"{stored.get('screens')} and solver "
                f"{stored.get('solver') or stored.get('solver_cmd')}"
                f"{' with --all' if stored.get('all_verified') else ''}; give the same "
                "ones, or leave out --resume to start a new rescreen"
            )
        if not trust_stored_specs:  # the same as given, so this holds; kept as a guard
            _refuse_untrusted(
                f"--resume: rescreen run {run['id']}", untrusted_stored_specs(stored, cfg)
            )
    # The input set is fixed by the results before this rescreen (its own are left out,
    # so a resumed rescreen sees the same candidates in the same order).
    verified = _verified_candidates(
        store, survivors_only=not all_verified, before=run["id"] if run else None
    )
    if not verified:
        what = "verified candidates" if all_verified else "survivors of the earlier screens"
        raise BadInput(f"no {what} to rescreen in {store.path}")
    cfg.rounds = len(verified)
    if run is not None:
        run_id = run["id"]
        store.set_run_status(run_id, "running")  # refused while another process runs it
        if on_resume is not None:
            on_resume(run_id, recorded_specs(stored))
    else:
        run_id = store.create_run("rescreen", domain=domain, config=cfg.model_dump())
    store.add_event(run_id, "environment", run_environment())
    ctx = _Context(cfg, store, run_id, len(verified), progress, workers)
    store.add_event(run_id, "executor", ctx.workers.describe(cfg.fem_workers))
    done = store.done_rounds(run_id)
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
    f = funnel_of_run_rescreen(store, run_id, screens, len(verified), tool_gate=cfg.has_solver)
    return run_id, f


def _verified_candidates(
    store: Store, *, survivors_only: bool = False, before: str | None = None
) -> list[Any]:
    """Verified candidates; with `survivors_only` those that no screen has solved (latest
    result per screen, leaving out the results of run `before`)."""
    # gate 1b: a candidate whose latest invariance result is not a pass is no survivor
    ids = store.verified_candidate_ids() - store.latest_not_passed_ids("invariance")
    if survivors_only:
        ids -= store.screened_out_ids(excluding_run=before)
    recs = [r for r in store.candidates() if r.id in ids]
    return sorted(recs, key=lambda r: (r.created_at, r.id))
