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
from scigate.bench._conventions import (
    alternative_values,
    conventions_of,
    is_stated,
    subset,
    threshold_values,
)
from scigate.bench._entities import Entity
from scigate.errors import BadInput
from scigate.tools import PlanRun, format_value, get_tool, make_plan, run_plan, type_accepts

# What a derived input is called in a question ("the isoelectric point of its encoded peptide").
DERIVED = {"protein sequence": "encoded peptide", "RNA sequence": "transcript"}
LEVEL_TOOLS = {1: (1, 2), 2: (2, 4), 3: (3, 6), 4: (5, 10)}
CANDIDATES = 4  # entities of a selection task: the four options a screen is shown
POOL = 20  # entities executed for a selection task, from which its candidates are chosen
MARGIN = 0.02  # default relative distance of a threshold from every candidate's value
PRECISION = "3 significant figures"  # of a non-integer numeric answer


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
    distractors: list[dict[str, str]] = Field(default_factory=list)  # {"value", "how", "type"}
    # how precisely a numeric answer is asked for ("3 significant figures"), None: exactly
    precision: str | None = None
    checks: dict[str, str] = Field(default_factory=dict)  # the checks it passed, with a note

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
    domain: str,
    entity_type: str,
    k: int,
    rng: random.Random,
    numeric: bool,
    tries: int = 40,
    max_outputs: int | None = None,
) -> list[str]:
    """A path of `k` tools from a sampled subset whose outputs (unconsumed steps) are all
    answer tools (numeric ones when `numeric`); `Rejected` when none is found."""
    roles = tool_roles()
    for _ in range(tries):
        subset = [roles[n] for n in sample_subset(domain, entity_type, rng, max(12, 3 * k))]
        available = {entity_type}
        path: list[str] = []
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
        if max_outputs is not None and len(sinks) > max_outputs:
            continue
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


def rel_distance(x: float, v: float) -> float:
    """How far threshold `x` lies from value `v`, relative to `v` (inf from a zero value)."""
    if v == 0:
        return math.inf if x != 0 else 0.0
    return abs(x - v) / abs(v)


def _margin_of(x: float, values: list[float]) -> float:
    return min((rel_distance(x, v) for v in values), default=math.inf)


def _readable(x: float, digits: int) -> float:
    if x == 0:
        return 0.0
    return round(x, digits - 1 - math.floor(math.log10(abs(x))))


def nice_between(
    lo: float, hi: float, avoid: set[str], values: list[float] | None = None, margin: float = 0.0
) -> float | None:
    """A threshold in the middle of the gap (lo, hi), at a relative distance of at least
    `margin` from every one of `values` (default: lo and hi); rounded to the fewest
    significant figures that keep it there and whose display is not in `avoid`. None
    when the middle itself is closer than `margin` to a value."""
    values = [lo, hi] if values is None else values
    mid = (lo + hi) / 2
    if not lo < mid < hi or _margin_of(mid, values) < margin:
        return None
    if float(lo).is_integer() and float(hi).is_integer() and hi - lo <= 1:
        candidates = [lo + 0.5]
    else:
        candidates = [_readable(mid, d) for d in range(1, 7)] + [mid]
    for x in candidates:
        x = float(x)
        shown = format_value(x)
        if not lo < x < hi or _margin_of(x, values) < margin or shown in avoid:
            continue
        if x.is_integer() and str(int(x)) in avoid:
            continue
        return x
    return None


# The acceptance checks of an item, in the order a build reports them.
CHECKS = (
    "margin",
    "vacuous constraint",
    "constraint needed",
    "objective",
    "conventions",
    "tool needed",
    "distractor type",
)
# Tools whose output is read off the input's text (a count in the formula, T->U, a
# complement): a task decided by them alone needs no scientific tool.
TEXT_TOOLS = {
    "TranscribeDNAtoRNA",
    "BackTranscribeRNAtoDNA",
    "GetComplement",
    "GetReverseComplement",
    "CountAtomsInFormula",
    "CountElementsInFormula",
    "GetChemicalSystemFromFormula",
    "GetFormulaAnonymousByFormula",
    "GetReducedFormula",
    "GetHillFormula",
}


