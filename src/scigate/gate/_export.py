"""Export of accepted items with their full record, and the release package.

`export_jsonl` writes one JSON object per accepted item: question, options, proposed
answer, solution, and every gate record with the models, settings, option orders shown,
time limits, outcomes and seconds. `export_release` writes a release that can be
re-checked: the pool as JSONL and Parquet with freshly permuted option orders, the gate
records of every released item (every gate result row, whatever the gate), the run
conditions (models and settings, seeds, limits, software versions, isolation), a
datasheet, and two inspect_ai tasks (no-tool multiple choice, and tool-enabled with
python and bash tools in a sandbox, as gate 3).
"""

from __future__ import annotations

import datetime as dt
import json
import random
import secrets
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from scigate import __version__
from scigate._atomic import atomic_path, write_text_atomic
from scigate._text import md_code, md_text
from scigate.errors import BadInput, BadValue
from scigate.gate._audit import (
    audit,
    candidate_domains,
    dedupe_by_question,
    latest_results,
    pool_scopes,
    rank_counts,
    screens_in_order,
    surviving_candidates,
)
from scigate.gate._candidate import LETTERS
from scigate.gate._environment import run_environment
from scigate.gate._inspect_files import write_sandbox_files
from scigate.gate._values import value_rank

if TYPE_CHECKING:
    from scigate.store import Store

#: The inspect_ai task files of a release (package data in scigate/gate/templates).
TASK_FILES = ("toolgate_task.py", "toolgate_tools_task.py")
#: Detail fields lifted into a gate record's summary when a gate wrote them.
SUMMARY_KEYS = (
    "printed",
    "matched_option",
    "proposed",
    "correct_calls",
    "answered_calls",
    "failed_calls",
    "planned_calls",
    "early_stop",
    "solved",
    "answer_raw",
    "answer_option",
    "answer_value",
    "steps",
    "check",
    "checks",
    "values",
)
#: Fields of a screen call kept in a gate record's summary.
CALL_KEYS = (
    "index",
    "order",
    "chosen_letter",
    "chosen_original",
    "chosen_value",
    "correct",
    "error",
)


class ReleaseFiles(BaseModel):
    """What `export_release` wrote."""

    jsonl: Path
    parquet: Path | None
    datasheet: Path
    inspect_task: Path
    items: int
    release_seed: int
    tool_task: Path | None = None
    gate_records: Path | None = None
    run_conditions: Path | None = None
    #: sandbox_tools.py, sandbox.json, Dockerfile, compose.yaml (the tool task's sandbox)
    sandbox_files: list[Path] = []


def accepted_records(store: Store, *, include_duplicates: bool = False) -> list[dict[str, Any]]:
    """Accepted items (verified, passed every screen, solved when a tool gate ran) with records.

    Exact duplicates (same normalized question) keep only their first accepted copy
    unless `include_duplicates`. Each item carries every gate result of every run, with
    the model, its query settings, the run's conditions (calls, majority, seed, time
    limits), the option orders shown, the outcome and the seconds.
    """
    latest = latest_results(store)
    screens = screens_in_order(store)
    runs = {r["id"]: r for r in store.runs()}
    cands = {c.id: c for c in store.candidates()}
    domains = candidate_domains(store, cands)
    ids = surviving_candidates(latest, screens, cands, domains)
    scope = pool_scopes(latest, screens, cands, domains)
    if not include_duplicates:
        ids = dedupe_by_question(ids, cands)
    accepted = [cands[c] for c in ids]
    wanted = {c.id for c in accepted}
    results: dict[str, list[dict[str, Any]]] = {}
    for g in store.all_gate_results():
        if g["candidate_id"] in wanted:
            results.setdefault(g["candidate_id"], []).append(g)
    usage = _model_usage(store, wanted)
    out = []
    for c in accepted:
        gates = []
        for g in results.get(c.id, []):
            cfg = (runs.get(g["run_id"]) or {}).get("config") or {}
            detail = g.get("detail") or {}
            role = {"screen": "screen", "solve": "solver"}.get(g["gate"])
            calls = usage.get((c.id, g["run_id"], role, g["screen"]), {})
            gates.append(
                {
                    "gate": g["gate"],
                    "model": g["screen"] or None,
                    "settings": calls.get("settings"),
                    "conditions": _conditions(g["gate"], cfg, detail),
                    "option_orders": [call.get("order") for call in detail.get("calls", [])]
                    if g["gate"] == "screen"
                    else None,
                    "outcome": g["outcome"],
                    "reason": g["reason"],
                    "seconds": g["seconds"],
                    "run_id": g["run_id"],
                    "model_calls": calls.get("calls", 0),
                    "input_tokens": calls.get("input_tokens", 0),
                    "output_tokens": calls.get("output_tokens", 0),
                    "detail": detail,
                }
            )
        out.append(
            {
                "id": c.id,
                "question": c.question,
                "options": c.options,
                "answer": c.answer,
                "answer_value": c.answer_value or c.options.get(c.answer, ""),
                "value_rank": value_rank(c.options, c.answer),
                "family": c.family,
                "generator": c.generator,
                "meta": c.meta,
                "solution": c.solution,
                "duplicate_of": c.duplicate_of,
                "tool_gate": "passed" if scope[c.id][1] else "not run",
                "gates": gates,
            }
        )
    return out


