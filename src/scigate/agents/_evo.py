"""SciToolAgent-Evo: knowledge accumulation and ontology-aware inference (Algorithm 1)."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from pydantic import Field

from scigate.agents._context import AgentContext
from scigate.agents._executor import conclude, execute_chain, format_steps
from scigate.agents._gate import FIXED_THRESHOLD, POLICIES, LinUCBGate
from scigate.agents._memory import Experience, Memory, Skill, cosine, near_duplicate
from scigate.agents._parse import as_float, numbered_items, truncate_words
from scigate.agents._prompts import (
    ACTIVE_REQUEST,
    CRITIQUE,
    DECOMPOSE,
    DIFFICULTY,
    EXPERIENCE,
    LLM_GATE,
    ONTOLOGY,
    PLAN,
    RERANK,
    REWRITE,
    SKILL,
    SKILL_MATCH,
    UNKNOWN_PICK,
)
from scigate.agents._records import Arm, GateDecision, Task, Trajectory
from scigate.agents._scoring import answer_match, canonical_names
from scigate.agents._toolspace import ToolSpace
from scigate.tools import Embedder, Tool, make_embedder, make_split

REQUEST_WORDS = 15
DOMAINS = ("biology", "chemistry", "materials")
RETRIEVALS = ("active", "rewrite")
GATES = POLICIES


@dataclass
class EvoConfig:
    """Parameters of SciToolAgent-Evo (paper defaults) and its ablation switches."""

    temperature: float = 0.3
    max_retries: int = 2
    max_tools: int = 5  # retrieval top-K
    expand_limit: int = 10  # candidates after subgraph expansion
    experience_top_k: int = 5
    # difficulty routing (Appendix G): simple when the estimated tool count is at most 2
    # and the entity count at most 4, complex above either threshold
    tool_threshold: int = 2
    entity_threshold: int = 4
    skill_threshold: float = 0.3  # embedding similarity a skill needs before the LLM check
    base_temperature: float = 0.0
    exploratory_temperatures: tuple[float, ...] = (0.2, 0.5, 0.8)
    dedup_threshold: float = 0.85
    # ablations (Tables 3 and A1)
    skills: bool = True
    experiences: bool = True
    tool_migration: bool = True
    inference_migration: bool = True
    active_requests: bool = True
    rerank: bool = True
    routing: bool = True
    gate: str = "linucb"  # linucb | fixed-threshold | llm | exploit | explore
    # fixed-threshold gate: exploit when f >= this
    gate_threshold: Annotated[float, Field(ge=0, le=1)] = FIXED_THRESHOLD
    gate_seed: int = 0  # the gate's tie-breaking generator
    # Table A1: "rewrite" replaces active requests by one rewritten retrieval query
    retrieval: str = "active"
    decompose: bool = False  # Table A1: sub-questions instead of active requests


@dataclass
class AccumulationReport:
    tasks: int = 0
    base_successes: int = 0
    exploratory_successes: int = 0
    failures: int = 0
    skills_added: int = 0
    experiences_added: int = 0
    experiences_discarded: int = 0  # near-duplicates rejected when distilled
    experiences_deduplicated: int = 0  # removed by the pass after accumulation
    unjudged: int = 0  # rollouts the reward could not decide: nothing learned from them
    migrated: list[str] = field(default_factory=list)


# The learning reward: True/False against the task's reference, None when undecidable.
Judge = Callable[[Task, Trajectory], Awaitable[bool | None]]
AnswerJudge = Callable[[Task, str | None], Awaitable[bool | None]]


def alias_table(tools: dict[str, Tool]) -> dict[str, str]:
    """Lower-case tool names and SciToolKG aliases → library tool names."""
    table = {}
    for name, t in tools.items():
        for a in t.spec.aliases:
            table[a.lower()] = name
        table[name.lower()] = name
    return table


def path_matches(task: Task, traj: Trajectory, aliases: dict[str, str] | None) -> bool | None:
    """The trajectory's chain (what it proposed, made-up names included) equal to the
    task's reference path, both normalised alike; None when the task has no path."""
    if not canonical_names(task.tool_path, aliases):
        return None
    return canonical_names(traj.scored_chain, aliases) == canonical_names(task.tool_path, aliases)