class CheckFailed(Rejected):
    """A draft that fails one of CHECKS; the message starts with the check's name."""

    def __init__(self, check: str, why: str) -> None:
        super().__init__(f"{check}: {why}")
        self.check = check
        self.passed: dict[str, str] = {}  # the checks the draft passed before this one


def _meets(values: dict[str, list[float]], i: int, constraints: list[dict[str, Any]]) -> bool:
    return all(
        (values[c["output"]][i] < c["value"])
        if c["cmp"] == "<"
        else (values[c["output"]][i] > c["value"])
        for c in constraints
    )


def _winner(
    values: dict[str, list[float]], op: str, objective: str, constraints: list[dict[str, Any]]
) -> tuple[int | None, list[int]]:
    """The single candidate the rule selects (None when none or a tie) and those meeting it."""
    meeting = [i for i in range(len(values[objective])) if _meets(values, i, constraints)]
    if not meeting:
        return None, meeting
    scores = [values[objective][i] for i in meeting]
    best = max(scores) if op == "max" else min(scores)
    winners = [i for i, s in zip(meeting, scores, strict=True) if s == best]
    return (winners[0] if len(winners) == 1 else None), meeting


def rule_checks(
    values: dict[str, list[float]],
    rule: dict[str, Any],
    margin: float,
    alternatives: dict[str, list[float]] | None = None,
) -> dict[str, str]:
    """Check a selection rule over the candidates' executed values: thresholds at least
    `margin` (relative) from every candidate's value and from every value it has under an
    alternative convention (`alternatives`: output -> values), no constraint met by all, every
    constraint needed (dropping it changes the answer or makes it non-unique), an objective
    that decides between at least two candidates. The passed checks with a note;
    `CheckFailed` naming the first that fails."""
    constraints = rule.get("constraints") or []
    op, objective = rule["op"], rule["output"]
    n = len(values[objective])
    worst = math.inf
    alternatives = alternatives or {}
    for c in constraints:
        m = _margin_of(float(c["value"]), values[c["output"]])
        alt = _margin_of(float(c["value"]), alternatives.get(c["output"], []))
        if min(m, alt) < margin:
            which = "a candidate's value" if m <= alt else "an alternative-convention value"
            raise CheckFailed(
                "margin",
                f"threshold {c['value']:g} on {c['output']} lies {min(m, alt):.2%} from "
                f"{which} (at least {margin:.0%} needed)",
            )
        worst = min(worst, m, alt)
    for c in constraints:
        if all(_meets(values, i, [c]) for i in range(n)):
            raise CheckFailed(
                "vacuous constraint", f"every candidate has {c['output']} {c['cmp']} {c['value']:g}"
            )
    winner, meeting = _winner(values, op, objective, constraints)
    if winner is None:
        raise CheckFailed("objective", "the rule selects no single candidate")
    if len(meeting) < 2:
        raise CheckFailed(
            "objective",
            f"only one candidate meets the constraints: the {op} of {objective} decides nothing",
        )
    for k, c in enumerate(constraints):
        rest = constraints[:k] + constraints[k + 1 :]
        if _winner(values, op, objective, rest)[0] == winner:
            raise CheckFailed(
                "constraint needed",
                f"{c['output']} {c['cmp']} {c['value']:g} can be dropped without changing the answer",
            )
    return {
        "margin": f"smallest threshold distance {worst:.1%}" if constraints else "no thresholds",
        "vacuous constraint": f"each of {len(constraints)} constraints excludes a candidate",
        "constraint needed": f"dropping any of {len(constraints)} constraints changes the answer",
        "objective": f"the {op} of {objective} decides between {len(meeting)} candidates",
    }


def _alt_by_output(alts: dict[str, Any]) -> dict[str, list[float]]:
    outputs = {t for _, vals in alts.values() for t in vals}
    return {t: threshold_values(alts, t) for t in outputs}


