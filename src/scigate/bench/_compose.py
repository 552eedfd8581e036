"""Composing a task before it is worded: a reference path, entities, executed values, the
rule that gives the answer, and near-miss answers executed for distractors.

Paths come from a connected same-domain subset of the tool graph; every step consumes the
entity or an output of an earlier step (by I/O type), and the steps no later one consumes
give the answer. Nothing here is invented: distractors are the answers of near-miss paths
(the same path on another entity, a sibling tool on the same entity), thresholds lie
strictly between executed values.
"""

from __future__ import annotations

import functools
import math
import random
import re
from typing import Any

from pydantic import BaseModel, Field

from scigate.bench._answer import core_answer, same_answer
from scigate.bench._catalog import ToolRole, given_for, tool_roles
from scigate.bench._entities import Entity
from scigate.errors import BadInput
from scigate.tools import PlanRun, format_value, get_tool, make_plan, run_plan, type_accepts

# What a derived input is called in a question ("the isoelectric point of its encoded peptide").
DERIVED = {"protein sequence": "encoded peptide", "RNA sequence": "transcript"}
LEVEL_TOOLS = {1: (1, 2), 2: (2, 4), 3: (3, 6), 4: (5, 10)}
CANDIDATES = 4  # entities of a selection task: the four options a screen is shown


class Rejected(Exception):
    """The attempt cannot make a task; the message is the one-line reason."""


class Draft(BaseModel):
    """An executed, not yet worded task."""

    level: int
    domain: str
    kind: str
    path: list[str]
    entities: list[Entity]
    rule: dict[str, Any] | None = None
    core: str
    outputs: list[str]
    runs: list[dict[str, Any]]  # per entity: {"entity", "values"}
    distractors: list[dict[str, str]] = Field(default_factory=list)  # {"value", "how"}

    def phrase(self, tool: str) -> str:
        """How a question names the output of `tool` (of the encoded peptide, of the
        transcript, when the tool works on something derived from the entity)."""
        role = tool_roles()[tool]
        derived = DERIVED.get(role.input_type)
        if derived and role.input_type != self.entities[0].type:
            return f"{role.phrase} of its {derived}"
        return role.phrase


def sample_subset(domain: str, entity_type: str, rng: random.Random, size: int) -> list[str]:
    """A connected subset of the domain's usable tools, grown through the tool graph from
    the tools that take `entity_type` (the paper's small same-domain subsets)."""
    graph = _domain_graph(domain)
    seeds = list(graph.consumers(entity_type))
    rng.shuffle(seeds)
    return graph.expand(seeds[:3], hops=3, max_size=size)


@functools.lru_cache(maxsize=8)
def _domain_graph(domain: str) -> Any:
    from scigate.tools import ToolGraph

    pool = [r.name for r in tool_roles().values() if r.domain == domain]
    return ToolGraph.from_tools([get_tool(n) for n in pool])


def _usable(role: ToolRole, available: set[str]) -> bool:
    return any(type_accepts(role.input_type, t) for t in available)


def sample_path(
    domain: str, entity_type: str, k: int, rng: random.Random, numeric: bool, tries: int = 40
) -> list[str]:
    """A path of `k` tools from a sampled subset whose outputs (unconsumed steps) are all
    answer tools (numeric ones when `numeric`); `Rejected` when none is found."""
    roles = tool_roles()
    for _ in range(tries):
        subset = [roles[n] for n in sample_subset(domain, entity_type, rng, max(12, 3 * k))]
        available, path = {entity_type}, []
        while len(path) < k:
            # a tool whose output type is already there (a mutated or "deprotected" copy of
            # the entity) would silently change what later steps and the question are about
            options = [
                r
                for r in subset
                if r.name not in path
                and _usable(r, available)
                and not any(t in available for t in r.output_types)
            ]
            if not options:
                break
            pick = rng.choice(options)
            path.append(pick.name)
            available |= set(pick.output_types)
        if len(path) != k:
            continue
        try:
            plan = make_plan(path, entity_type=entity_type, given=given_for(path))
        except BadInput:
            continue
        sinks = [roles[plan.steps[i - 1].tool] for i in plan.outputs]
        if all((s.numeric if numeric else s.scalar) for s in sinks):
            return path
    raise Rejected(f"no {k}-tool {domain} path from {entity_type} with answerable outputs")


