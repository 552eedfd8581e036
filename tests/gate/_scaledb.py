"""A deterministic run database of a few hundred templated candidates (tests of the
streaming audit and report against a kept reference: tests/gate/data/audit_reference.json).

Two domains' runs (kind gate), a rescreen run, gate 1b on some candidates, two screens
with three calls each (one shuffled), a solver on the survivors, exact repeats and
near-duplicate families: every audit section has something to count.
"""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

from scigate.store import Store, candidate_id, question_key

NOW = 1_700_000_000.0
SCREENS = ("python/s.py:fixed", "python/s.py:shuffled")
SOLVER = "python/solver.py:codex"
TEMPLATES = (
    "Create a {a} by {b} triangular mesh, move each vertex by x + {c} sin(2 pi y), solve "
    "the Poisson problem and report the energy times {d}.",
    "Tabulate the degree {a} Lagrange element at ({c}, {d}) and report basis function {b}.",
    "Integrate {c} x^2 + {d} y with quadrature degree {a} on a {b} by {b} mesh.",
    "Assemble the degree {a} Nedelec mass matrix on {b} cells; trace plus {c} minus {d}.",
)


def build_scale_db(path: Path, n: int = 300, seed: int = 7) -> list[str]:
    """Write the database; return the candidate ids in insertion order."""
    Store(path).close()
    rng = random.Random(seed)
    conn = sqlite3.connect(path)
    for run, kind, domain in (
        ("g1", "gate", "fenicsx"),
        ("g2", "gate", "chem"),
        ("rs", "rescreen", "fenicsx"),
    ):
        screens = list(SCREENS) if kind == "gate" else [SCREENS[1]]
        conn.execute(
            "INSERT INTO runs (id, kind, domain, config, status, created_at) VALUES (?,?,?,?,?,?)",
            (run, kind, domain, json.dumps({"screens": screens}), "finished", NOW),
        )
    ids: list[str] = []
    questions: list[str] = []
    for i in range(n):
        fam = rng.choices(range(len(TEMPLATES)), (5, 3, 2, 1))[0]
        q = TEMPLATES[fam].format(
            a=rng.randint(2, 9), b=rng.randint(2, 9), c=rng.randint(1, 9), d=rng.randint(1, 5)
        )
        if questions and rng.random() < 0.05:
            q = rng.choice(questions).upper()  # an exact repeat (case differs)
        questions.append(q)
        base = rng.uniform(0.5, 5)
        opts = {k: f"{base * (1 + 0.1 * j):.4f}" for j, k in enumerate(rng.sample("ABCD", 4))}
        if rng.random() < 0.05:
            opts["D"] = "none of these"
        answer = rng.choice("ABCD")
        cid = candidate_id(q, opts)
        if cid in ids:
            continue
        ids.append(cid)
        run = "g1" if i % 3 else "g2"
        t = NOW + i
        conn.execute(
            "INSERT INTO candidates (id, run_id, question, options, answer, answer_value,"
            " solution, meta, family, generator, question_key, created_at)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                cid,
                run,
                q,
                json.dumps(opts),
                answer,
                opts[answer],
                f"print({opts[answer]!r})",
                "{}",
                f"fam-{fam}",
                "python/gen.py:gen",
                question_key(q),
                t,
            ),
        )
        status = _gates(conn, rng, run, cid, answer, t)
        conn.execute(
            "INSERT INTO attempts (run_id, round, candidate_id, status, reason, gen_seconds,"
            " seconds, created_at) VALUES (?,?,?,?,?,?,?,?)",
            (run, i, cid, status, status, 2.0, 5.0, t),
        )
        conn.execute(
            "INSERT INTO model_calls (run_id, candidate_id, role, call_key, spec, input_tokens,"
            " output_tokens, cost, latency, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                run,
                cid,
                "generator",
                f"gen:{cid}",
                "python/gen.py:gen",
                100,
                50,
                None if i % 11 == 0 else 0.001,
                1.0,
                t,
            ),
        )
    conn.execute(
        "INSERT INTO attempts (run_id, round, candidate_id, status, reason, seconds,"
        " created_at) VALUES ('g1', ?, NULL, 'generator-failed', 'boom', 1.0, ?)",
        (n + 1, NOW),
    )
    conn.commit()
    conn.close()
    return ids


def _gates(
    conn: sqlite3.Connection, rng: random.Random, run: str, cid: str, answer: str, t: float
) -> str:
    """Insert one candidate's gate results; return its attempt status."""

    def gate(run_id: str, g: str, screen: str, outcome: str, detail: dict, at: float) -> None:
        conn.execute(
            "INSERT INTO gate_results (run_id, candidate_id, gate, screen, outcome, reason,"
            " detail, seconds, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
            (run_id, cid, g, screen, outcome, f"{g} {outcome}", json.dumps(detail), 1.5, at),
        )

    ok = rng.random() < 0.9
    gate(run, "verify", "", "pass" if ok else "fail", {"proposed": answer, "passed": ok}, t)
    if not ok:
        return "rejected-verify"
    if rng.random() < 0.5:
        inv = rng.random() < 0.9
        gate(run, "invariance", "", "pass" if inv else "fail", {"variants": 3}, t)
        if not inv:
            return "rejected-invariance"
    for k, screen in enumerate(SCREENS):
        calls = []
        for j in range(3):
            order = rng.sample("ABCD", 4) if k else list("ABCD")
            chosen = rng.choice("ABCDX")
            right = chosen in "ABCD" and order["ABCD".index(chosen)] == answer
            calls.append(
                {
                    "index": j,
                    "order": order,
                    "chosen_letter": chosen,
                    "correct": right,
                    "reply": f"Answer: {chosen}" * 3,
                }
            )
        solved = sum(c["correct"] for c in calls) >= 2
        outcome = "error" if rng.random() < 0.02 else ("fail" if solved else "pass")
        gate(
            run,
            "screen",
            screen,
            outcome,
            {"calls": calls, "shuffled": bool(k), "early_stop": j == 1 and solved},
            t,
        )
        if k and rng.random() < 0.3:  # a later rescreen of the shuffled screen
            gate(
                "rs",
                "screen",
                screen,
                rng.choice(("pass", "fail")),
                {"calls": calls[:1]},
                t + 10_000,
            )
        if outcome != "pass":
            return "rejected-screen"
    solved = rng.random() < 0.8
    gate(
        run,
        "solve",
        SOLVER,
        "pass" if solved else "fail",
        {"solved": solved, "transcript_tail": "x" * 50},
        t,
    )
    return "accepted" if solved else "unsolved"