def convention_checks(
    path: list[str],
    entities: list[Entity],
    values: dict[str, list[float]],
    rule: dict[str, Any] | None,
    alts: dict[str, Any],
    precision: str | None,
) -> dict[str, str]:
    """Every convention the path computes under is stated in the question's phrase, or
    the decision (the candidate the rule selects) or the answer (each output at the stated
    precision, exactly without one) is the same under every alternative the library
    computes (`alts`, from `alternative_values`); `CheckFailed("conventions")` otherwise."""
    convs = conventions_of(path)
    if not convs:
        return {"conventions": "no convention-dependent tool"}
    stated = {c.aspect for c in convs if is_stated(c, path, entities)}
    checked = 0
    for key, (conv, alt) in alts.items():
        if is_stated(conv, path, entities):
            continue
        checked += 1
        # where an alternative cannot be computed for an entity, its value stands
        other = {
            t: [a if a is not None else v for a, v in zip(alt.get(t, vs), vs, strict=True)]
            for t, vs in values.items()
        }
        if rule is not None:
            won = _winner(values, rule["op"], rule["output"], rule["constraints"])[0]
            alt_won = _winner(other, rule["op"], rule["output"], rule["constraints"])[0]
            if alt_won != won:
                raise CheckFailed(
                    "conventions",
                    f"the {conv.aspect} of {conv.tool} is not stated and under {key} the "
                    "rule selects another candidate or none",
                )
            continue
        for t, vs in values.items():
            a, v = other[t][0], vs[0]
            same = _within_precision(str(a), str(v)) if precision else a == v
            if not same:
                raise CheckFailed(
                    "conventions",
                    f"the {conv.aspect} of {conv.tool} is not stated and under {key} the "
                    f"answer is {a:g}, not {v:g}",
                )
    parts = []
    if stated:
        parts.append(f"stated: {', '.join(sorted(stated))}")
    if checked:
        parts.append(f"unchanged under {checked} unstated alternatives")
    if not parts:
        parts.append("no alternative computable")
    return {"conventions": "; ".join(parts) + f" ({len(alts)} alternatives computed)"}


def _ancestors(plan: Any, step: int) -> set[str]:
    """The tools step `step` (1-based) depends on, itself included."""
    seen, todo = set(), [step]
    while todo:
        i = todo.pop()
        if i in seen:
            continue
        seen.add(i)
        todo.extend(
            int(b.source.split()[1])
            for b in plan.steps[i - 1].bindings
            if b.source.startswith("step ")
        )
    return {plan.steps[i - 1].tool for i in seen}


def tool_checks(level: int, plan: Any, used: list[str]) -> dict[str, str]:
    """Every tool of the plan needed for the outputs the answer uses (`used`), and from
    level 2 up at least one of them a scientific tool (not a text operation)."""
    outputs = [plan.steps[i - 1].tool for i in plan.outputs]
    unused = [t for t in outputs if t not in used]
    if unused:
        raise CheckFailed("tool needed", f"the answer does not use the output of {unused[0]}")
    needed: set[str] = set()
    for i in plan.outputs:
        needed |= _ancestors(plan, i)
    idle = [s.tool for s in plan.steps if s.tool not in needed]
    if idle:
        raise CheckFailed("tool needed", f"no output depends on {idle[0]}")
    scientific = needed - TEXT_TOOLS
    if not scientific:
        if level > 1:
            raise CheckFailed(
                "tool needed",
                "no scientific tool needed: the answer is read off the input's text "
                f"({', '.join(sorted(needed))})",
            )
        return {"tool needed": f"all {len(plan.steps)} tools; no scientific tool (level 1)"}
    return {"tool needed": f"all {len(plan.steps)} tools"}