def _model_usage(store: Store, wanted: set[str]) -> dict[tuple, dict[str, Any]]:
    """(candidate, run, role, spec) -> calls, tokens and the first call's settings."""
    out: dict[tuple, dict[str, Any]] = {}
    rows = [r for r in store.candidate_model_usage() if r["candidate_id"] in wanted]
    settings = store.model_call_settings(r["first_id"] for r in rows)
    for r in rows:
        out[(r["candidate_id"], r["run_id"], r["role"], r["spec"])] = {
            "calls": r["calls"],
            "input_tokens": r["input_tokens"] or 0,
            "output_tokens": r["output_tokens"] or 0,
            "settings": settings.get(r["first_id"]),
        }
    return out


def _conditions(gate: str, cfg: dict[str, Any], detail: dict[str, Any]) -> dict[str, Any]:
    """The protocol conditions a gate result was obtained under."""
    if gate == "verify":
        return {"time_limit_s": cfg.get("verify_timeout")}
    if gate == "invariance":
        return {
            "time_limit_s": cfg.get("verify_timeout"),
            "checks": [c.get("name") for c in detail.get("checks", []) or []],
            "mpi_ranks": cfg.get("mpi_ranks", 1),
            "compared_at": "the proposed option's printed precision",
        }
    if gate == "screen":
        orders = {tuple(c.get("order") or ()) for c in detail.get("calls", []) or []}
        shuffled = detail.get("shuffled")
        planned = detail.get("planned_calls") or cfg.get("calls")
        return {
            "calls": planned,
            "calls_made": len(detail.get("calls", []) or []),
            "majority": f"at least {planned // 2 + 1} of {planned}" if planned else None,
            "shuffled_options": shuffled if isinstance(shuffled, bool) else len(orders) > 1,
            "graded_by": "value",
            "early_stop": cfg.get("early_stop"),
            "seed": cfg.get("seed"),
        }
    if gate == "solve":
        return {
            "time_limit_s": cfg.get("solve_time_limit"),
            "max_steps": cfg.get("solver_max_steps"),
            "max_tokens": cfg.get("solver_max_tokens"),
        }
    return {}


def _invariance_lines(funnel: dict[str, Any]) -> list[str]:
    """The datasheet's gate-1b funnel line (none when gate 1b never ran)."""
    if funnel.get("invariant") is None:
        return []
    unchecked = funnel.get("invariance_unchecked") or 0
    return [
        f"- invariant under the domain's semantic checks (gate 1b): {funnel['invariant']}"
        + (f" (and {unchecked} verified in runs without gate 1b)" if unchecked else "")
    ]


def _invariance_setting(cfg: dict[str, Any]) -> str:
    if cfg.get("generator") == "rescreen":
        return "carried over from the generation run"
    if not cfg.get("invariance", False):
        return "off"
    ranks = cfg.get("mpi_ranks", 1) or 1
    return "on (domain's semantic checks" + (f"; MPI on {ranks} ranks)" if ranks > 1 else ")")


def export_jsonl(store: Store, out: Path, *, include_duplicates: bool = False) -> int:
    """Write accepted items with their full records to `out` (JSONL); returns the count."""
    records = accepted_records(store, include_duplicates=include_duplicates)
    write_text_atomic(
        out, "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in records)
    )
    return len(records)


def permute(record: dict[str, Any], release_seed: int) -> dict[str, Any]:
    """The item with a fresh option order drawn from the release seed."""
    order = list(LETTERS)
    random.Random(f"{release_seed}:{record['id']}").shuffle(order)
    options = {LETTERS[i]: record["options"][orig] for i, orig in enumerate(order)}
    answer = LETTERS[order.index(record["answer"])]
    return {
        "id": record["id"],
        "question": record["question"],
        "options": options,
        "answer": answer,
        "answer_value": record["answer_value"],
        "value_rank": record.get("value_rank"),
        "family": record["family"],
        "original_order": order,
        "solution": record["solution"],
    }


