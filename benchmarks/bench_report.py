"""Report generation on a 10,000-candidate run database, against a naive baseline.

Run by hand: `.venv/bin/python benchmarks/bench_report.py [--candidates 10000] [--chromium]`.

Builds a synthetic database (templated questions from a dozen families, so near-duplicate
clusters are as concentrated as in the ToolGate paper; verify for all, two shuffled
screens with 3 calls each for the verified, a solve for the survivors, model calls for
every screen call, generator call and solver step), then times `build_report` stage by
stage. The baselines, in the same run: the naive near-duplicate search (all-pairs token
Jaccard) on a subsample, timed against the vectorised clustering and the prefix-filtered
pair list on the same subsample and extrapolated quadratically to the full size; and the
item data embedded as plain JSON (as the report did before) against the gzip + base64
payload. With `--chromium` it also times headless Chromium loading the report until the
item rows and the first item are rendered (`--virtual-time-budget`, `--dump-dom`), for
the report as written and for the same page with the plain-JSON payload of the old page.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path

from scigate.gate._audit import audit, gate_rows, latest_results
from scigate.gate._report import browser_items, build_report, pack_items
from scigate.gate._similarity import clusters, jaccard, similar_clusters, similar_pairs, tokens
from scigate.store import Store, candidate_id, question_key

TEMPLATES = [
    "In DOLFINx create a {a} by {b} triangular unit-square mesh, move each vertex by "
    "x + {c} sin(2 pi y), solve the Poisson problem with coefficient {d} + {e} x and report "
    "the energy functional rounded to exactly six decimal places.",
    "Using Basix, tabulate the degree {a} Lagrange element on a triangle at the point "
    "({c}, {d}) and report the sum of derivative values of basis function {b} times {e}.",
    "Integrate f(x, y) = {c} x^2 + {d} y with quadrature degree {a} over a {b} by {b} "
    "quadrilateral mesh of the unit square and report the integral scaled by {e}.",
    "Solve the nonlinear problem -div((1 + u^2) grad u) = {c} on a punctured square with "
    "{a} cells per side and hole radius {d}; report the L2 norm of u times {e} (mesh {b}).",
    "Assemble the mass matrix of degree {a} Nedelec elements on a {b}-cell tetrahedral "
    "mesh and report its trace plus {c} times the largest entry, minus {d} and {e}.",
    "Compute the lowest eigenvalue of the Laplacian with Dirichlet conditions on an L-shaped "
    "domain meshed with {a} cells, P{b} elements, scaled by {c}, {d} and {e}.",
    "For linear elasticity with Young's modulus {c} and Poisson ratio {d} on a {a} by {b} "
    "beam, report the tip displacement multiplied by {e}.",
    "Project g = sin({c} x) cos({d} y) onto DG{a} on a {b} by {b} mesh and report the L2 "
    "projection error times {e}.",
]
FAMILY_WEIGHTS = [40, 25, 10, 8, 6, 5, 3, 3]  # concentrated, as the paper's cohort


def synthetic_db(path: Path, n: int, seed: int = 0) -> dict[str, float]:
    """Write an n-candidate database with bulk inserts; return counts."""
    Store(path).close()  # creates the schema
    rng = random.Random(seed)
    conn = sqlite3.connect(path)
    now = time.time()
    screens = ["openai/gpt-5.4?reasoning_effort=none", "anthropic/claude-opus-4-8"]
    solver = "cmd:codex exec"
    config = {
        "screens": screens,
        "solver_cmd": "codex exec",
        "calls": 3,
        "seed": 0,
        "verify_timeout": 300,
        "solve_time_limit": 300,
    }
    conn.execute(
        "INSERT INTO runs (id, kind, domain, config, status, created_at) VALUES (?,?,?,?,?,?)",
        ("bench", "gate", "fenicsx", json.dumps(config), "finished", now),
    )
    cands, attempts, gates, calls = [], [], [], []

    def call(cid: str, role: str, spec: str, k: int, tin: int, tout: int) -> None:
        calls.append(
            (
                "bench",
                cid,
                role,
                f"{role}:{cid}:{spec}:{k}",
                spec,
                "{}",
                json.dumps([{"role": "user", "content": "question ..."}]),
                json.dumps({"content": "Answer: B"}),
                tin,
                tout,
                tin * 2e-6,
                1.5,
                now,
            )
        )

    for i in range(n):
        fam = rng.choices(range(len(TEMPLATES)), FAMILY_WEIGHTS)[0]
        q = TEMPLATES[fam].format(
            a=rng.randint(2, 30),
            b=rng.randint(2, 30),
            c=f"{rng.uniform(0, 1):.3f}",
            d=f"{rng.uniform(0, 1):.3f}",
            e=f"{rng.uniform(0, 2):.2f}",
        )
        if rng.random() < 0.01 and cands:  # exact repeats
            q = rng.choice(cands)[1]
        base = rng.uniform(0.01, 5)
        opts = {k: f"{base * (1 + 0.03 * j):.6f}" for j, k in enumerate(rng.sample("ABCD", 4))}
        answer = rng.choice("ABCD")
        cid = candidate_id(q, opts)
        solution = "import dolfinx\n" + "# step\n" * 40 + f"print({opts[answer]!r})\n"
        cands.append(
            (
                cid,
                q,
                json.dumps(opts),
                answer,
                opts[answer],
                solution,
                json.dumps({"family": f"family-{fam}"}),
                f"family-{fam}",
                "openai/gpt-5.5",
                question_key(q),
                now + i,
            )
        )
        call(cid, "generator", "openai/gpt-5.5", 0, 30000, 6000)
        verified = rng.random() < 0.956
        gates.append(
            (
                "bench",
                cid,
                "verify",
                "",
                "pass" if verified else "fail",
                "ok",
                json.dumps({"passed": verified, "printed": opts[answer], "proposed": answer}),
                12.0,
                now + i,
            )
        )
        status = "rejected-verify"
        alive = verified
        for s in screens if verified else []:
            detail_calls = []
            correct = 0
            for k in range(3):
                order = rng.sample("ABCD", 4)
                chosen = rng.choice("ABCD")
                ok = order["ABCD".index(chosen)] == answer
                correct += ok
                detail_calls.append(
                    {
                        "index": k,
                        "order": order,
                        "reply": "Reasoning about the mesh and the functional ... " * 6
                        + f"Answer: {chosen}",
                        "chosen_letter": chosen,
                        "chosen_original": order["ABCD".index(chosen)],
                        "chosen_value": opts[order["ABCD".index(chosen)]],
                        "correct": ok,
                    }
                )
                call(cid, "screen", s, k, 900, 300)
            solved = correct >= 2
            gates.append(
                (
                    "bench",
                    cid,
                    "screen",
                    s,
                    "fail" if solved else "pass",
                    f"{correct} of 3",
                    json.dumps(
                        {
                            "solved": solved,
                            "correct_calls": correct,
                            "calls": detail_calls,
                            "shuffled": True,
                        }
                    ),
                    8.0,
                    now + i,
                )
            )
            if solved:
                alive = False
                status = "rejected-screen"
                break
        if alive:
            ok = rng.random() < 0.96
            for k in range(8):
                call(cid, "solver", solver, k, 12000, 1500)
            gates.append(
                (
                    "bench",
                    cid,
                    "solve",
                    solver,
                    "pass" if ok else "fail",
                    "solved" if ok else "wrong",
                    json.dumps({"solved": ok, "seconds": 90.0, "reason": "solved"}),
                    90.0,
                    now + i,
                )
            )
            status = "accepted" if ok else "unsolved"
        attempts.append(("bench", i, cid, status, "", "{}", 210.0, now + i))
    # content-hash collisions (exact repeat with the same options) are skipped
    seen: set[str] = set()
    keys: dict[str, str] = {}
    rows = []
    for c in cands:
        if c[0] in seen:
            continue
        seen.add(c[0])
        dup = keys.setdefault(c[9], c[0])
        rows.append((*c[:10], None if dup == c[0] else dup, c[10]))
    conn.executemany(
        "INSERT INTO candidates (id, question, options, answer, answer_value, solution, meta,"
        " family, generator, question_key, duplicate_of, created_at, run_id)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,'bench')",
        rows,
    )
    conn.executemany(
        "INSERT OR IGNORE INTO attempts (run_id, round, candidate_id, status, reason, detail,"
        " seconds, created_at) VALUES (?,?,?,?,?,?,?,?)",
        attempts,
    )
    conn.executemany(
        "INSERT OR IGNORE INTO gate_results (run_id, candidate_id, gate, screen, outcome, reason,"
        " detail, seconds, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
        gates,
    )
    conn.executemany(
        "INSERT OR IGNORE INTO model_calls (run_id, candidate_id, role, call_key, spec, settings,"
        " messages, response, input_tokens, output_tokens, cost, latency, created_at)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        calls,
    )
    conn.commit()
    conn.close()
    return {"candidates": len(rows), "gate_results": len(gates), "model_calls": len(calls)}


def naive_pairs(sets: list[frozenset[str]], t: float) -> list[tuple[int, int, float]]:
    """The baseline: Jaccard of every pair."""
    out = []
    for i, j in combinations(range(len(sets)), 2):
        s = jaccard(sets[i], sets[j])
        if s >= t:
            out.append((i, j, s))
    return out


def timed(fn, *args, **kw):
    t0 = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - t0


def chromium_dump(chromium: str, html: Path, profile: Path) -> tuple[float, int, bool]:
    """Seconds for headless Chromium to load the page, rows rendered, first item shown."""
    cmd = [
        chromium,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--virtual-time-budget=5000",
        "--dump-dom",
        html.as_uri(),
    ]
    done, t = timed(subprocess.run, cmd, capture_output=True, text=True, timeout=600)
    rows = len(re.findall(r'<div class="row(?: sel)?" data-id="[0-9a-f]+"', done.stdout))
    return t, rows, "Candidate <code>" in done.stdout


def plain_json_page(html: str, items: list[dict]) -> str:
    """The page with the old payload: every item as plain JSON, parsed at once."""
    data = json.dumps(items, default=str, ensure_ascii=False).replace("<", "\\u003c")
    head, rest = html.split('<script id="items-data" type="application/json">', 1)
    _, script = rest.split("</script>", 1)
    old = (
        "const items = JSON.parse(document.getElementById('items-data').textContent);"
        "const payload = {block: items.length || 1};"
        "async function unpack() { return items; }"
    )
    script = script.replace(
        'const payload = JSON.parse($("items-data").textContent);', old
    ).replace("items = await unpack(payload.index);", "")
    script = script.replace("  let items;\n", "")
    return f'{head}<script id="items-data" type="application/json">{data}</script>{script}'


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--candidates", type=int, default=10_000)
    ap.add_argument("--baseline-sample", type=int, default=2_000)
    ap.add_argument("--chromium", action="store_true", help="also time Chromium on the report")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        counts, t_build = timed(synthetic_db, db, args.candidates)
        print(f"database: {counts} built in {t_build:.1f} s ({db.stat().st_size / 1e6:.1f} MB)")
        store = Store(db, create=False)

        cands, t_c = timed(store.candidates)
        rows, t_g = timed(gate_rows, store)
        latest, t_l = timed(latest_results, store, rows)
        result, t_a = timed(audit, store, candidates=cands, latest=latest)
        items, t_b = timed(browser_items, store, candidates=cands, latest=latest, rows=rows)
        _, t_p = timed(pack_items, items)
        files, t_report = timed(build_report, store, Path(tmp) / "report")
        size = files.html.stat().st_size
        plain = len(json.dumps(items, default=str, ensure_ascii=False).encode())
        print(
            f"stages: candidates {t_c:.2f} s, gate results {t_g:.2f} s, latest {t_l:.2f} s, "
            f"audit {t_a:.2f} s, browser items {t_b:.2f} s, packing the item data {t_p:.2f} s"
        )
        print(
            f"build_report ({counts['candidates']} candidates): {t_report:.2f} s; "
            f"report.html {size / 1e6:.1f} MB (item data as plain JSON alone: "
            f"{plain / 1e6:.1f} MB, ratio {plain / size:.0f}x); largest Jaccard cluster "
            f"{result.largest_cluster_size} ({result.largest_cluster_share}); "
            f"pool {result.pool_size}, largest pool cluster {result.pool_largest_cluster_size}; "
            f"funnel {result.funnel}"
        )

        sample = [tokens(c.question) for c in cands[: args.baseline_sample]]
        fast, t_fast = timed(similar_clusters, sample, 0.7)
        pairs, t_prefix = timed(similar_pairs, sample, 0.7)
        slow_pairs, t_slow = timed(naive_pairs, sample, 0.7)
        slow = clusters(len(sample), slow_pairs)
        assert fast == slow == clusters(len(sample), pairs)
        all_sets = [tokens(c.question) for c in cands]
        _, t_full = timed(similar_clusters, all_sets, 0.7)
        scale = (len(all_sets) / len(sample)) ** 2
        print(
            f"near-duplicate clusters on {len(sample)}: vectorised {t_fast:.2f} s, "
            f"prefix-filtered pair list {t_prefix:.2f} s, all pairs {t_slow:.2f} s "
            f"({len(slow_pairs)} similar pairs; ratio all pairs / ours {t_slow / t_fast:.0f}x)"
        )
        print(
            f"near-duplicate clusters on {len(all_sets)}: ours {t_full:.2f} s; all pairs "
            f"extrapolated {t_slow * scale:.0f} s (ratio {t_slow * scale / t_full:.0f}x); "
            f"the report with the naive search would take ~{t_report + 2 * (t_slow * scale - t_full):.0f} s"
        )
        store.close()

        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if args.chromium and chromium:
            old = Path(tmp) / "plain.html"
            old.write_text(plain_json_page(files.html.read_text(), items), encoding="utf-8")
            t_new, rows_new, shown_new = chromium_dump(chromium, files.html, Path(tmp) / "p1")
            t_old, rows_old, shown_old = chromium_dump(chromium, old, Path(tmp) / "p2")
            print(
                f"chromium --dump-dom: report {size / 1e6:.1f} MB {t_new:.1f} s ({rows_new} rows, "
                f"first item shown: {shown_new}); plain-JSON page {old.stat().st_size / 1e6:.1f} MB "
                f"{t_old:.1f} s ({rows_old} rows, first item shown: {shown_old}); "
                f"ratio {t_old / t_new:.1f}x"
            )
        elif args.chromium:
            print("chromium not found", file=sys.stderr)


if __name__ == "__main__":
    main()