def _search_rule(
    values: dict[str, list[float]],
    outputs: list[str],
    avoid: set[str],
    rng: random.Random,
    margin: float,
    tries: int = 80,
    alts: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], list[int]] | str:
    """A rule and the candidates (indices into the executed pool) it is stated over:
    one winner, for each constraint a candidate that beats the winner on the objective
    and is the only one to fail that constraint, one more that meets every constraint
    and loses on the objective; thresholds in the middle of margin-wide gaps. The check
    that stopped the last try when none is found."""
    n = len(values[outputs[0]])
    why = "constraint needed"
    for _ in range(tries):
        objective = rng.choice(outputs)
        op = rng.choice(("max", "min"))
        w = rng.randrange(n)
        score = values[objective]
        sign = 1 if op == "max" else -1
        better = [i for i in range(n) if sign * (score[i] - score[w]) > 0]
        worse = [i for i in range(n) if sign * (score[i] - score[w]) < 0]
        others = [t for t in outputs if t != objective]
        if len(better) < len(others) or not worse:
            why = "objective" if not worse else "constraint needed"
            continue
        rng.shuffle(others)
        chosen = [w, rng.choice(worse)]
        free = list(better)
        plan = []
        for t in others:  # the most extreme free beater on t blocks t
            cmp = rng.choice(("<", ">"))
            key = (lambda i, t=t: values[t][i]) if cmp == "<" else (lambda i, t=t: -values[t][i])
            b = max(free, key=key)
            free.remove(b)
            chosen.append(b)
            plan.append((t, cmp, b))
        constraints = []
        for t, cmp, b in plan:
            vals = [values[t][i] for i in chosen]
            rest = [values[t][i] for i in chosen if i != b]
            vb = values[t][b]
            if cmp == "<" and vb > max(rest):
                lo, hi = max(rest), vb
            elif cmp == ">" and vb < min(rest):
                lo, hi = vb, min(rest)
            else:
                why = "constraint needed"
                break
            if alts:  # thresholds keep the margin from alternative-convention values too
                vals = vals + threshold_values(subset(alts, chosen), t)
            x = nice_between(lo, hi, avoid, vals, margin)
            if x is None:
                why = "margin"
                break
            constraints.append({"output": t, "cmp": cmp, "value": x})
        else:
            return {"op": op, "output": objective, "constraints": constraints}, chosen
    return why


def selection_rule(
    entities: list[Entity],
    runs: list[PlanRun],
    outputs: list[str],
    rng: random.Random,
    margin: float = 0.02,
    alts: dict[str, Any] | None = None,
    checks: bool = True,
) -> tuple[dict[str, Any], list[int]]:
    """A rule (objective plus one constraint per other output) that singles out one
    candidate and passes `rule_checks`, with the candidates it is stated over (indices
    into `entities`, at least CANDIDATES of them when the pool allows); `CheckFailed`
    naming the check no rule could pass."""
    values = {t: [float(r.values[t]) for r in runs] for t in outputs}
    avoid = {format_value(v) for r in runs for s in r.steps for v in [s.result.value]} | {
        format_value(v) for vs in values.values() for v in vs
    }
    alts = alts or {}
    found = _search_rule(values, outputs, avoid, rng, margin, alts=alts)
    if isinstance(found, str):
        why = {
            "margin": f"no gap of {margin:.0%} around a threshold",
            "objective": "no objective leaves two candidates to decide between",
            "constraint needed": f"no {len(outputs) + 1} of {len(entities)} candidates make "
            f"each of {len(outputs) - 1} constraints needed",
        }[found]
        raise CheckFailed(found, f"{why} ({len(outputs)} outputs)")
    rule, chosen = found
    # pad to CANDIDATES with candidates the rule excludes or ranks below the winner,
    # keeping every threshold margin-wide
    pool = [i for i in range(len(entities)) if i not in chosen]
    rng.shuffle(pool)
    for i in pool:
        if len(chosen) >= CANDIDATES:
            break
        trial = [*chosen, i]
        sub = {t: [values[t][j] for j in trial] for t in outputs}
        try:
            if checks:
                rule_checks(sub, rule, margin, _alt_by_output(subset(alts, trial)))
        except CheckFailed:
            continue
        if _winner(sub, rule["op"], rule["output"], rule["constraints"])[0] == 0:
            chosen = trial
    if len(chosen) < CANDIDATES:
        raise Rejected(f"no {CANDIDATES} candidates keep the rule's checks")
    rng.shuffle(chosen)
    sub = {t: [values[t][j] for j in chosen] for t in outputs}
    if checks:
        rule_checks(sub, rule, margin, _alt_by_output(subset(alts, chosen)))
    return rule, chosen


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


