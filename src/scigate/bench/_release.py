"""A release folder for a built benchmark: the JSONL, `datasheet.md`, `conditions.json`
and an inspect_ai task (`scigate_bench_task.py`, with the sandbox files its tools need).

The conditions come from the files themselves and the build's run database: counts are
those of the JSONL as released, the funnel is `build_funnel`'s, and the pass rate of each
screen, judge or solver is counted from the recorded attempts (None when nothing reached
it, never a default).
"""

from __future__ import annotations

import json
from collections import Counter
from importlib import resources
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from scigate._text import md_code, md_text
from scigate.bench._entities import load_entities, load_pools
from scigate.bench._files import read_tasks, write_tasks
from scigate.bench._report import build_funnel
from scigate.bench._stats import a5_lines, table_a5
from scigate.errors import BadInput, BadValue

LIBRARIES = ("rdkit", "biopython", "pymatgen", "scigate")
#: The inspect_ai task of a release (package data in scigate/bench/templates).
TASK_FILE = "scigate_bench_task.py"
#: A task domain -> scigate's extra with its software (the docker sandbox installs it).
DOMAIN_EXTRA = {"chemistry": "chem", "biology": "bio", "materials": "materials"}
ENTITIES_FILE = Path(__file__).parent / "data" / "entities.json"
# Detail key an attempt carries once it went through the stage (see `abuild`).
STAGE_KEYS = {"screen": "screens", "judge": "judge", "solver": "solver"}
# Entity kind (`load_entities`) -> its set in entities.json, the unit a license covers.
KIND_SET = {
    "molecule-name": "molecules",
    "molecule-smiles": "molecules",
    "protein": "proteins",
    "dna": "dna",
    "crystal": "crystals",
    "formula": "formulas",
}


def _versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in LIBRARIES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def _rate(passed: int, reached: int) -> dict[str, Any]:
    return {
        "reached": reached,
        "passed": passed,
        "pass_rate": round(passed / reached, 4) if reached else None,
    }


def _checks(attempts: list[dict[str, Any]], config: dict[str, Any]) -> dict[str, Any]:
    """Per screen spec, and for the judge and solver: how many attempts reached it and
    how many it let through."""
    screens: dict[str, list[int]] = {s: [0, 0] for s in config.get("screens") or []}
    for a in attempts:
        for r in a["detail"].get("screens") or []:
            row = screens.setdefault(r["screen"], [0, 0])
            row[0] += 1
            undecided = "could not decide" in (r.get("reason") or "")
            row[1] += 0 if r.get("solved") or undecided else 1
    out: dict[str, Any] = {
        "screens": {spec: {"spec": spec, **_rate(p, n)} for spec, (n, p) in screens.items()}
    }
    for stage in ("judge", "solver"):
        spec = config.get(stage)
        reached = [
            a
            for a in attempts
            if a["detail"].get("stage") == stage or STAGE_KEYS[stage] in a["detail"]
        ]
        failed = sum(
            1 for a in reached if a["status"] != "accepted" and a["detail"]["stage"] == stage
        )
        out[stage] = {"spec": spec, **_rate(len(reached) - failed, len(reached))} if spec else None
    return out


def _entity_sets(attempts: list[dict[str, Any]]) -> dict[str, Any]:
    """Every entity set with its source and license (the curated set's; `sources` lists
    the curated set and each larger pool with its own), and how many released tasks use it."""
    used = Counter(
        KIND_SET.get(a["detail"].get("kind"), a["detail"].get("kind"))
        for a in attempts
        if a["status"] == "accepted"
    )
    data = json.loads(ENTITIES_FILE.read_text(encoding="utf-8"))
    items: Counter[str] = Counter()
    for k, v in load_entities().items():  # a set's kinds overlap (names and their SMILES)
        items[KIND_SET[k]] = max(items[KIND_SET[k]], len(v))
    pools = load_pools()
    out: dict[str, Any] = {}
    for name in dict.fromkeys(KIND_SET.values()):
        license_ = data[name].get("license", data.get("license"))
        pool = pools.get(name) or {}
        sources = [
            {
                "source": data[name].get("source", ""),
                "license": license_,
                "items": items.get(name, 0) - len(pool.get("items") or []),
            }
        ]
        if pool:
            sources.append(
                {
                    "source": pool.get("source", ""),
                    "license": pool.get("license", ""),
                    "items": len(pool.get("items") or []),
                }
            )
        out[name] = {
            "items": items.get(name, 0),
            "source": data[name].get("source", ""),
            "license": license_,
            "tasks": used.get(name, 0),
            "sources": sources,
        }
    return out