def execute(path: list[str], entities: list[Entity], cache: dict | None = None) -> list[PlanRun]:
    """Run the path on each entity; `Rejected` naming the first failing entity and step."""
    plan = make_plan(path, entity_type=entities[0].type, given=given_for(path))
    runs = [run_plan(plan, e.value, cache=cache) for e in entities]
    for e, run in zip(entities, runs, strict=True):
        if not run.ok:
            raise Rejected(f"{e.name}: {run.error}")
    return runs


def reproducible(path: list[str], entities: list[Entity]) -> list[PlanRun]:
    """Execute twice without a cache; `Rejected` when any output changes between runs."""
    first = execute(path, entities)
    second = execute(path, entities)
    for e, a, b in zip(entities, first, second, strict=True):
        if a.values != b.values:
            raise Rejected(
                f"answer changed between executions ({e.name}: {a.answer()} vs {b.answer()})"
            )
    return first


def nice_between(lo: float, hi: float, avoid: set[str]) -> float | None:
    """The roundest number strictly between lo and hi whose display is not in `avoid`
    (a half for two neighbouring counts: 'below 1.5' rather than 'below 1.1')."""
    if float(lo).is_integer() and float(hi).is_integer() and hi - lo <= 1:
        half = lo + 0.5
        return half if format_value(half) not in avoid else None
    for digits in range(0, 7):
        step = 10.0**-digits
        x = math.floor(lo / step + 1) * step
        for _ in range(50):  # a few neighbours per rounding level, then finer
            x = round(x, digits)
            if not x < hi:
                break
            shown = format_value(float(x))
            if lo < x and shown not in avoid and not (x.is_integer() and str(int(x)) in avoid):
                return x
            x += step
    return None


def selection_rule(
    entities: list[Entity], runs: list[PlanRun], outputs: list[str], rng: random.Random
) -> dict[str, Any]:
    """A rule (objective plus constraints over the outputs) that singles out one entity,
    with thresholds strictly between executed values; `Rejected` if none does."""
    values = {t: [float(r.values[t]) for r in runs] for t in outputs}
    avoid = {format_value(v) for r in runs for s in r.steps for v in [s.result.value]} | {
        format_value(v) for vs in values.values() for v in vs
    }
    order = list(range(len(entities)))
    rng.shuffle(order)
    objective_choices = list(outputs)
    rng.shuffle(objective_choices)
    for objective in objective_choices:
        for w in order:
            constraints = []
            for t in outputs:
                if t == objective:
                    continue
                vw = values[t][w]
                above = [v for i, v in enumerate(values[t]) if i != w and v > vw]
                below = [v for i, v in enumerate(values[t]) if i != w and v < vw]
                choices = []
                if above:
                    choices.append(("<", vw, min(above)))
                if below:
                    choices.append((">", max(below), vw))
                if not choices:  # every candidate has this value: a bound all of them meet
                    choices.append(("<", vw, vw + max(1.0, abs(vw))))
                cmp, lo, hi = rng.choice(choices)
                threshold = nice_between(lo, hi, avoid)
                if threshold is None:
                    break
                constraints.append({"output": t, "cmp": cmp, "value": threshold})
            else:
                meeting = [
                    i
                    for i in range(len(entities))
                    if all(
                        (values[c["output"]][i] < c["value"])
                        if c["cmp"] == "<"
                        else (values[c["output"]][i] > c["value"])
                        for c in constraints
                    )
                ]
                scores = [values[objective][i] for i in meeting]
                ops = []
                if max(scores) == values[objective][w] and scores.count(max(scores)) == 1:
                    ops.append("max")
                if min(scores) == values[objective][w] and scores.count(min(scores)) == 1:
                    ops.append("min")
                if ops:
                    return {"op": rng.choice(ops), "output": objective, "constraints": constraints}
    raise Rejected("no objective and thresholds single out one candidate")