def _kind(tool: str) -> str:
    """The type and unit of a tool's answer: 'count' for every count, else its output
    type (a molecular weight, a density, an electronegativity)."""
    types = tool_roles()[tool].output_types
    if all(t.lower().startswith("number of") for t in types):
        return "count"
    return "/".join(types)


def answer_type(path: list[str]) -> str:
    """The type and unit of a path's answer: its output tools' output types."""
    plan = make_plan(path, given=given_for(path))
    return "; ".join(_kind(plan.steps[i - 1].tool) for i in plan.outputs)


def distractor_checks(draft: Draft) -> dict[str, str]:
    """Every distractor has the answer's type and unit and looks like it (a count for a
    count); at the stated precision it differs from the answer."""
    want = answer_type(draft.path) if draft.level == 1 else "candidate"
    shape = _shape(draft.core)
    for d in draft.distractors:
        got = d.get("type", "")
        if got != want or (draft.level == 1 and _shape(d["value"]) != shape):
            raise CheckFailed(
                "distractor type",
                f"{d['value'][:40]!r} ({got or 'untyped'}, {d.get('how', '')}) offered for "
                f"an answer of type {want}",
            )
        if draft.precision and _within_precision(d["value"], draft.core):
            raise CheckFailed(
                "distractor type",
                f"{d['value'][:40]!r} equals the answer to {draft.precision}",
            )
    return {"distractor type": f"{len(draft.distractors)} distractors of type {want}"}


def _within_precision(a: str, b: str) -> bool:
    try:
        x = [float(i) for i in a.split(";")]
        y = [float(i) for i in b.split(";")]
    except ValueError:
        return False
    # the scorer's tolerance at 3 significant figures: half a unit of the third digit
    return len(x) == len(y) and all(
        abs(p - q) <= (0.5 * 10.0 ** (math.floor(math.log10(abs(q))) - 2) if q else 1e-9)
        for p, q in zip(x, y, strict=True)
    )