def release_conditions(
    db: str | Path,
    bench: str | Path,
    run_id: str | None = None,
    tasks: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The machine-readable conditions of a build: counts, entity licenses, versions, seed,
    screen/judge/solver specs with pass rates, and the funnel (of `tasks`, default: every
    task of the `bench` file)."""
    from scigate.store import Store

    tasks = read_tasks(bench) if tasks is None else tasks
    funnel = build_funnel(db, run_id)
    with Store(db, create=False) as store:
        run = store.get_run(funnel["run_id"])
        attempts = store.attempts(funnel["run_id"])
    assert run is not None  # build_funnel found it
    config = run.get("config") or {}
    built = {a["detail"].get("task_id") for a in attempts if a["status"] == "accepted"}
    foreign = [t.get("id") for t in tasks if t.get("id") not in built]
    if foreign:
        raise BadInput(
            f"{bench} has {len(foreign)} tasks not accepted by build run {funnel['run_id']} "
            f"(first id {foreign[0]!r}); pass the build's own --db and --run"
        )
    cells = Counter(f"L{t.get('level')}/{t.get('format')}" for t in tasks)
    return {
        "bench_file": Path(bench).name,
        "tasks": len(tasks),
        "by_level_format": dict(sorted(cells.items())),
        "by_domain": dict(sorted(Counter(str(t.get("domain")) for t in tasks).items())),
        "run_id": funnel["run_id"],
        "generator": config.get("generator"),
        "seed": config.get("seed"),
        "batch": config.get("batch", 1),  # the tasks depend on the seed and the batch
        "levels": config.get("levels"),
        "versions": _versions(),
        "entity_sets": _entity_sets(attempts),
        "table_a5": table_a5(tasks),
        "checks": _checks(attempts, config),
        "funnel": funnel,
    }


def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:.1f}%"


def datasheet(c: dict[str, Any]) -> str:
    """`datasheet.md` of release conditions `c`. Values from the bench file and the run
    database (file name, specs, formats, domains, cells) go through `md_text`/`md_code`,
    so a `|`, `<script>` or `[x](javascript:...)` in them shows as written."""
    levels = sorted({k.split("/")[0] for k in c["by_level_format"]})
    formats = sorted({k.split("/", 1)[1] for k in c["by_level_format"]})
    lines = [
        f"# Datasheet: {md_text(c['bench_file'])}",
        "",
        f"{c['tasks']} tasks with executed gold answers, built by `scigate bench build` "
        f"(run {md_text(c['run_id'])}, generator {md_code(c['generator'])}, "
        f"seed {md_text(c['seed'])}"
        + (f", --batch {md_text(c['batch'])}" if c.get("batch", 1) > 1 else "")
        + ").",
        "",
        "## Tasks by level and format",
        "",
        "| level | " + " | ".join(map(md_text, formats)) + " | total |",
        "| --- | " + " | ".join("---" for _ in formats) + " | --- |",
    ]
    for lv in levels:
        row = [c["by_level_format"].get(f"{lv}/{f}", 0) for f in formats]
        lines.append(f"| {md_text(lv)} | " + " | ".join(map(str, row)) + f" | {sum(row)} |")
    lines += ["", "## Tasks by domain", "", "| domain | tasks |", "| --- | --- |"]
    lines += [f"| {md_text(d)} | {n} |" for d, n in c["by_domain"].items()]
    lines += [
        "",
        "## Entity sets",
        "",
        "| set | items | tasks | license | source |",
        "| --- | --- | --- | --- | --- |",
    ]
    for k, e in c["entity_sets"].items():
        for i, s in enumerate(e.get("sources") or [e]):
            name = md_text(k) if i == 0 else f"{md_text(k)} (pool)"
            tasks = e["tasks"] if i == 0 else ""
            lines.append(
                f"| {name} | {s['items']} | {tasks} | {md_text(s['license'])} "
                f"| {md_text(s['source'])} |"
            )
    if c.get("table_a5"):
        lines += [
            "",
            "## Table A5: built (paper)",
            "",
            "Per level: path length mean and max, input parameters, constraints and "
            "attributes per task, reasoning depth, and reuse (tool paths more than one task "
            "follows); in parentheses the paper's OpenSciToolBench figures.",
            "",
            *a5_lines(c["table_a5"]),  # numbers and fixed names only
        ]
    lines += ["", "## Tool library versions", "", "| library | version |", "| --- | --- |"]
    lines += [
        f"| {md_text(k)} | {md_text(v or 'not installed')} |" for k, v in c["versions"].items()
    ]
    lines += [
        "",
        "## Screens, judge and solver",
        "",
        "Pass rate: of the attempts that reached the check, the share it let through "
        "(a screen passes a task when the no-tool model does not solve it).",
        "",
        "| check | spec | reached | passed | pass rate |",
        "| --- | --- | --- | --- | --- |",
    ]
    checks = c["checks"]
    rows = [("screen", s) for s in checks["screens"].values()]
    rows += [(k, checks[k]) for k in ("judge", "solver") if checks[k]]
    lines += [
        f"| {k} | {md_code(r['spec'])} | {r['reached']} | {r['passed']} | {_pct(r['pass_rate'])} |"
        for k, r in rows
    ]
    if not rows:
        lines.append("| - | none configured | - | - | - |")
    f = c["funnel"]
    lines += [
        "",
        "## Funnel",
        "",
        f"{f['accepted']} accepted of {f['attempts']} attempts "
        f"(run status {md_text(f['status'])}).",
        "",
        "| cell | attempts | accepted | rejected at |",
        "| --- | --- | --- | --- |",
    ]
    for cell, row in f["cells"].items():
        why = ", ".join(f"{k} {v}" for k, v in row["rejected"].items()) or "-"
        lines.append(
            f"| {md_text(cell)} | {row['attempts']} | {row['accepted']} | {md_text(why)} |"
        )
    if c.get("review"):
        from scigate.review import datasheet_lines

        lines += [
            "",
            *datasheet_lines(c["review"], required=c["require_review"], released=c["tasks"]),
        ]
    lines += [
        "",
        "Machine-readable: `conditions.json`. As an inspect_ai task: "
        "`inspect eval scigate_bench_task.py --model PROVIDER/MODEL` (python and bash tools; "
        "`-T tools=false` without them, `-T sandbox=docker` in a container built from "
        "`Dockerfile`), scored by scigate's scorer.",
        "",
    ]
    return "\n".join(lines)


def task_source() -> str:
    """The text of the release's inspect_ai task file."""
    return (resources.files("scigate.bench") / "templates" / TASK_FILE).read_text("utf-8")


def write_release(
    db: str | Path,
    bench: str | Path,
    out: str | Path,
    run_id: str | None = None,
    *,
    require_review: bool = False,
) -> dict[str, Any]:
    """Write the release folder `out` (the JSONL, `datasheet.md`, `conditions.json`, the
    inspect_ai task and its sandbox files), each file atomically; returns the conditions.
    Everything is computed before any file is written, so bad input leaves `out` untouched.

    With `require_review` only the tasks expert review approved are released; either way
    the conditions hold each task's review status and the datasheet the protocol and counts.
    """
    from scigate._atomic import write_text_atomic
    from scigate.gate import write_sandbox_files
    from scigate.review import require_approved, review_of
    from scigate.store import Store

    tasks = read_tasks(bench)
    ids = [str(t.get("id")) for t in tasks]
    with Store(db, create=False) as store:
        if require_review:
            keep = set(require_approved(store, "task", ids))
            tasks = [t for t in tasks if str(t.get("id")) in keep]
            ids = [i for i in ids if i in keep]
        review = review_of(store, "task", released=ids)
    conditions = release_conditions(db, bench, run_id, tasks=tasks)
    conditions |= {"review": review, "require_review": require_review}
    sheet = datasheet(conditions)
    dest = Path(out)
    if dest.exists() and not dest.is_dir():
        raise BadValue("out", f"must be a directory, not the file {dest}")
    try:
        write_tasks(dest / Path(bench).name, tasks)
        write_text_atomic(
            dest / "conditions.json", json.dumps(conditions, indent=2, ensure_ascii=False) + "\n"
        )
        write_text_atomic(dest / "datasheet.md", sheet)
        write_text_atomic(dest / TASK_FILE, task_source())
        extras = sorted({DOMAIN_EXTRA[d] for d in conditions["by_domain"] if d in DOMAIN_EXTRA})
        write_sandbox_files(dest, extras)
    except OSError as exc:  # the helpers leave no temporary file behind
        raise BadInput(f"cannot write the release to {dest}: {exc.strerror or exc}") from None
    return conditions