def _siblings(tool: str, domain: str) -> list[str]:
    roles = tool_roles()
    me = roles[tool]
    return sorted(
        r.name
        for r in roles.values()
        if r.name != tool
        and r.domain == domain
        and r.input_type == me.input_type
        and r.scalar
        and r.numeric == me.numeric
    )


def _shape(answer: str) -> tuple[str, ...]:
    """Per item: 'int', 'float' or 'text', so distractors look like the answer."""
    shapes = []
    for item in answer.split(";"):
        text = item.strip()
        if re.fullmatch(r"[-+]?\d+", text):
            shapes.append("int")
        elif re.fullmatch(r"[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?", text):
            shapes.append("float")
        else:
            shapes.append("text")
    return tuple(shapes)


def near_misses(
    draft: Draft, pool: list[Entity], rng: random.Random, cache: dict, want: int = 3
) -> list[dict[str, str]]:
    """Answers of near-miss paths for a single-entity task: the same path on other
    entities and a sibling tool in place of an output tool; `Rejected` below `want`."""
    found: list[dict[str, str]] = []

    def add(value: str | None, how: str) -> None:
        if (
            value
            and not same_answer(value, draft.core)
            and not any(same_answer(value, f["value"]) for f in found)
        ):
            found.append({"value": value, "how": how})

    others = [e for e in pool if e.value != draft.entities[0].value]
    rng.shuffle(others)
    kinds = ["entity", "sibling"] * 4
    rng.shuffle(kinds)
    sibling_paths = []
    for out in draft.outputs:
        for sib in _siblings(out, draft.domain):
            if sib not in draft.path:
                sibling_paths.append([sib if t == out else t for t in draft.path])
    rng.shuffle(sibling_paths)
    for kind in kinds + ["entity"] * 6:
        if len(found) >= want:
            break
        if kind == "entity" and others:
            e = others.pop()
            try:
                run = execute(draft.path, [e], cache)[0]
            except (Rejected, BadInput):
                continue
            add(run.answer(), f"same path on {e.name}")
        elif kind == "sibling" and sibling_paths:
            path = sibling_paths.pop()
            try:
                run = execute(path, draft.entities, cache)[0]
            except (Rejected, BadInput):
                continue
            add(run.answer(), f"path {' -> '.join(path)}")
    if len(found) < want:
        raise Rejected(f"only {len(found)} distinct near-miss answers")
    return found[:want]


def compose(
    level: int, domain: str, kind: str, pool: list[Entity], rng: random.Random, cache: dict
) -> Draft:
    """Sample, execute (twice) and decide the answer of one task."""
    lo, hi = LEVEL_TOOLS[level]
    sizes = list(range(lo, hi + 1))
    rng.shuffle(sizes)
    entity_type = pool[0].type
    for k in sizes:
        try:
            path = sample_path(domain, entity_type, k, rng, numeric=level >= 2, tries=12)
            break
        except Rejected:
            continue
    else:
        raise Rejected(
            f"no {lo}-{hi}-tool {domain} path from {entity_type} with answerable outputs"
        )
    if level == 1:
        entities = [rng.choice(pool)]
    else:
        if len(pool) < CANDIDATES:
            raise Rejected(f"fewer than {CANDIDATES} {kind} entities")
        entities = rng.sample(pool, CANDIDATES)
    runs = reproducible(path, entities)
    plan = runs[0].plan
    outputs = [plan.steps[i - 1].tool for i in plan.outputs]
    rule = None if level == 1 else selection_rule(entities, runs, outputs, rng)
    labels = [e.label for e in entities]
    core = core_answer(labels, runs, rule)
    draft = Draft(
        level=level,
        domain=domain,
        kind=kind,
        path=path,
        entities=entities,
        rule=rule,
        core=core,
        outputs=outputs,
        runs=[{"entity": e.label, "values": r.values} for e, r in zip(entities, runs, strict=True)],
    )
    if level == 1:
        draft.distractors = near_misses(draft, pool, rng, cache)
    else:
        draft.distractors = [
            {"value": e.label, "how": "another candidate, which the rule does not select"}
            for e in entities
            if e.label != core
        ]
    return draft
