"""A hand-made run database with known audit numbers (see the module docstring of each fact).

Eleven candidates c0..c10 in two runs:

- run-1 (kind gate): verify on all 11 (c9 fails), the fixed-order screen `FIXED` on the
  10 verified (always shows A B C D and answers C, except one B and one unreadable reply),
  the solver `SOLVER` on the 5 that passed `FIXED` (c4 c5 c8 c10 pass, c7 fails), and one
  generator-failed attempt.
- run-2 (kind rescreen): the shuffled screen `SHUFFLED` on the 10 verified, with the
  orders and choices of `SHUFFLED_CALLS`.

c0, c5 and c10 share one question (c5 differs only in case and white space): one exact
duplicate group of 3. c3, c4, c6 and c9 are near-duplicates (token Jaccard >= 0.7, chained).
The numbers the tests expect are worked out by hand in tests/gate/test_audit.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scigate.llm._types import ModelCallRecord, Usage
from scigate.store import CandidateRecord, Store

FIXED = "python/fixed.py:gpt54"
SHUFFLED = "python/shuffled.py:opus"
SOLVER = "python/solver.py:codex"
GENERATOR = "python/gen.py:gen"

Q0 = (
    "Interpolate the cubic Basix element onto the reference tetrahedron and report "
    "the maximum nodal weight."
)
Q3 = (
    "On a deformed 12 by 9 triangular mesh moved by a sinusoidal map solve the Poisson "
    "problem with unit forcing and report the energy functional J rounded to six decimals."
)
Q4 = Q3.replace("12 by 9", "12 by 10")
Q6 = Q4.replace("unit forcing", "constant forcing").replace("energy", "flux")
Q9 = Q6.replace("Poisson", "Helmholtz")

# (question, answer letter, value rank of the answer (None: non-numeric), family)
CANDIDATES: list[tuple[str, str, int | None, str | None]] = [
    (Q0, "C", 2, "basix-interpolation"),  # c0
    (
        "Assemble a mass matrix with quadratic Lagrange polynomials on a unit interval "
        "of eight cells; give its trace.",
        "C",
        3,
        "basix-interpolation",
    ),  # c1
    (
        "Tabulate Nedelec first kind basis derivatives at quadrature point seven and state "
        "the Frobenius norm.",
        "C",
        2,
        "basix-interpolation",
    ),  # c2
    (Q3, "C", 3, "deformed-mesh"),  # c3
    (Q4, "A", 1, "deformed-mesh"),  # c4
    (
        "  interpolate the cubic basix element onto the REFERENCE tetrahedron and report "
        "the maximum   nodal weight.",
        "B",
        2,
        "basix-interpolation",
    ),  # c5
    (Q6, "C", 4, "deformed-mesh"),  # c6
    (
        "Integrate the product of two Legendre modes with Gauss rule order five over the "
        "square and output the integral.",
        "D",
        3,
        "quadrature",
    ),  # c7
    (
        "Which finite element family is conforming in H(curl) on simplices?",
        "B",
        None,
        None,
    ),  # c8
    (Q9, "A", 2, "deformed-mesh"),  # c9 (fails verification)
    (Q0, "D", 3, "basix-interpolation"),  # c10
]

NON_NUMERIC = {"A": "Lagrange", "B": "Nedelec", "C": "Raviart-Thomas", "D": "Crouzeix-Raviart"}

# Fixed-order screen: shown letter chosen per call (None = unreadable reply).
FIXED_CHOICES: dict[int, list[str | None]] = {i: ["C", "C", "C"] for i in range(11) if i != 9}
FIXED_CHOICES[1] = ["C", "B", "C"]
FIXED_CHOICES[7] = ["C", "C", None]

# Shuffled screen: (shown order as original letters, shown letter chosen) per call.
SHUFFLED_CALLS: dict[int, list[tuple[str, str]]] = {
    0: [("BCDA", "B"), ("DACB", "C")],
    1: [("ABCD", "A"), ("CDAB", "B"), ("DCBA", "B")],
    2: [("BADC", "A"), ("CABD", "D")],
    3: [("DBCA", "C"), ("ACDB", "D"), ("CADB", "A")],
    4: [("BDAC", "C"), ("ADBC", "A")],
    5: [("DCAB", "D"), ("BACD", "B"), ("CBDA", "A")],
    6: [("ADCB", "B"), ("DBAC", "B")],
    7: [("CADB", "C"), ("DBCA", "A")],
    8: [("ABDC", "A"), ("BCAD", "A"), ("DBCA", "C")],
    10: [("ABCD", "A"), ("BDCA", "B"), ("CADB", "A")],
}

SOLVED_BY_TOOL = {4: True, 5: True, 7: False, 8: True, 10: True}

RUN1_CONFIG: dict[str, Any] = {
    "domain": "fenicsx",
    "generator": GENERATOR,
    "screens": [FIXED],
    "solver": SOLVER,
    "calls": 3,
    "seed": 7,
    "early_stop": False,
    "verify_timeout": 300.0,
    "solve_time_limit": 300.0,
    "solver_max_steps": 40,
    "solver_max_tokens": 500000,
}
RUN2_CONFIG: dict[str, Any] = {**RUN1_CONFIG, "screens": [SHUFFLED], "seed": 11, "early_stop": True}


def options_for(index: int, answer: str, rank: int | None) -> dict[str, str]:
    """Four numeric options whose `answer` has value rank `rank` (distinct per candidate)."""
    if rank is None:
        return dict(NON_NUMERIC)
    values = [f"{0.1 * (index + 1) + 0.011 * k:.6f}" for k in range(4)]  # ascending
    others = [v for k, v in enumerate(values) if k != rank - 1]
    out: dict[str, str] = {}
    for letter in "ABCD":
        out[letter] = values[rank - 1] if letter == answer else others.pop(0)
    return out


def _call(
    spec: str, tokens: tuple[int, int], cost: float | None, seconds: float
) -> ModelCallRecord:
    return ModelCallRecord(
        spec=spec,
        settings={"temperature": 1.0},
        messages=[{"role": "user", "content": "q"}],
        response={"content": "Answer: C"},
        usage=Usage(input_tokens=tokens[0], output_tokens=tokens[1]),
        cost=cost,
        latency=seconds,
    )


def _screen_detail(
    spec: str,
    options: dict[str, str],
    answer: str,
    calls: list[tuple[str, str | None]],
    *,
    shuffled: bool,
) -> dict[str, Any]:
    records = []
    for k, (order, chosen) in enumerate(calls):
        original = order[("ABCD").index(chosen)] if chosen else None
        records.append(
            {
                "index": k,
                "order": list(order),
                "reply": f"Reasoning ... Answer: {chosen}" if chosen else "I cannot tell.",
                "chosen_letter": chosen,
                "chosen_original": original,
                "chosen_value": options[original] if original else None,
                "correct": original == answer,
                "error": None,
                "input_tokens": 100,
                "output_tokens": 10,
                "cost": None,
                "seconds": 2.0,
            }
        )
    correct = sum(r["correct"] for r in records)
    return {
        "screen": spec,
        "solved": correct >= 2,
        "correct_calls": correct,
        "calls": records,
        "early_stop": len(records) < 3,
        "planned_calls": 3,
        "shuffled": shuffled,
        "seconds": 2.0 * len(records),
        "reason": f"{spec}: {correct} of {len(records)} calls correct",
    }


def build_db(path: Path) -> tuple[Store, list[str]]:
    """Write the hand-made database at `path`; return the open store and c0..c10's ids."""
    store = Store(path)
    run1 = store.create_run("gate", domain="fenicsx", config=RUN1_CONFIG, run_id="run-1")
    ids: list[str] = []
    for i, (question, answer, rank, family) in enumerate(CANDIDATES):
        options = options_for(i, answer, rank)
        cid, created = store.add_candidate(
            CandidateRecord(
                run_id=run1,
                question=question,
                options=options,
                answer=answer,
                answer_value=options[answer],
                solution=f"import sys\nprint({options[answer]!r})  # candidate c{i}\n",
                meta={"domain": "fenicsx", "family": family, "index": i},
                family=family,
                generator=GENERATOR,
                created_at=1000.0 + i,
            )
        )
        assert created
        ids.append(cid)
    # generator calls: one per attempt (12), 1000 in / 500 out tokens, $0.01 each
    for r in range(12):
        store.add_model_call(
            _call(GENERATOR, (1000, 500), 0.01, 300.0),
            run_id=run1,
            candidate_id=ids[r] if r < 11 else None,
            role="generator",
        )
    for i, cid in enumerate(ids):
        cand = store.get_candidate(cid)
        assert cand is not None
        passed = i != 9
        store.add_gate_result(
            run1,
            cid,
            "verify",
            outcome="pass" if passed else "fail",
            reason="printed value matches the proposed option"
            if passed
            else "printed value matches no option",
            detail={
                "passed": passed,
                "printed": cand.answer_value if passed else "9.999999",
                "matched_option": cand.answer if passed else None,
                "proposed": cand.answer,
                "reason": "ok" if passed else "printed value matches no option",
                "seconds": 20.0,
            },
            seconds=20.0,
        )
    status: dict[int, str] = {9: "rejected-verify"}
    for i, choices in FIXED_CHOICES.items():
        cand = store.get_candidate(ids[i])
        assert cand is not None
        calls = [("ABCD", c) for c in choices]
        detail = _screen_detail(FIXED, cand.options, cand.answer, calls, shuffled=False)
        store.add_gate_result(
            run1,
            ids[i],
            "screen",
            screen=FIXED,
            outcome="fail" if detail["solved"] else "pass",
            reason=detail["reason"],
            detail=detail,
            seconds=6.0,
        )
        for _ in calls:
            store.add_model_call(
                _call(FIXED, (100, 10), 0.001, 2.0), run_id=run1, candidate_id=ids[i], role="screen"
            )
        if detail["solved"]:
            status[i] = "rejected-screen"
    for i, solved in SOLVED_BY_TOOL.items():
        cand = store.get_candidate(ids[i])
        assert cand is not None
        store.add_gate_result(
            run1,
            ids[i],
            "solve",
            screen=SOLVER,
            outcome="pass" if solved else "fail",
            reason="solved" if solved else "wrong answer",
            detail={
                "solved": solved,
                "answer_value": cand.answer_value if solved else "0.000001",
                "answer_raw": cand.answer,
                "answer_option": cand.answer if solved else None,
                "seconds": 720.0,
                "reason": "solved" if solved else "wrong answer",
                "solver": SOLVER,
                "steps": 6,
                "model_calls": 4,
                "input_tokens": 20000,
                "output_tokens": 3200,
                "cost": 0.2,
                "flagged_for_review": not solved,
                "transcript_tail": [{"role": "assistant", "content": "x" * 5000}],
            },
            seconds=720.0,
        )
        for _ in range(4):
            store.add_model_call(
                _call(SOLVER, (5000, 800), 0.05, 150.0),
                run_id=run1,
                candidate_id=ids[i],
                role="solver",
            )
        status[i] = "accepted" if solved else "unsolved"
    for i, cid in enumerate(ids):
        # 360 s of round wall time, of which the generator itself worked 300 s
        store.add_attempt(
            run1, i, candidate_id=cid, status=status[i], seconds=360.0, gen_seconds=300.0
        )
    store.add_attempt(
        run1,
        11,
        candidate_id=None,
        status="generator-failed",
        reason="no files",
        seconds=180.0,
        gen_seconds=180.0,
    )
    store.set_run_status(run1, "finished")

    run2 = store.create_run("rescreen", domain="fenicsx", config=RUN2_CONFIG, run_id="run-2")
    for n_call, (i, calls) in enumerate(SHUFFLED_CALLS.items()):
        cand = store.get_candidate(ids[i])
        assert cand is not None
        detail = _screen_detail(SHUFFLED, cand.options, cand.answer, calls, shuffled=True)
        store.add_gate_result(
            run2,
            ids[i],
            "screen",
            screen=SHUFFLED,
            outcome="fail" if detail["solved"] else "pass",
            reason=detail["reason"],
            detail=detail,
            seconds=9.0,
        )
        for k, _ in enumerate(calls):
            cost = None if (n_call, k) == (0, 0) else 0.002  # one call with an unknown price
            store.add_model_call(
                _call(SHUFFLED, (200, 20), cost, 3.0),
                run_id=run2,
                candidate_id=ids[i],
                role="screen",
            )
    store.set_run_status(run2, "finished")
    return store, ids


def build_empty_db(path: Path) -> Store:
    """A database with no runs at all."""
    return Store(path)