def precision_of(core: str) -> str | None:
    """The precision a numeric answer is asked for: PRECISION when an item is not an
    integer, None (exact) for counts and text."""
    return PRECISION if "float" in _shape(core) else None


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
    entities and a sibling tool in place of an output tool; `Rejected` below `want`.
    A near miss of another type or unit than the answer (a count offered for an
    electronegativity) is passed over for the next one."""
    found: list[dict[str, str]] = []

    want_type = answer_type(draft.path)

    def add(value: str | None, how: str, path: list[str]) -> None:
        kind = answer_type(path)
        if (
            value
            and kind == want_type
            and _shape(value) == _shape(draft.core)
            and not same_answer(value, draft.core)
            and not (draft.precision and _within_precision(value, draft.core))
            and not any(same_answer(value, f["value"]) for f in found)
        ):
            found.append({"value": value, "how": how, "type": kind})

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
            add(run.answer(), f"same path on {e.name}", draft.path)
        elif kind == "sibling" and sibling_paths:
            path = sibling_paths.pop()
            try:
                run = execute(path, draft.entities, cache)[0]
            except (Rejected, BadInput):
                continue
            add(run.answer(), f"path {' -> '.join(path)}", path)
    if len(found) < want:
        raise Rejected(f"only {len(found)} distinct near-miss answers")
    return found[:want]


def compose(
    level: int,
    domain: str,
    kind: str,
    pool: list[Entity],
    rng: random.Random,
    cache: dict,
    margin: float = MARGIN,
    checks: bool = True,
) -> Draft:
    """Sample, execute (twice) and decide the answer of one task, and run its CHECKS
    (`CheckFailed` naming the first that fails, with `passed`: the checks it passed
    before). `checks=False` (to measure what the checks cost) runs none: no margin, no
    alternative conventions, no necessity checks; the draft then carries no check record."""
    passed: dict[str, str] = {}
    try:
        return _compose(level, domain, kind, pool, rng, cache, margin, checks, passed)
    except CheckFailed as exc:
        exc.passed = dict(passed)
        raise


def _compose(
    level: int,
    domain: str,
    kind: str,
    pool: list[Entity],
    rng: random.Random,
    cache: dict,
    margin: float,
    checks: bool,
    passed: dict[str, str],
) -> Draft:
    """`compose`, adding each check it passes to `passed` as it goes."""
    if not checks:
        margin = 0.0
    lo, hi = LEVEL_TOOLS[level]
    sizes = list(range(lo, hi + 1))
    rng.shuffle(sizes)
    entity_type = pool[0].type
    # a selection rule needs a candidate per constraint and two more (see `_search_rule`)
    max_outputs = None if level == 1 else min(len(pool), POOL) - 1
    for k in sizes:
        try:
            path = sample_path(
                domain, entity_type, k, rng, numeric=level >= 2, tries=12, max_outputs=max_outputs
            )
            break
        except Rejected:
            continue
    else:
        raise Rejected(
            f"no {lo}-{hi}-tool {domain} path from {entity_type} with answerable outputs"
        )
    if level == 1:
        entities = [rng.choice(pool)]
        rule = None
        runs = reproducible(path, entities)
        plan = runs[0].plan
        outputs = [plan.steps[i - 1].tool for i in plan.outputs]
        passed |= {
            "margin": "no thresholds",
            "vacuous constraint": "no constraints",
            "constraint needed": "no constraints",
            "objective": "no objective",
        }
    else:
        if len(pool) < CANDIDATES:
            raise Rejected(f"fewer than {CANDIDATES} {kind} entities")
        tried = rng.sample(pool, min(len(pool), POOL))
        plan = make_plan(path, entity_type=entity_type, given=given_for(path))
        ran = [(e, run_plan(plan, e.value, cache=cache)) for e in tried]
        ran = [(e, r) for e, r in ran if r.ok]
        if len(ran) < CANDIDATES:
            raise Rejected(f"the path runs on only {len(ran)} of {len(tried)} {kind} entities")
        tried, first = [e for e, _ in ran], [r for _, r in ran]
        outputs = [plan.steps[i - 1].tool for i in plan.outputs]
        pool_alts = alternative_values(path, tried, first, outputs, cache) if checks else {}
        rule, chosen = selection_rule(tried, first, outputs, rng, margin, pool_alts, checks)
        entities = [tried[i] for i in chosen]
        runs = reproducible(path, entities)
        if checks:
            values = {t: [float(r.values[t]) for r in runs] for t in outputs}
            alts = subset(pool_alts, chosen)
            passed |= rule_checks(values, rule, margin, _alt_by_output(alts))
            passed |= convention_checks(path, entities, values, rule, alts, None)
    used = (
        outputs if rule is None else [rule["output"], *(c["output"] for c in rule["constraints"])]
    )
    if checks:
        passed |= tool_checks(level, plan, used)
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
        precision=precision_of(core) if level == 1 else None,
    )
    if level == 1:
        if checks:
            alts = alternative_values(path, entities, runs, outputs, cache)
            numeric = {
                t: [float(v)]
                for t, v in runs[0].values.items()
                if isinstance(v, (int, float)) and not isinstance(v, bool)
            }
            passed |= convention_checks(path, entities, numeric, None, alts, draft.precision)
        draft.distractors = near_misses(draft, pool, rng, cache)
    else:
        draft.distractors = [
            {
                "value": e.label,
                "how": "another candidate, which the rule does not select",
                "type": "candidate",
            }
            for e in entities
            if e.label != core
        ]
    if checks:
        passed |= distractor_checks(draft)
        draft.checks = {c: passed[c] for c in CHECKS}
    return draft