def strict_reward(checks: list[bool | None]) -> bool | None:
    """r from the checks the task's references allow (its path, its answer): False when one
    is False, True when all are True, None (nothing is learned) when there is no check or
    one is undecided and none failed."""
    if not checks or (None in checks and False not in checks):
        return None
    return all(checks)


def reference_reward(answer_judge: AnswerJudge, aliases: dict[str, str] | None = None) -> Judge:
    """The learning reward r ∈ {0, 1}: the answer judged against the reference and,
    when the task has a reference tool path, the chain equal to it (names through
    `aliases`). Whether the tools ran never counts: a wrong tool that runs is still wrong.
    None (nothing is learned) when neither reference exists or the answer is undecidable."""

    async def reward(task: Task, traj: Trajectory) -> bool | None:
        checks: list[bool | None] = []
        path = path_matches(task, traj, aliases)
        if path is not None:
            checks.append(path)
        if task.answer is not None and path is not False:  # a wrong path: no judge call
            checks.append(await answer_judge(task, traj.answer))
        return strict_reward(checks)

    return reward


async def _rule_answer(task: Task, predicted: str | None) -> bool | None:
    return answer_match(predicted, task)


class EvoAgent:
    """The agent with its evolving memory (known graph, skills, experiences, gate)."""

    def __init__(
        self,
        space: ToolSpace,
        memory: Memory | None = None,
        config: EvoConfig | None = None,
        *,
        embedder: Embedder | None = None,
    ) -> None:
        self.space = space
        self.memory = memory
        self.config = config or EvoConfig()
        self.embedder = embedder or space.embedder
        if self.config.gate not in GATES:
            raise ValueError(f"unknown gate {self.config.gate!r}")
        if self.config.retrieval not in RETRIEVALS:
            raise ValueError(f"unknown retrieval {self.config.retrieval!r}")
        self.gate = LinUCBGate(
            policy=self.config.gate,
            threshold=self.config.gate_threshold,
            seed=self.config.gate_seed,
        )
        self.explore_stats = {"attempts": 0, "successes": 0}
        # the default test-time reward: the task's own references, by the rules only
        self.rule_reward: Judge = reference_reward(_rule_answer, alias_table(space.tools))
        self._skills: list[Skill] = []
        self._experiences: list[Experience] = []
        if memory is not None:
            state = memory.get_state("gate")
            if state:
                self.gate.load_state(state)
            self.explore_stats = memory.get_state("explore_stats") or self.explore_stats
            self._skills = memory.skills()
            self._experiences = memory.experiences()

    @classmethod
    def open(
        cls,
        memory_path: str | Path,
        tools: dict[str, Tool],
        *,
        known_ratio: float = 0.5,
        split_seed: int = 0,
        config: EvoConfig | None = None,
        embedder: Embedder | None = None,
    ) -> EvoAgent:
        """Open (or create) a memory file and the tool space it describes."""
        memory = Memory(memory_path)
        space_embedder = embedder or make_embedder("builtin")
        memory.bind_embedder(space_embedder.id)  # stored vectors and queries must agree
        split = memory.split(tools)
        if split is None:
            split = make_split(tools, seed=split_seed, known_ratio=known_ratio)
            memory.save_split(split)
        space = ToolSpace(tools, split, embedder=space_embedder)
        for name, ontology in memory.migrations().items():
            space.migrate(name, ontology)
        return cls(space, memory, config)

    def close(self) -> None:
        if self.memory is not None:
            self.memory.close()

    # -- views ----------------------------------------------------------------------------------

    @property
    def skills(self) -> list[Skill]:
        return list(self._skills)

    @property
    def experiences(self) -> list[Experience]:
        return list(self._experiences)

    @property
    def exploration_prior(self) -> float:
        """p: Laplace-smoothed success rate of past unknown-tool explorations."""
        s, n = self.explore_stats["successes"], self.explore_stats["attempts"]
        return (s + 1) / (n + 2)

    def _vec(self, text: str) -> list[float]:
        return [float(v) for v in np.asarray(self.embedder.embed([text])[0])]

    # -- inference --------------------------------------------------------------------------------

    async def solve(
        self, ctx: AgentContext, task: Task, *, learn: bool = True, reward: Judge | None = None
    ) -> Trajectory:
        """Algorithm 1: route, acquire tools, execute, summarize, then update the memory
        from the strict score of the trajectory: `reward` (default: the task's reference
        answer and path, by the rules), never from whether its chain ran. A task nothing
        decides (no reference, an undecidable answer) teaches nothing."""
        traj = await self.rollout(ctx, task)
        if learn and traj.route == "complex":
            await self.learn_from(ctx, traj, await (reward or self.rule_reward)(task, traj))
        return traj

    async def learn_from(
        self, ctx: AgentContext, traj: Trajectory, verdict: bool | None
    ) -> dict[str, Any] | None:
        """The test-time update for a scored trajectory. Algorithm 1 returns right after a
        matched skill (line 7) or a simple task's CoT plan (line 13): only the acquisition
        route updates the memory. `verdict` is the strict score (right answer and, with a
        reference path, the right chain); None (unjudged) updates nothing: no bandit reward,
        no skill, no migration."""
        if traj.route != "complex":
            return None
        if verdict is None:
            ctx.emit("unjudged", question=traj.question)
            return None
        migrate = self.config.tool_migration and self.config.inference_migration
        return await self.learn(ctx, traj, success=verdict, migrate=migrate)

    async def rollout(self, ctx: AgentContext, task: Task) -> Trajectory:
        """One trajectory (plan + execute + summarize) that leaves the memory untouched."""
        started = time.perf_counter()
        ctx.space = self.space
        traj = Trajectory(method="evo", question=task.question, temperature=ctx.temperature)
        chain = await self._skill_route(ctx, task, traj)
        if chain is None:
            simple = False
            if self.config.routing:
                simple = await self._is_simple(ctx, task)
            if simple:
                traj.route = "simple"
                chain = await self._plan_simple(ctx, task)
            else:
                traj.route = "complex"
                chain = await self._acquire(ctx, task, traj)
        proposed = list(dict.fromkeys(chain))
        traj.chain = [t for t in proposed if t in self.space.tools]
        if traj.chain != proposed:  # a made-up or vanished name: scored, never run
            traj.proposed_chain = proposed
        ctx.emit("chain", route=traj.route, chain=traj.chain)
        traj.steps, traj.executed_ok = await execute_chain(
            ctx, task, traj.chain, max_retries=self.config.max_retries
        )
        return await conclude(ctx, task, traj, started)

    async def _skill_route(
        self, ctx: AgentContext, task: Task, traj: Trajectory
    ) -> list[str] | None:
        if not self.config.skills or not self._skills:
            return None
        q = self._vec(task.question)
        scored = sorted(
            ((cosine(s.embedding, q), s) for s in self._skills if s.embedding),
            key=lambda p: -p[0],
        )
        if not scored or scored[0][0] < self.config.skill_threshold:
            return None
        sim, skill = scored[0]
        reply = await ctx.ask_json(
            SKILL_MATCH.format(
                question=task.prompt_text(),
                name=skill.name,
                description=skill.description,
                chain=json.dumps(skill.tool_chain),
            ),
            purpose="skill-match",
        )
        matched = bool(reply and reply.get("match") in (True, "true", "yes", "Yes"))
        ctx.emit("skill", skill=skill.name, similarity=sim, matched=matched)
        if not matched:
            return None
        traj.route = "skill"
        if self.memory is not None and skill.id is not None:
            self.memory.use_skill(skill.id)
        return list(skill.tool_chain)  # a tool no longer in the space is dropped (and scored)

    async def _is_simple(self, ctx: AgentContext, task: Task) -> bool:
        reply = await ctx.ask_json(
            DIFFICULTY.format(question=task.prompt_text()), purpose="difficulty"
        )
        try:
            tools = int((reply or {})["estimated_tool_count"])
            entities = int((reply or {}).get("entity_count", 0))
        except (KeyError, TypeError, ValueError):
            ctx.emit("difficulty", estimated_tool_count=None, entity_count=None, route="complex")
            return False  # no usable estimate: acquire tools
        complex_ = tools > self.config.tool_threshold or entities > self.config.entity_threshold
        ctx.emit(
            "difficulty",
            estimated_tool_count=tools,
            entity_count=entities,
            route="complex" if complex_ else "simple",
        )
        return not complex_

    def _tool_lines(self, names: list[str]) -> str:
        return "\n".join(f"- {self.space.describe(n)}" for n in names) or "(none)"

    def _retrieve_known(self, query: str) -> list[tuple[str, float]]:
        """Known-graph retrieval: top-K, then the subgraph one I/O hop around them."""
        return self.space.retrieve(
            query, k=self.config.max_tools, hops=1, limit=self.config.expand_limit
        )

    async def _plan_simple(self, ctx: AgentContext, task: Task) -> list[str]:
        """CoT planning over G_K ∪ T_U (Algorithm 1, line 11): the whole known graph with
        full ontologies, and the unknown tools the question retrieves by sparse attributes."""
        known = sorted(self.space.known)
        unknown = [
            n
            for n, _ in self.space.retrieve(task.question, k=self.config.max_tools, among="unknown")
        ]
        ctx.emit("candidates", request=task.question, known_all=len(known), unknown=unknown)
        reply = await ctx.ask_json(
            PLAN.format(
                question=task.prompt_text(),
                experience_block="",
                known_tools=self._tool_lines(known),
                unknown_tools=self._tool_lines(unknown),
                error_block="",
            ),
            purpose="plan-simple",
        )
        chain = (reply or {}).get("tool_chain") or []
        # every name as planned: rollout runs the library's, Tool Accuracy scores them all
        return [str(t) for t in chain] if isinstance(chain, list) else []

    def _experience_section(self, task: Task) -> str:
        if not self.config.experiences or not self._experiences:
            return "None"
        general = [e for e in self._experiences if e.kind == "general"]
        domain = [
            e
            for e in self._experiences
            if e.kind == "domain" and (not task.domain or e.domain == task.domain)
        ]
        if domain:
            q = self._vec(task.question)
            domain = sorted(domain, key=lambda e: -cosine(e.embedding, q))
            domain = domain[: self.config.experience_top_k]
        lines = [f"- {e.guidance}" for e in general]
        lines += [f"- [{e.domain}] {e.text}" for e in domain]
        return "\n".join(lines)

    async def _requests(self, ctx: AgentContext, task: Task) -> list[str]:
        """The retrieval requests: active tool requests (the paper), or Table A1's
        alternatives: sub-questions (decompose), the raw question, each rewritten into a
        retrieval query when `retrieval == "rewrite"`."""
        if self.config.decompose:
            out = await ctx.chat(DECOMPOSE.format(question=task.prompt_text()), purpose="decompose")
            requests = numbered_items(out.text) or [task.question]
        elif self.config.active_requests and self.config.retrieval == "active":
            out = await ctx.chat(
                ACTIVE_REQUEST.format(
                    experience_section=self._experience_section(task),
                    question=task.prompt_text(),
                    error_text="None",
                ),
                purpose="active-request",
            )
            items = [truncate_words(i, REQUEST_WORDS) for i in numbered_items(out.text)]
            return items or [task.question]
        else:
            requests = [task.question]
        if self.config.retrieval == "rewrite":
            requests = [await self._rewrite(ctx, r) for r in requests]
        return requests

    async def _rewrite(self, ctx: AgentContext, query: str) -> str:
        """One model call turning a query into the retrieval query (the query if empty)."""
        out = await ctx.chat(REWRITE.format(question=query), purpose="rewrite")
        text = " ".join((out.text or "").split())
        ctx.emit("rewrite", query=query, rewritten=text or query)
        return text or query

    async def _rerank(
        self,
        ctx: AgentContext,
        task: Task,
        request: str,
        candidates: list[str],
        scores: dict[str, float],
        expected_input: str,
    ) -> tuple[str, str | None, float, float, float]:
        """(top1, top2, f, m, s) from the LLM rerank-and-score step, or from retrieval scores."""
        if self.config.rerank:
            reply = await ctx.ask_json(
                RERANK.format(
                    tool_request=request,
                    target_category=task.domain or "any",
                    expected_input=expected_input,
                    candidates_text=self._tool_lines(candidates),
                ),
                purpose="rerank",
                rerank=True,  # the separate reranker (--reranker) when there is one
            )
            if reply:
                top1 = str(reply.get("top1", ""))
                if top1 not in candidates:
                    top1 = candidates[0]
                top2 = str(reply.get("top2", ""))
                return (
                    top1,
                    top2 if top2 in candidates else None,
                    as_float(reply.get("known_top1_feasibility")),
                    as_float(reply.get("known_margin")),
                    as_float(reply.get("ontology_alignment_score")),
                )
        ranked = sorted(candidates, key=lambda n: -scores.get(n, 0.0))
        s1 = scores.get(ranked[0], 0.0)
        s2 = scores.get(ranked[1], 0.0) if len(ranked) > 1 else 0.0
        cat = self.space.ontology(ranked[0]).get("category")
        align = 1.0 if task.domain and cat == task.domain else 0.5
        second = ranked[1] if len(ranked) > 1 else None
        return ranked[0], second, s1, max(0.0, min(1.0, 0.5 + (s1 - s2))), align

    async def _acquire(self, ctx: AgentContext, task: Task, traj: Trajectory) -> list[str]:
        """Active requests → known-graph retrieval + rerank → gate → known or unknown tool."""
        traj.requests = await self._requests(ctx, task)
        ctx.emit("requests", requests=traj.requests)
        chain: list[str] = []
        for request in traj.requests:
            scores = dict(self._retrieve_known(request))
            candidates = list(scores)
            prev_out = self.space.io_types(chain[-1])[1] if chain else []
            expected = f"\nExpected input type: {', '.join(prev_out)}" if prev_out else ""
            ctx.emit("candidates", request=request, known=candidates)
            top1: str | None
            if candidates:
                top1, top2, f, m, s = await self._rerank(
                    ctx, task, request, candidates, scores, expected
                )
            else:
                top1, top2, f, m, s = None, None, 0.0, 0.0, 0.0
            x = [f, m, s, self.exploration_prior]
            arm, ucb = self.gate.choose(x)
            note = None
            if self.config.gate == "llm" and top1 is not None:
                arm, note = await self._llm_gate(ctx, request, candidates, x)
            if top1 is None:
                arm = "unknown"
            tool = top1
            unknown: list[str] = []
            if arm == "unknown":
                unknown, found = await self._search_unknown(ctx, request)
                if found is None and top1 is not None:
                    # nothing to explore: the action played (and rewarded) is exploitation,
                    # so neither the unknown arm nor the prior p is credited with it
                    arm = "known"
                    note = "; ".join(
                        n for n in (note, "no unknown tool matched; exploited the known top-1") if n
                    )
                else:
                    tool = found
            decision = GateDecision(
                request=request,
                candidates=candidates,
                top1=top1,
                top2=top2,
                unknown_candidates=unknown,
                x=x,
                scores=ucb,
                alpha=self.gate.alpha,
                arm=arm,
                tool=tool,
                note=note,
            )
            traj.decisions.append(decision)
            ctx.emit("gate", **decision.model_dump())
            if tool:
                chain.append(tool)
        return chain

    async def _llm_gate(
        self, ctx: AgentContext, request: str, candidates: list[str], x: list[float]
    ) -> tuple[Arm, str | None]:
        """Table A1's LLM-based gate: the model picks the arm from the request, the known
        candidates and the context scores; an unusable reply exploits, and says so."""
        f, m, s, p = x
        reply = await ctx.ask_json(
            LLM_GATE.format(
                tool_request=request,
                candidates_text=self._tool_lines(candidates),
                f=f,
                m=m,
                s=s,
                p=p,
            ),
            purpose="llm-gate",
        )
        action = str((reply or {}).get("action", "")).strip().lower()
        if action in ("known", "unknown"):
            return action, None  # type: ignore[return-value]
        return "known", "the LLM gate gave no usable action; exploited the known top-1"

    async def _search_unknown(
        self, ctx: AgentContext, request: str
    ) -> tuple[list[str], str | None]:
        """(unknown candidates by sparse attributes, the one picked) for a request."""
        names = [
            n for n, _ in self.space.retrieve(request, k=self.config.max_tools, among="unknown")
        ]
        ctx.emit("candidates", request=request, unknown=names)
        if len(names) <= 1:
            return names, (names[0] if names else None)
        reply = await ctx.ask_json(
            UNKNOWN_PICK.format(tool_request=request, candidates_text=self._tool_lines(names)),
            purpose="search-unknown",
        )
        pick = str((reply or {}).get("top1", ""))
        return names, (pick if pick in names else names[0])

    # -- knowledge update -----------------------------------------------------------------------

    async def learn(
        self, ctx: AgentContext, traj: Trajectory, *, success: bool, migrate: bool
    ) -> dict[str, Any]:
        """Gate update, exploration statistics, migration of used unknown tools, skill distillation."""
        reward = 1.0 if success else 0.0
        out: dict[str, Any] = {"migrated": [], "skill": None}
        for d in traj.decisions:
            self.gate.update(d.x, d.arm, reward)
            if d.arm == "unknown":
                self.explore_stats["attempts"] += 1
                self.explore_stats["successes"] += int(success)
        if any(d.arm == "known" for d in traj.decisions):
            self.gate.record_task(known_failed=not success)
        if success and migrate:
            for name in dict.fromkeys(traj.unknown_tools_used):
                if name not in self.space.unknown:
                    continue
                onto = self.space.migrate(name, await self._complete_ontology(ctx, name, traj))
                if self.memory is not None and onto is not None:
                    self.memory.migrate_tool(name, onto)
                out["migrated"].append(name)
                ctx.emit("migrate", tool=name, ontology=onto)
        if success and self.config.skills and traj.route != "skill" and traj.chain:
            skill = await self._distill_skill(ctx, traj)
            if skill is not None:
                stored = self.memory.add_skill(skill) if self.memory is not None else True
                if stored:
                    self._skills = (
                        self.memory.skills() if self.memory is not None else [*self._skills, skill]
                    )
                    out["skill"] = skill.name
                    ctx.emit("skill-added", name=skill.name, chain=skill.tool_chain)
        self._save_state()
        return out

    def _save_state(self) -> None:
        if self.memory is not None:
            self.memory.set_state("gate", self.gate.state())
            self.memory.set_state("explore_stats", self.explore_stats)

    async def _complete_ontology(
        self, ctx: AgentContext, name: str, traj: Trajectory
    ) -> dict[str, Any]:
        """The model's ontology of a used unknown tool; `ToolSpace.migrate` keeps what was
        observed (I/O types) and takes from it only what is missing."""
        steps = [s for s in traj.steps if s.tool == name]
        reply = (
            await ctx.ask_json(
                ONTOLOGY.format(
                    name=name, sparse=self.space.describe(name), history=format_steps(steps)
                ),
                purpose="ontology",
            )
            or {}
        )
        out: dict[str, Any] = {}
        for key in ("functionality", "category"):
            if reply.get(key):
                out[key] = str(reply[key])
        for key in ("inputs", "outputs", "objects", "scenarios"):
            value = reply.get(key)
            if isinstance(value, list) and value:
                out[key] = [str(v) for v in value]
        return out

    async def _distill_skill(self, ctx: AgentContext, traj: Trajectory) -> Skill | None:
        reply = await ctx.ask_json(
            SKILL.format(question=traj.question, tool_path=json.dumps(traj.chain)), purpose="skill"
        )
        if not reply or not reply.get("Ni"):
            return None
        name = re.sub(r"[^a-z0-9_]+", "_", str(reply["Ni"]).lower()).strip("_") or "skill"
        desc = str(reply.get("Zi") or name)
        return Skill(
            name=name,
            description=desc,
            tool_chain=list(traj.chain),
            question=traj.question,
            embedding=self._vec(f"{desc} {traj.question}"),
        )

    async def _distill_experience(
        self,
        ctx: AgentContext,
        task: Task,
        base: Trajectory,
        good: Trajectory,
        report: AccumulationReport,
    ) -> None:
        out = await ctx.chat(
            CRITIQUE.format(
                question=task.prompt_text(),
                failed=_describe_traj(base),
                succeeded=_describe_traj(good),
            ),
            purpose="critique",
        )
        diagnosis = (out.text or "").strip()
        ctx.emit("critique", diagnosis=diagnosis)
        reply = await ctx.ask_json(
            EXPERIENCE.format(question=task.prompt_text(), diagnosis=diagnosis),
            purpose="experience",
        )
        if not reply:
            return
        named = str(reply.get("domain") or task.domain or "").lower()
        domain = named if named in DOMAINS else (task.domain or None)
        candidates = []
        if reply.get("general_prompt"):
            rule = truncate_words(str(reply["general_prompt"]), 25)
            candidates.append(
                Experience(
                    kind="general",
                    situation="general",
                    guidance=rule,
                    embedding=self._vec(rule),
                    question=task.question,
                )
            )
        if reply.get("domain_prompt"):
            rule = truncate_words(str(reply["domain_prompt"]), 25)
            m = re.match(r"(?is)\s*(when requiring .+?),\s*(select .+)", rule)
            situation, guidance = (m.group(1), m.group(2)) if m else ("", rule)
            candidates.append(
                Experience(
                    kind="domain",
                    domain=domain,
                    situation=situation,
                    guidance=guidance,
                    embedding=self._vec(rule),
                    question=task.question,
                )
            )
        for exp in candidates:
            added = (
                self.memory.add_experience(exp, threshold=self.config.dedup_threshold)
                if self.memory is not None
                else _add_unique(self._experiences, exp, self.config.dedup_threshold)
            )
            if added:
                report.experiences_added += 1
                ctx.emit("experience-added", experience_kind=exp.kind, rule=exp.text)
            else:
                report.experiences_discarded += 1
        if self.memory is not None:
            self._experiences = self.memory.experiences()

    # -- knowledge accumulation -------------------------------------------------------------------

    async def accumulate(
        self, ctx: AgentContext, tasks: list[Task], judge: Judge
    ) -> AccumulationReport:
        """Phase I over training tasks: T=0 rollout; on failure three exploratory ones and distillation."""
        report = AccumulationReport()
        migrate = self.config.tool_migration
        for task in tasks:
            report.tasks += 1
            base = await self.rollout(ctx.fork(temperature=self.config.base_temperature), task)
            self._absorb(ctx, base)
            verdict = await judge(task, base)
            if verdict is None:  # no reference decides it: learning from it could lock in a mistake
                report.unjudged += 1
                ctx.emit("unjudged", question=task.question)
                continue
            if verdict:
                report.base_successes += 1
                res = await self.learn(ctx, base, success=True, migrate=migrate)
                report.skills_added += int(res["skill"] is not None)
                report.migrated += res["migrated"]
                continue
            explorations = await asyncio.gather(
                *(
                    self.rollout(ctx.fork(temperature=t), task)
                    for t in self.config.exploratory_temperatures
                )
            )
            for e in explorations:
                self._absorb(ctx, e)
            await self.learn(ctx, base, success=False, migrate=False)
            good = None
            for e in explorations:
                if await judge(task, e) is True:
                    good = e
                    break
            if good is None:
                report.failures += 1
                continue
            report.exploratory_successes += 1
            if self.config.experiences:
                await self._distill_experience(ctx, task, base, good, report)
            res = await self.learn(ctx, good, success=True, migrate=migrate)
            report.skills_added += int(res["skill"] is not None)
            report.migrated += res["migrated"]
        # Appendix G: after accumulation the pool is deduplicated at θ_sim once more
        report.experiences_deduplicated = self._dedup_pool()
        return report

    def _dedup_pool(self) -> int:
        """Drop experiences more similar than θ_sim to an earlier one; count dropped."""
        if self.memory is not None:
            removed = self.memory.dedup_experiences(self.config.dedup_threshold)
            self._experiences = self.memory.experiences()
            return removed
        kept: list[Experience] = []
        for e in self._experiences:
            _add_unique(kept, e, self.config.dedup_threshold)
        removed = len(self._experiences) - len(kept)
        self._experiences = kept
        return removed

    @staticmethod
    def _absorb(ctx: AgentContext, traj: Trajectory) -> None:
        ctx.usage.add(traj.usage)


def _add_unique(pool: list[Experience], exp: Experience, threshold: float) -> bool:
    if near_duplicate(exp.embedding, (e.embedding for e in pool), threshold):
        return False
    pool.append(exp)
    return True


def _describe_traj(traj: Trajectory) -> str:
    lines = [f"Tool chain: {json.dumps(traj.chain)}"]
    if traj.requests:
        lines.append("Requests: " + "; ".join(traj.requests))
    lines.append("Steps:\n" + format_steps(traj.steps))
    lines.append(f"Answer: {traj.answer}")
    return "\n".join(lines)