def export_release(
    store: Store,
    release_dir: Path,
    *,
    release_seed: int | None = None,
    require_review: bool = False,
) -> ReleaseFiles:
    """Write the pool (JSONL, Parquet), gate_records.jsonl, run_conditions.json,
    DATASHEET.md and the inspect_ai tasks into `release_dir`.

    With `require_review` only the items expert review approved are released; either way
    each item's review status is in gate_records.jsonl and run_conditions.json, and the
    datasheet states the review protocol and counts (`scigate.review`)."""
    from scigate.review import datasheet_lines, require_approved, review_of

    records = accepted_records(store)
    if not records:
        raise BadInput(f"no accepted items to release in {store.path}")
    if require_review:
        keep = set(require_approved(store, "candidate", [r["id"] for r in records]))
        records = [r for r in records if r["id"] in keep]
    review = review_of(store, "candidate", released=[r["id"] for r in records])
    seed = release_seed if release_seed is not None else secrets.randbits(31)
    pool = [permute(r, seed) for r in records]
    if release_dir.exists() and not release_dir.is_dir():
        raise BadValue("release_dir", f"must be a directory, not the file {release_dir}")
    try:
        release_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise BadInput(f"cannot create {release_dir}: {e.strerror or e}") from None
    jsonl = release_dir / "pool.jsonl"
    write_text_atomic(jsonl, "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pool))
    parquet = _write_parquet(pool, release_dir / "pool.parquet")
    gate_records = release_dir / "gate_records.jsonl"
    write_text_atomic(
        gate_records,
        "".join(
            json.dumps(
                {**g, "review_status": review["status"][g["id"]]}, ensure_ascii=False, default=str
            )
            + "\n"
            for g in release_gate_records(records, pool)
        ),
    )
    conditions = release_dir / "run_conditions.json"
    cond = run_conditions(store, records, seed) | {
        "review": review,
        "require_review": require_review,
    }
    write_text_atomic(conditions, json.dumps(cond, indent=2, ensure_ascii=False, default=str))
    datasheet = release_dir / "DATASHEET.md"
    sheet = _datasheet(store, records, seed, pool)
    sheet += "\n".join(["", *datasheet_lines(review, required=require_review, released=len(pool))])
    write_text_atomic(datasheet, sheet)
    tasks = {}
    for name in TASK_FILES:
        tasks[name] = release_dir / name
        write_text_atomic(tasks[name], task_source(name))
    domains = sorted({r["domain"] for r in store.runs() if r.get("domain")})
    sandbox_files = write_sandbox_files(release_dir, extras=domains)
    return ReleaseFiles(
        jsonl=jsonl,
        parquet=parquet,
        datasheet=datasheet,
        inspect_task=tasks["toolgate_task.py"],
        tool_task=tasks["toolgate_tools_task.py"],
        gate_records=gate_records,
        run_conditions=conditions,
        sandbox_files=sandbox_files,
        items=len(pool),
        release_seed=seed,
    )


def task_source(name: str) -> str:
    """The text of one of the release's inspect_ai task files."""
    return (resources.files("scigate.gate") / "templates" / name).read_text(encoding="utf-8")


def release_gate_records(
    records: list[dict[str, Any]], pool: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Per released item: how its letters map to the gated ones, and every gate record.

    Every gate result row of the item is kept, whatever its gate (a gate added later
    appears without a change here), with its conditions, model settings, outcome and
    detail (bulky transcripts left out), and a summary of the detail's key fields.
    Screen orders and chosen letters are in the gated (original) lettering;
    `original_order` maps the released letters A..D to those.
    """
    released = {p["id"]: p for p in pool}
    out = []
    for r in records:
        p = released[r["id"]]
        gates = []
        for g in r["gates"]:
            detail = {k: v for k, v in (g.get("detail") or {}).items() if k != "transcript_tail"}
            gates.append({**g, "summary": _summary(detail), "detail": detail})
        out.append(
            {
                "id": r["id"],
                "answer": p["answer"],
                "original_order": p["original_order"],
                "gated_answer": r["answer"],
                "answer_value": r["answer_value"],
                "value_rank": r.get("value_rank"),
                "tool_gate": r["tool_gate"],
                "gates": gates,
            }
        )
    return out


def _summary(detail: dict[str, Any]) -> dict[str, Any]:
    out = {k: detail[k] for k in SUMMARY_KEYS if k in detail}
    calls = detail.get("calls")
    if isinstance(calls, list):
        out["calls"] = [
            {k: c.get(k) for k in CALL_KEYS if k in c} for c in calls if isinstance(c, dict)
        ]
    return out


def run_conditions(store: Store, records: list[dict[str, Any]], seed: int) -> dict[str, Any]:
    """The conditions the released items were gated under, run by run.

    Each run: its configuration (generator, screens and solver specs, seeds, calls,
    limits), the environment it recorded when it started (software versions, isolation
    mode; absent for runs made before runs recorded it) and the model specs it called
    with their settings. `export_environment` is the machine that wrote the release.
    """
    used_runs = {g["run_id"] for r in records for g in r["gates"]}
    env_events: dict[str, list[dict[str, Any]]] = {}
    for e in store.events(kind="environment"):
        env_events.setdefault(e["run_id"], []).append(e["data"])
    models: dict[str, list[dict[str, Any]]] = {}
    for m in store.models_by_run():
        models.setdefault(m["run_id"], []).append(
            {k: m[k] for k in ("role", "spec", "settings", "calls")}
        )
    runs = []
    solver: dict[str, Any] = {}
    for run in store.runs():
        cfg = run.get("config") or {}
        runs.append(
            {
                "id": run["id"],
                "kind": run["kind"],
                "domain": run.get("domain"),
                "status": run.get("status"),
                "created_at": run.get("created_at"),
                "finished_at": run.get("finished_at"),
                "gated_released_items": run["id"] in used_runs,
                "config": cfg,
                "environment": env_events.get(run["id"], []),
                "models": models.get(run["id"], []),
            }
        )
        if run["id"] in used_runs and (cfg.get("solver") or cfg.get("solver_cmd")):
            solver = {
                "spec": cfg.get("solver") or f"cmd:{cfg.get('solver_cmd')}",
                "time_limit_s": cfg.get("solve_time_limit"),
                "max_steps": cfg.get("solver_max_steps"),
                "max_tokens": cfg.get("solver_max_tokens"),
                "workspace_note": _workspace_note(run.get("domain") or cfg.get("domain")),
            }
    return {
        "release": {
            "seed": seed,
            "items": len(records),
            "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "scigate": __version__,
        },
        "solver": solver,
        "runs": runs,
        "export_environment": run_environment(),
    }


def _workspace_note(domain: str | None) -> str:
    """What the domain's solver workspace offers (told to gate 3's solver)."""
    from scigate.domains import get_domain

    if not domain:
        return ""
    try:
        return get_domain(domain).workspace_note
    except BadInput:
        return ""


def _write_parquet(pool: list[dict[str, Any]], path: Path) -> Path | None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return None
    rows = [
        {
            **p,
            **{f"option_{k}": p["options"][k] for k in LETTERS},
            "original_order": "".join(p["original_order"]),
        }
        for p in pool
    ]
    for r in rows:
        r.pop("options")
    with atomic_path(path) as tmp:
        pq.write_table(pa.Table.from_pylist(rows), tmp)
    return path


def _datasheet(
    store: Store, records: list[dict[str, Any]], seed: int, pool: list[dict[str, Any]]
) -> str:
    """DATASHEET.md. Every value that comes from the run database (specs, run ids,
    families and other meta.json fields, reasons) goes through `md_text`/`md_code`:
    a generator's `<script>` or `[x](javascript:...)` shows as written, never acts."""
    a = audit(store)
    runs = store.runs()
    lines = [
        "# ToolGate release datasheet",
        "",
        f"- created: {dt.datetime.now(dt.UTC).isoformat(timespec='seconds')} with scigate {__version__}",
        f"- source database: {md_code(store.path)}",
        f"- items: {len(records)} (accepted, exact duplicates removed)",
        f"- release permutation seed: {seed} (options re-shuffled per item from this seed; "
        "independent of the screening permutations)",
        "",
        "## Funnel",
        "",
        f"- generated: {a.funnel['generated']}",
        f"- verified: {a.funnel['verified']}",
        *_invariance_lines(a.funnel),
        *[f"- passed {md_text(s)}: {n}" for s, n in a.funnel["screens"].items()],
        f"- solved by the tool agent: {a.funnel['solved'] if a.funnel['solved'] is not None else 'not run'}",
        f"- unique: {a.funnel['unique']}",
        "",
        *_rescreen_lines(a.rescreens),
        "## Protocol conditions",
        "",
        "Acceptance is relative to these conditions: another model, budget or presentation "
        "may move an item across a gate.",
        "",
    ]
    for r in runs:
        cfg = r.get("config") or {}
        screens = cfg.get("screens") or []
        lines += [
            f"### run {md_code(r['id'])} ({md_text(r['kind'])}, {md_text(r.get('status'))})",
            "",
            f"- domain: {md_text(cfg.get('domain'))}; "
            f"generator: {md_text(cfg.get('generator'))}; seed: {md_text(cfg.get('seed'))}",
            f"- invariance gate (1b): {md_text(_invariance_setting(cfg))}",
            f"- screens (in order): {md_text(', '.join(map(str, screens)) or 'none')}; "
            f"{md_text(cfg.get('calls'))} calls each, graded by value, majority rejects",
            "- tool-enabled solver: "
            f"{md_text(cfg.get('solver') or cfg.get('solver_cmd') or 'none')}; "
            f"time limit {md_text(cfg.get('solve_time_limit'))} s",
            f"- verification time limit: {md_text(cfg.get('verify_timeout'))} s",
            f"- environment at start: {md_text(_environment_line(store, r['id']))}",
            "",
        ]
    lines += ["## Screens as recorded", ""]
    lines += [
        f"- {md_text(s.screen)}: {s.candidates} candidates, solved {s.solved}, "
        f"accuracy {s.accuracy}, "
        f"option order {'shuffled' if s.shuffled else 'FIXED (letter cues possible)'}, "
        f"accuracy by correct shown position {md_text(s.accuracy_by_correct_position)}"
        for s in a.screens
    ] or ["- none"]
    lines += [
        "",
        "## Audit",
        "",
        f"- proposed letters (verified): {md_text(a.letter_distribution)}",
        f"- value ranks of the proposed answer: {md_text(a.value_rank_distribution)}; "
        f"middle-value heuristic success {a.middle_heuristic_success}",
        f"- families: {md_text(a.families)}",
        f"- token-Jaccard ≥ 0.7: largest cluster {a.largest_cluster_size} "
        f"({a.largest_cluster_share})",
        "",
        "## Released items",
        "",
        f"- value rank of the correct option (1 = smallest of four numeric options): "
        f"{rank_counts(p.get('value_rank') for p in pool)}",
        f"- correct letter after the release re-lettering: "
        f"{ {k: sum(p['answer'] == k for p in pool) for k in LETTERS} }",
        "",
        "## Files",
        "",
        "- `pool.jsonl` / `pool.parquet`: id, question, options, answer (letter after the "
        "release permutation), answer_value, family, original_order, solution",
        "- `gate_records.jsonl`: per item, every gate record (verification's printed value "
        "and matched option, each screen call's shown order and chosen value, the solver's "
        "outcome, any further gate) with conditions and model settings; letters there are "
        "the gated ones, `original_order` maps the released letters onto them",
        "- `run_conditions.json`: per run, the configuration (models, seeds, limits), the "
        "environment recorded at its start (scigate and DOLFINx versions, isolation mode) "
        "and the model specs called with their settings",
        "- `toolgate_task.py`: no-tool multiple choice, "
        "`inspect eval toolgate_task.py --model PROVIDER/MODEL`",
        "- `toolgate_tools_task.py`: tool-enabled (python and bash tools in inspect's local "
        "sandbox, run by the interpreter in `sandbox.json` or `-T python=PATH`; "
        "`-T sandbox=docker` for a container built from `Dockerfile` with the domain's "
        "packages), graded by value as gate 3, "
        "`inspect eval toolgate_tools_task.py --model PROVIDER/MODEL`",
        "",
    ]
    return "\n".join(lines)


def _environment_line(store: Store, run_id: str) -> str:
    events = store.events(run_id=run_id, kind="environment")
    if not events:
        return "not recorded (a run made before runs recorded it)"
    env = events[-1]["data"]
    pkgs = env.get("packages") or {}
    iso = (env.get("isolation") or {}).get("mode")
    # the chemistry and materials domains' software, when the run's environment had it
    more = "".join(
        f", {label} {pkgs[name]}"
        for name, label in (("rdkit", "RDKit"), ("pymatgen", "pymatgen"))
        if name in pkgs
    )
    return (
        f"scigate {env.get('scigate')}, Python {env.get('python')}, "
        f"DOLFINx {pkgs.get('dolfinx-solver-real', 'not installed')}{more}, isolation {iso}"
    )


def _rescreen_lines(rescreens: list[dict[str, Any]]) -> list[str]:
    """The datasheet's post-generation rescreens, apart from the in-loop funnel above."""
    if not rescreens:
        return []
    lines = ["## Post-generation rescreens", ""]
    for r in rescreens:
        passed = ", ".join(f"passed {md_text(s)}: {n}" for s, n in r["screens"].items())
        solved = f", solved: {r['solved']}" if r.get("solver") else ""
        lines.append(f"- run {md_code(r['run_id'])} on {md_text(r['input'])}: {passed}{solved}")
    return [*lines, ""]
