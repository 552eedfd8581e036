"""`bench derive` and `bench verify`: execute every task's reference path, in parallel.

Tasks are sorted by entity (so a worker's call cache serves the repeats), cut into chunks
and run in worker processes; each worker keeps one cache of tool calls for the run.

Parameters (`task_parameters`): a task's `Parameter`, or, when it has none (98 of
SciToolEval's 379 level-2 tasks name their molecule only in the question), the entities
the question names in a fixed form: "the molecule with the (molecule) name X" (X quoted,
or one word followed by punctuation or a joining word: never a guess at where a
multi-word name ends) for a path that starts from a name, else the entities of the path's
input type that the question holds (`find_entities`). A path that repeats its first tool
once per parameter (`[NameToSMILES] * 3 + [GetCrippenDescriptors] * 3`) runs one chain
per parameter, `[NameToSMILES, GetCrippenDescriptors]`, and the answer joins the parts in
the parameters' order; a path whose other tools differ per parameter does not say which
tool takes which parameter and stays underived, with its reason.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from typing import Any, Literal

from pydantic import BaseModel

from scigate.bench._answer import (
    Execution,
    Underivable,
    execute_task,
    same_answer,
    task_entities,
    task_format,
    task_path,
)
from scigate.errors import BadInput
from scigate.tools import ToolResult, find_entities, fitting_types, make_plan

Progress = Callable[[int, int], None]
Status = Literal["derived", "underivable", "agrees", "disagrees", "error", "unverifiable"]

# Source answers within this relative tolerance of the executed one count as agreeing
# (SciToolEval rounds to 2 decimals); verify of our own files is strict.
SOURCE_REL_TOL = 1e-3

_CACHE: dict[str, ToolResult] = {}


class TaskOutcome(BaseModel):
    """What derive or verify made of one task (`index`: its position in the file)."""

    index: int
    status: Status
    reason: str | None = None
    answer: str | None = None  # the executed answer
    stored: str | None = None  # the answer the file held
    task: dict[str, Any] | None = None  # derive: the task with answer and plan

    def line(self) -> str:
        """One line for a report: 'task N: status: reason'."""
        text = f"task {self.index + 1}: {self.status}"
        if self.status == "disagrees":
            return f"{text}: stored {self.stored!r}, executed {self.answer!r}"
        return f"{text}: {self.reason}" if self.reason else text


# "the molecule with the name X", "molecule name \"X\"", "molecules with the names 'a' 'b'"
_NAMED = re.compile(
    r"\bmolecules?\s+(?:with\s+(?:the\s+)?|that\s+(?:has|have)\s+the\s+)?"
    r"(?:molecule\s+)?names?\s+(?:of\s+)?",
    re.I,
)
_QUOTED = re.compile(
    r"\s*(?:,|and)?\s*([\"'`\u201c\u2018])([^\"'`\u201d\u2019]+?)[.,]?[\"'`\u201d\u2019]"
)
_WORD = re.compile(r"([A-Za-z0-9][A-Za-z0-9\-]*)(?=[.,;:?!)]|\s+(\w+)|\s*$)")
# words that may follow an unquoted one-word name (anything else may be the name's next word)
_AFTER_NAME = frozenset(
    [
        "and",
        "to",
        "then",
        "using",
        "by",
        "after",
        "based",
        "into",
        "from",
        "with",
        "in",
        "for",
        "is",
        "are",
        "has",
        "have",
        "as",
        "via",
        "its",
        "according",
        "when",
        "what",
        "which",
        "that",
        "first",
    ]
)


def _named_molecules(question: str) -> list[str] | str:
    """The molecule names `question` gives in the fixed form (in order, repeats dropped),
    or why it gives none unambiguously."""
    names: list[str] = []
    for m in _NAMED.finditer(question):
        rest, pos, quoted = question[m.end() :], 0, []
        while q := _QUOTED.match(rest, pos):
            quoted.append(q.group(2).strip())
            pos = q.end()
        if quoted:
            names.extend(quoted)
            continue
        w = _WORD.match(rest)
        if w is None:
            return f"the question's name after {m.group(0).strip()!r} is not one word or quoted"
        follower = w.group(2)
        if follower is not None and follower.lower() not in _AFTER_NAME:
            return (
                f"the question names {w.group(1)!r} followed by {follower!r}: "
                "where the name ends is not stated"
            )
        names.append(w.group(1))
    unique = list(dict.fromkeys(n for n in names if n))
    return unique or "the question names no molecule in the form 'the molecule with the name X'"


def task_parameters(raw: dict[str, Any], path: list[str]) -> tuple[list[Any], str]:
    """The task's parameters and where they came from ('Parameter' or 'question');
    `Underivable` when it has none and the question names none unambiguously."""
    given = task_entities(raw)
    if given:
        return given, "Parameter"
    try:
        entity_type = make_plan(path[:1]).entity_type
    except BadInput as exc:
        raise Underivable(str(exc)) from None
    if entity_type is None:
        return [], "Parameter"  # the first step needs no input
    question = str(raw.get("question") or "")
    entities = find_entities(question)
    fits = fitting_types(entity_type)
    # every entity the question holds must be one the path takes, else some are dropped
    others = list(
        dict.fromkeys(
            e.type
            for e in entities
            # names are read from the question's own wording below (_named_molecules)
            if (
                e.type != "molecule name"
                if entity_type == "molecule name"
                else not fitting_types(e.type) & fits
            )
        )
    )
    if others:
        raise Underivable(
            f"no Parameter, and the question names a {', '.join(others)} besides the "
            f"{entity_type}(s) the path starts from: its parameters do not map onto the path"
        )
    if entity_type == "molecule name":
        found = _named_molecules(question)
        if isinstance(found, str):
            raise Underivable(f"no Parameter, and {found}")
        return found, "question"
    texts = list(dict.fromkeys(e.text for e in entities))
    if not texts:
        raise Underivable(f"no Parameter, and the question holds no {entity_type}")
    return texts, "question"


def _per_parameter_path(path: list[str], n: int) -> list[str]:
    """The chain each of `n` parameters runs: the path with its first tool once and every
    other tool once, when the path repeats each of them `n` times; else `Underivable`."""
    first = path[0]
    starts = path.count(first)
    if starts != n:
        raise Underivable(
            f"{n} parameters but the path starts {starts} chain(s) with {first}: "
            "which parameter each chain takes is not stated"
        )
    rest = [t for t in path if t != first]
    counts = {t: rest.count(t) for t in rest}
    if any(c != n for c in counts.values()):
        uneven = ", ".join(f"{t} x{c}" for t, c in counts.items())
        raise Underivable(
            f"{n} parameters and tools that differ per parameter ({uneven}): "
            "which tool takes which parameter is not stated"
        )
    return [first, *counts]


def execute(raw: dict[str, Any], cache: dict[str, ToolResult] | None = None) -> Execution:
    """Execute a task under the parameter rules of the module docstring."""
    path = task_path(raw)
    params, source = task_parameters(raw, path)
    rule = (raw.get("plan") or {}).get("rule") if isinstance(raw.get("plan"), dict) else None
    if isinstance(rule, dict) and rule.get("op") == "join":  # a derived file's own record
        rule = None
    repeated = len(params) > 1 and path.count(path[0]) > 1
    if len(params) <= 1 or rule is not None or not repeated:
        done = execute_task({**raw, "Parameter": params or None}, cache=cache)
        if source == "question":
            done.plan["parameters"] = {"from": "question", "values": params}
        return done
    chain = _per_parameter_path(path, len(params))
    if task_format(raw) != "question & answer":
        raise Underivable(
            f"{len(params)} parameters joined in order, but the task is {task_format(raw)}"
        )
    parts = [
        execute_task(
            {"question": raw.get("question"), "tool_path": chain, "Parameter": p}, cache=cache
        )
        for p in params
    ]
    answer = "; ".join(part.answer for part in parts)
    plan = {
        "tool_path": path,
        "rule": {"op": "join", "per_parameter": chain},
        "parameters": {"from": source, "values": params},
        "parts": [part.plan for part in parts],
    }
    return Execution(answer=answer, core=answer, plan=plan)


def derive_one(index: int, raw: dict[str, Any], cache: dict[str, ToolResult] | None) -> TaskOutcome:
    """Execute one task and return it with `answer` and `plan` added (the previous answer,
    if any, kept as `source_answer` when it differs)."""
    stored = raw.get("answer")
    try:
        done = execute(raw, cache=cache)
    except Underivable as exc:
        return TaskOutcome(index=index, status="underivable", reason=str(exc))
    task = {**raw, "answer": done.answer, "plan": done.plan}
    if stored is not None and not same_answer(stored, done.answer, SOURCE_REL_TOL):
        task["source_answer"] = stored
    return TaskOutcome(
        index=index,
        status="derived",
        answer=done.answer,
        stored=None if stored is None else str(stored),
        task=task,
    )


def verify_one(index: int, raw: dict[str, Any], cache: dict[str, ToolResult] | None) -> TaskOutcome:
    """Re-execute one task and compare with its stored answer."""
    stored = raw.get("answer")
    claims_plan = isinstance(raw.get("plan"), dict)
    if stored is None:
        return TaskOutcome(index=index, status="unverifiable", reason="no stored answer")
    try:
        done = execute(raw, cache=cache)
    except Underivable as exc:
        status: Status = "error" if claims_plan else "unverifiable"
        return TaskOutcome(index=index, status=status, reason=str(exc), stored=str(stored))
    agrees = same_answer(stored, done.answer)
    return TaskOutcome(
        index=index,
        status="agrees" if agrees else "disagrees",
        answer=done.answer,
        stored=str(stored),
    )


_QUOTED_VALUE = re.compile(r"'[^']*'|\"[^\"]*\"")


def reason_counts(outcomes: list[TaskOutcome]) -> list[tuple[str, int]]:
    """The reasons of the outcomes that are not derived or agreeing, counted, most
    frequent first: quoted values become '…' and a reason ends at its first ';'."""
    counts: dict[str, int] = {}
    for o in outcomes:
        if o.status in ("derived", "agrees") or not o.reason:
            continue
        key = _QUOTED_VALUE.sub("'…'", o.reason).split(";")[0].strip()
        counts[key] = counts.get(key, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


_KINDS = {"derive": derive_one, "verify": verify_one}


def _work(
    kind: str, chunk: list[tuple[int, dict[str, Any]]], use_cache: bool
) -> list[dict[str, Any]]:
    """Run one chunk in a worker process, with the process-wide call cache."""
    fn = _KINDS[kind]
    return [fn(i, raw, _CACHE if use_cache else None).model_dump() for i, raw in chunk]


def _init_worker() -> None:
    from scigate.tools import load_library

    load_library()


def _entity_key(item: tuple[int, dict[str, Any]]) -> str:
    raw = item[1]
    return json.dumps(raw.get("Parameter", raw.get("parameter")), default=str, sort_keys=True)


# Below this many tasks one process with its call cache beats worker processes, whose
# start-up (importing the library) costs seconds: 384 tasks took 3.6 s in one process and
# 9.8 s with 2 workers (benchmarks/bench_bench.py).
PARALLEL_FROM = 2000


def default_workers(total: int = PARALLEL_FROM) -> int:
    """Worker processes by default: 1 below PARALLEL_FROM tasks, else the CPUs this process
    may use, at most 4."""
    if total < PARALLEL_FROM:
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus))


def run_tasks(
    kind: Literal["derive", "verify"],
    tasks: list[dict[str, Any]],
    workers: int | None = None,
    progress: Progress | None = None,
    cache: bool = True,
    executor: Any | None = None,
) -> list[TaskOutcome]:
    """Derive or verify every task; outcomes come back in file order.

    `workers` 1 runs in this process; more run chunks in worker processes. With an
    `executor` (`scigate.executor`, e.g. Ray) the chunks run on its workers instead; a
    chunk that still fails after the executor's retries gives its tasks `error`. `cache`
    False makes every call run even when another task made the same one.
    """
    total = len(tasks)
    items = sorted(enumerate(tasks), key=_entity_key)
    if executor is not None:
        return _on_executor(executor, kind, items, cache, progress)
    workers = default_workers(len(tasks)) if workers is None else max(1, workers)
    outcomes: list[TaskOutcome] = []
    done = 0
    if workers == 1 or total < 2:
        local: dict[str, ToolResult] | None = {} if cache else None
        for i, raw in items:
            outcomes.append(_KINDS[kind](i, raw, local))
            done += 1
            if progress:
                progress(done, total)
    else:
        size = max(1, min(32, total // (workers * 4) or 1))
        chunks = [items[k : k + size] for k in range(0, total, size)]
        with ProcessPoolExecutor(
            max_workers=workers, mp_context=get_context("spawn"), initializer=_init_worker
        ) as pool:
            futures = {pool.submit(_work, kind, chunk, cache): len(chunk) for chunk in chunks}
            for future in as_completed(futures):
                outcomes.extend(TaskOutcome.model_validate(o) for o in future.result())
                done += futures[future]
                if progress:
                    progress(done, total)
    return sorted(outcomes, key=lambda o: o.index)


def _on_executor(
    executor: Any,
    kind: str,
    items: list[tuple[int, dict[str, Any]]],
    cache: bool,
    progress: Progress | None,
) -> list[TaskOutcome]:
    """The chunks as executor jobs (entity-sorted, so each worker's call cache serves its
    chunk); outcomes in file order."""
    import asyncio

    from scigate.executor import Job

    total = len(items)
    size = max(1, min(32, total // (max(1, executor.workers) * 4) or 1))
    chunks = {f"chunk-{k}": items[k : k + size] for k in range(0, total, size)}
    jobs = [Job(id=key, fn=_work, args=(kind, chunk, cache)) for key, chunk in chunks.items()]
    outcomes: list[TaskOutcome] = []

    async def collect() -> None:
        done = 0
        async for result in executor.as_completed(jobs):
            chunk = chunks[result.id]
            if result.ok:
                outcomes.extend(TaskOutcome.model_validate(o) for o in result.value)
            else:
                outcomes.extend(
                    TaskOutcome(
                        index=i,
                        status="error",
                        reason=f"the executor could not run it: {result.error}",
                    )
                    for i, _ in chunk
                )
            done += len(chunk)
            if progress:
                progress(done, total)

    asyncio.run(collect())
    return sorted(outcomes, key=lambda o: o.index)
