"""Audits on a hand-made database whose numbers are worked out by hand (tests/gate/_dbfactory.py).

Verified: c0..c8 and c10 (c9 fails verification). Proposed letters of the verified:
c0 C, c1 C, c2 C, c3 C, c4 A, c5 B, c6 C, c7 D, c8 B, c10 D.
"""

from __future__ import annotations

import random
from itertools import combinations
from pathlib import Path

import pytest

from scigate.gate._audit import audit, cost_by_gate
from scigate.gate._similarity import clusters, jaccard, similar_clusters, similar_pairs, tokens

from ._dbfactory import FIXED, GENERATOR, SHUFFLED, SOLVER, build_db, build_empty_db


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory):
    store, ids = build_db(tmp_path_factory.mktemp("audit") / "runs.db")
    yield store, ids
    store.close()


@pytest.fixture(scope="module")
def result(db):
    return audit(db[0])


def test_counts_letters_and_value_ranks(result) -> None:
    assert result.candidates == 11
    assert result.verified == 10
    assert result.letter_distribution == {"A": 1, "B": 2, "C": 5, "D": 2}
    # ranks: c0 2, c1 3, c2 2, c3 3, c4 1, c5 2, c6 4, c7 3, c10 3; c8 non-numeric
    assert result.value_rank_distribution == {"1": 1, "2": 3, "3": 4, "4": 1, "non-numeric": 1}
    assert result.middle_share == pytest.approx(0.7778)  # 7 of 9 numeric
    assert result.middle_heuristic_success == pytest.approx(0.3889)  # half of the middle share


def test_fixed_order_screen_shows_its_letter_c_bias(result) -> None:
    assert [s.screen for s in result.screens] == [FIXED, SHUFFLED]
    s = result.screens[0]
    assert s.shuffled is False
    assert s.distinct_orders == 1
    assert (s.candidates, s.solved, s.calls, s.correct_calls) == (10, 5, 30, 14)
    assert s.accuracy == pytest.approx(0.4667)
    assert s.letter_choices == {"A": 0, "B": 1, "C": 28, "D": 0}
    assert s.unreadable_replies == 1
    assert s.early_stops == 0
    # correct at C: c0 c1 c2 c3 c6 (15 calls, 14 right); elsewhere always wrong
    assert s.calls_by_correct_position == {"A": 3, "B": 6, "C": 15, "D": 6}
    assert s.accuracy_by_correct_position == {
        "A": 0.0,
        "B": 0.0,
        "C": pytest.approx(0.9333),
        "D": 0.0,
    }


def test_shuffled_screen_accuracy_by_shown_position(result) -> None:
    s = result.screens[1]
    assert s.shuffled is True
    assert s.distinct_orders > 1
    assert (s.candidates, s.solved, s.calls, s.correct_calls) == (10, 4, 25, 12)
    assert s.accuracy == pytest.approx(0.48)
    assert s.early_stops == 5
    assert s.letter_choices == {"A": 10, "B": 7, "C": 5, "D": 3}
    assert s.unreadable_replies == 0
    assert s.calls_by_correct_position == {"A": 7, "B": 7, "C": 7, "D": 4}
    assert s.accuracy_by_correct_position == {
        "A": pytest.approx(4 / 7, abs=1e-4),
        "B": pytest.approx(3 / 7, abs=1e-4),
        "C": pytest.approx(4 / 7, abs=1e-4),
        "D": 0.25,
    }


def test_agreement_table(result) -> None:
    # fixed solved c0 c1 c2 c3 c6; shuffled solved c0 c3 c4 c7
    assert result.agreement == [
        {
            "a": FIXED,
            "b": SHUFFLED,
            "n": 10,
            "both_solved": 2,
            "only_a": 3,
            "only_b": 2,
            "neither": 3,
            "agreement_rate": 0.5,
        }
    ]


def test_duplicates_clusters_and_families(db, result) -> None:
    _, ids = db
    assert result.exact_duplicates == [[ids[0], ids[5], ids[10]]]
    assert result.duplicate_candidates == 2
    # clusters: {c0, c5, c10} (exact) and {c3, c4, c6, c9} (near-duplicates)
    assert result.jaccard_clusters == 2
    assert result.largest_cluster_size == 4
    assert result.largest_cluster_share == pytest.approx(0.3636)
    assert set(result.largest_cluster_ids) == {ids[3], ids[4], ids[6], ids[9]}
    assert result.families == {
        "basix-interpolation": 5,
        "deformed-mesh": 4,
        "quadrature": 1,
        "(none)": 1,
    }
    assert result.top_family_share == pytest.approx(0.4545)
    # surviving pool after deduplication: c5 and c8 (c10 repeats c5's question)
    assert result.pool_size == 2
    assert result.pool_families == {"basix-interpolation": 1, "(none)": 1}
    assert result.pool_top_family_share == 0.5
    assert result.pool_largest_cluster_size == 1


def test_funnel(result) -> None:
    # in-loop outcomes only (run-1): the rescreen's screen is reported on its own
    assert result.funnel == {
        "attempts": 12,
        "generator_failed": 1,
        "near_duplicates": 0,
        "generated": 11,
        "verified": 10,
        "invariant": None,  # gate 1b never ran on this database
        "invariance_unchecked": None,
        "screens": {FIXED: 5},
        "solved": 4,
        "unique": 3,
        "duplicates_removed": 1,
    }
    (rescreen,) = result.rescreens
    assert rescreen["run_id"] == "run-2" and rescreen["verified"] == 10
    assert rescreen["screens"] == {SHUFFLED: 6}  # 10 entered, 4 solved
    # the surviving pool still reflects every screen (c5 and c8, see above)
    assert result.pool_size == 2


def test_cost_per_gate_in_agent_hours(db) -> None:
    rows = {(r["gate"], r["spec"]): r for r in cost_by_gate(db[0])}
    assert list(rows) == [
        ("generate", ""),
        ("verify", ""),
        ("screen", FIXED),
        ("solve", SOLVER),
        ("screen", SHUFFLED),
    ]
    gen = rows[("generate", "")]
    # the generator's own time (11 x 300 s + 180 s), not the rounds' wall time (4140 s)
    assert (gen["items"], gen["seconds"], gen["agent_hours"]) == (12, 3480.0, 0.9667)
    assert (gen["model_calls"], gen["input_tokens"], gen["output_tokens"]) == (12, 12000, 6000)
    assert gen["cost_usd"] == pytest.approx(0.12)
    verify = rows[("verify", "")]
    assert (verify["items"], verify["seconds"], verify["model_calls"]) == (11, 220.0, 0)
    assert verify["agent_hours"] == pytest.approx(0.0611)
    fixed = rows[("screen", FIXED)]
    assert (fixed["items"], fixed["seconds"], fixed["model_calls"]) == (10, 60.0, 30)
    assert (fixed["input_tokens"], fixed["output_tokens"]) == (3000, 300)
    assert fixed["cost_usd"] == pytest.approx(0.03)
    solve = rows[("solve", SOLVER)]
    assert (solve["items"], solve["seconds"], solve["agent_hours"]) == (5, 3600.0, 1.0)
    assert (solve["model_calls"], solve["input_tokens"], solve["output_tokens"]) == (
        20,
        100000,
        16000,
    )
    assert solve["cost_usd"] == pytest.approx(1.0)
    shuffled = rows[("screen", SHUFFLED)]
    assert (shuffled["model_calls"], shuffled["input_tokens"], shuffled["output_tokens"]) == (
        25,
        5000,
        500,
    )
    # one call has an unknown price: the total is unknown, never counted as zero
    assert shuffled["cost_usd"] is None
    assert shuffled["unpriced_calls"] == 1
    assert shuffled["priced_cost_usd"] == pytest.approx(0.048)
    assert GENERATOR  # the generator's calls are the generate row's


def test_model_calls_of_unknown_roles_are_not_dropped(tmp_path: Path) -> None:
    from scigate.llm._types import ModelCallRecord, Usage

    store = build_empty_db(tmp_path / "x.db")
    run = store.create_run("agent-eval")
    store.add_model_call(
        ModelCallRecord(spec="python/j.py:judge", usage=Usage(input_tokens=7, output_tokens=3)),
        run_id=run,
        role="judge",
    )
    rows = cost_by_gate(store)
    judge = [r for r in rows if r["spec"] == "python/j.py:judge"]
    assert judge and judge[0]["input_tokens"] == 7 and judge[0]["cost_usd"] is None
    store.close()


def test_error_outcomes_are_left_out_of_agreement(tmp_path: Path) -> None:
    store, ids = build_db(tmp_path / "e.db")
    store.add_gate_result(
        "run-2", ids[8], "screen", screen=SHUFFLED, outcome="error", reason="timeout", replace=True
    )
    a = audit(store)
    row = a.agreement[0]
    assert row["n"] == 9 and row["neither"] == 2
    assert a.screens[1].errors == 1
    store.close()


def test_empty_database(tmp_path: Path) -> None:
    store = build_empty_db(tmp_path / "empty.db")
    a = audit(store)
    assert a.candidates == 0 and a.verified == 0
    assert a.middle_share is None and a.largest_cluster_share is None
    assert a.screens == [] and a.agreement == []
    assert a.funnel["generated"] == 0 and a.funnel["solved"] is None and a.funnel["unique"] == 0
    store.close()


def test_audit_cli_json(tmp_path: Path, db) -> None:
    import json

    from typer.testing import CliRunner

    from scigate.cli import app

    res = CliRunner().invoke(app, ["gate", "audit", "--db", str(db[0].path), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["funnel"]["unique"] == 3  # in-loop; the rescreen's funnel is its own
    assert [r["run_id"] for r in data["rescreens"]] == ["run-2"] and data["pool_size"] == 2
    assert data["screens"][0]["shuffled"] is False


# -- similarity: prefix filtering is exact --------------------------------------------


def _brute(sets: list[frozenset[str]], t: float) -> set[tuple[int, int]]:
    return {(i, j) for i, j in combinations(range(len(sets)), 2) if jaccard(sets[i], sets[j]) >= t}


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("threshold", [0.3, 0.55, 0.7, 0.9, 1.0])
def test_similar_pairs_equals_brute_force(seed: int, threshold: float) -> None:
    rng = random.Random(seed)
    vocab = [f"w{k}" for k in range(rng.choice([8, 30, 120]))]
    base = [frozenset(rng.sample(vocab, rng.randint(0, min(25, len(vocab))))) for _ in range(12)]
    sets = []
    for _ in range(140):  # mutated copies make many pairs near every threshold
        s = set(rng.choice(base))
        for _ in range(rng.randint(0, 4)):
            if s and rng.random() < 0.5:
                s.discard(rng.choice(sorted(s)))
            else:
                s.add(rng.choice(vocab))
        sets.append(frozenset(s))
    got = similar_pairs(sets, threshold)
    assert {(i, j) for i, j, _ in got} == _brute(sets, threshold)
    assert len(got) == len({(i, j) for i, j, _ in got})  # each pair once
    assert all(i < j and sim == pytest.approx(jaccard(sets[i], sets[j])) for i, j, sim in got)


def test_similarity_tokens_and_clusters() -> None:
    assert tokens("Report J = 0.060723, the ENERGY.") == frozenset(
        {"report", "j", "0.060723", "the", "energy"}
    )
    assert clusters(5, [(0, 1, 1.0), (1, 3, 0.8)]) == [[0, 1, 3], [2], [4]]
    assert similar_pairs([frozenset(), frozenset(), frozenset({"a"})], 0.7) == [(0, 1, 1.0)]
    with pytest.raises(ValueError):
        similar_pairs([], 0.0)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("threshold", [0.3, 0.7, 0.9])
def test_similar_clusters_equal_components_of_all_pairs(seed: int, threshold: float) -> None:
    rng = random.Random(100 + seed)
    vocab = [f"w{k}" for k in range(rng.choice([10, 40]))]
    base = [frozenset(rng.sample(vocab, rng.randint(0, 9))) for _ in range(6)]
    sets = []
    for _ in range(160):
        s = set(rng.choice(base))
        for _ in range(rng.randint(0, 3)):
            if s and rng.random() < 0.5:
                s.discard(rng.choice(sorted(s)))
            else:
                s.add(rng.choice(vocab))
        sets.append(frozenset(s))
    pairs = [(i, j, 1.0) for i, j in _brute(sets, threshold)]
    assert similar_clusters(sets, threshold) == clusters(len(sets), pairs)
    assert similar_clusters([], threshold) == []


def _random_family_sets(rng: random.Random, n: int) -> list[frozenset[str]]:
    """Templated sets (a few bases, mutated), empty sets and identical copies mixed in."""
    vocab = [f"w{k}" for k in range(rng.choice([6, 25, 200]))]
    base = [frozenset(rng.sample(vocab, rng.randint(0, min(30, len(vocab))))) for _ in range(5)]
    sets: list[frozenset[str]] = []
    for _ in range(n):
        r = rng.random()
        if r < 0.05:
            sets.append(frozenset())
        elif r < 0.15 and sets:
            sets.append(rng.choice(sets))  # an identical question
        else:
            s = set(rng.choice(base))
            for _ in range(rng.randint(0, 5)):
                if s and rng.random() < 0.5:
                    s.discard(rng.choice(sorted(s)))
                else:
                    s.add(rng.choice(vocab))
            sets.append(frozenset(s))
    rng.shuffle(sets)
    return sets


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("threshold", [0.3, 0.55, 0.7, 0.9, 1.0])
def test_vectorised_clusters_equal_brute_force(seed: int, threshold: float) -> None:
    rng = random.Random(1000 + seed)
    sets = _random_family_sets(rng, rng.choice([1, 2, 30, 220]))
    want = clusters(len(sets), [(i, j, 1.0) for i, j in _brute(sets, threshold)])
    assert similar_clusters(sets, threshold) == want


@pytest.mark.parametrize("seed", range(4))
def test_vectorised_clusters_sparse_rows_and_small_batches(seed: int, monkeypatch) -> None:
    from scigate.gate import _similarity

    rng = random.Random(2000 + seed)
    sets = _random_family_sets(rng, 180)
    want = clusters(len(sets), [(i, j, 1.0) for i, j in _brute(sets, 0.7)])
    # overlaps counted with sparse rows instead of bitsets, pairs generated a few at a time
    monkeypatch.setattr(_similarity, "_MAX_WORDS", 0)
    monkeypatch.setattr(_similarity, "_BATCH", 7)
    assert similar_clusters(sets, 0.7) == want


def test_vectorised_clusters_edge_cases() -> None:
    e, a = frozenset(), frozenset({"a"})
    assert similar_clusters([e], 0.7) == [[0]]
    assert similar_clusters([e, a, e, e], 0.7) == [[0, 2, 3], [1]]  # empties are identical
    assert similar_clusters([a, a, a], 1.0) == [[0, 1, 2]]
    ab, abc = frozenset({"a", "b"}), frozenset({"a", "b", "c"})
    assert similar_clusters([ab, abc, a], 2 / 3) == [[0, 1], [2]]  # exactly at the threshold
    assert similar_clusters([ab, abc], 0.67) == [[0], [1]]
    with pytest.raises(ValueError):
        similar_clusters([a], 0.0)


def test_audit_reads_gate_results_in_pages(db, result, monkeypatch) -> None:
    """Issue 27: the audit pages through the gate results and keeps of a screen call only
    what it reads; the figures are those of the whole table read at once."""
    from scigate.gate import _audit

    store = db[0]
    monkeypatch.setattr(_audit, "PAGE", 2)
    pages = list(_audit.gate_pages(store))
    assert len(pages) > 2 and all(len(p) <= 2 for p in pages)
    assert [g for p in pages for g in p] == _audit.gate_rows(store)
    assert audit(store) == result
    bulk = {"solution", "meta", "answer_value", "generator"}  # what the audit does not read
    assert [c.model_dump(exclude=bulk) for c in _audit.audit_candidates(store)] == [
        c.model_dump(exclude=bulk) for c in store.candidates()
    ]
    assert [
        c.model_dump(exclude={"meta"}) for c in _audit.audit_candidates(store, solutions=True)
    ] == [c.model_dump(exclude={"meta"}) for c in store.candidates()]
    screen = next(g for g in _audit.gate_rows(store) if (g["detail"] or {}).get("calls"))
    view = _audit.audit_view(screen)
    assert all(set(c) <= {"order", "chosen_letter", "correct"} for c in view["detail"]["calls"])
    assert [c.get("correct") for c in view["detail"]["calls"]] == [
        c.get("correct") for c in screen["detail"]["calls"]
    ]
    assert {k: v for k, v in view.items() if k != "detail"} == {
        k: v for k, v in screen.items() if k != "detail"
    }


def test_gc_paused_restores_the_collector() -> None:
    import gc

    from scigate.gate._audit import gc_paused

    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block leaves the outer pause alone
    assert gc.isenabled()
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError
    assert gc.isenabled()


def test_latest_result_is_the_newest_by_time_then_id(tmp_path: Path) -> None:
    from scigate.gate._audit import gate_rows, latest_results

    store, _ = build_db(tmp_path / "l.db")
    rows = gate_rows(store)
    assert [r["id"] for r in rows] == sorted(r["id"] for r in rows)
    # an older record inserted later does not replace the newer one; a tie goes to the later id
    old = dict(rows[0], id=10_000, created_at=rows[0]["created_at"] - 5, outcome="error")
    tie = dict(rows[1], id=10_001, outcome="error")
    latest = latest_results(store, [*rows, old, tie])
    assert latest[rows[0]["candidate_id"]][("verify", "")]["outcome"] == rows[0]["outcome"]
    key = (rows[1]["gate"], rows[1]["screen"])
    assert latest[rows[1]["candidate_id"]][key]["outcome"] == "error"
    assert latest_results(store) == latest_results(store, rows)
    store.close()


def test_popcount_without_the_numpy_2_ufunc(monkeypatch) -> None:
    import numpy as np

    from scigate.gate import _similarity

    words = np.array([[0, 1, 2**64 - 1], [3, 2**63, 0]], dtype=np.uint64)
    assert _similarity._popcount_rows(words).tolist() == [65, 3]
    monkeypatch.delattr(np, "bitwise_count", raising=False)
    assert _similarity._popcount_rows(words).tolist() == [65, 3]
    sets = _random_family_sets(random.Random(7), 120)
    want = clusters(len(sets), [(i, j, 1.0) for i, j in _brute(sets, 0.7)])
    assert similar_clusters(sets, 0.7) == want


# -- conflicts, rejection breakdown, transfer, the pool's value ranks -------------------


def test_pool_letters_and_value_ranks(result) -> None:
    # the pool is c5 (B, rank 2) and c8 (B, non-numeric)
    assert result.pool_letter_distribution == {"A": 0, "B": 2, "C": 0, "D": 0}
    assert result.pool_value_rank_distribution == {
        "1": 0,
        "2": 1,
        "3": 0,
        "4": 0,
        "non-numeric": 1,
    }


def _add_record(store, cid: str, like, answer: str, *, verified: bool) -> None:
    """A record with `like`'s question and options but its own id and proposal."""
    from scigate.store import CandidateRecord

    _, created = store.add_candidate(
        CandidateRecord(
            id=cid,
            run_id="run-1",
            question=like.question,
            options=like.options,
            answer=answer,
            created_at=2000.0,
        )
    )
    assert created
    outcome = "pass" if verified else "fail"
    store.add_gate_result("run-1", cid, "verify", outcome=outcome, reason=f"printed {answer}")


def test_conflicting_proposals_are_counted(tmp_path: Path) -> None:
    """The same question and options with another proposal is a record of its own."""
    store, ids = build_db(tmp_path / "c.db")
    c1, c2, c7 = (store.get_candidate(ids[i]) for i in (1, 2, 7))
    _add_record(store, "conflict-of-c1-a", c1, "A", verified=True)  # c1 proposes C, verified
    _add_record(store, "repeat-of-c2-same", c2, c2.answer, verified=True)  # same proposal
    _add_record(store, "conflict-of-c7-b", c7, "B", verified=False)
    # c7's proposal again, verified: two verified records, but of one proposal
    _add_record(store, "repeat-of-c7-same", c7, c7.answer, verified=True)
    a = audit(store).conflicts
    assert (a.repeat_groups, a.repeat_records) == (3, 4)
    assert (a.conflicts, a.conflict_records) == (2, 5)
    # c1 (C) and its repeat (A) both passed verification: the check cannot tell them apart
    assert a.conflicts_verified_twice == 1
    by_first = {g.ids[0]: g for g in a.groups}
    assert by_first[ids[1]].proposals == {ids[1]: "C", "conflict-of-c1-a": "A"}
    assert by_first[ids[1]].verified == [ids[1], "conflict-of-c1-a"]
    assert by_first[ids[7]].verified == [ids[7], "repeat-of-c7-same"]
    assert ids[2] not in by_first  # a repeat with the same proposal is no conflict
    # c0, c5 and c10 share a normalised question but not the same text: not repeats
    store.close()


def test_rejection_breakdown(result) -> None:
    r = result.rejections
    gates = {g.gate: g for g in r.gates}
    assert list(gates) == ["generate", "verify", "screen", "solve"]
    gen = gates["generate"]
    assert (gen.results, gen.rejected, gen.errors) == (12, 1, 0)
    assert [(x.reason, x.count, x.share) for x in gen.reasons] == [("no files", 1, 1.0)]
    verify = gates["verify"]
    assert (verify.results, verify.rejected, verify.rejected_share) == (11, 1, 0.0909)
    assert verify.reasons[0].reason == "printed value matches no option"
    screen = gates["screen"]
    assert (screen.results, screen.rejected, screen.rejected_share) == (20, 9, 0.45)
    assert [(x.reason, x.count, x.by_model) for x in screen.reasons] == [
        ("N of N calls correct", 9, {FIXED: 5, SHUFFLED: 4})
    ]
    solve = gates["solve"]
    assert (solve.results, solve.rejected) == (5, 1)
    assert [(x.reason, x.by_model) for x in solve.reasons] == [("wrong answer", {SOLVER: 1})]
    assert r.total == 12


def test_rejection_reason_classes_and_new_gates(tmp_path: Path) -> None:
    from scigate.gate._rejections import reason_class

    assert reason_class("timeout: wall clock 300 s exceeded") == "timeout"
    assert reason_class("crash: exit code 1; last stderr lines: x") == "crash"
    assert (
        reason_class("value matches another option: printed 0.5, which is option B, not C")
        == "value matches another option"
    )
    spec = "python/m.py:f"
    assert (
        reason_class(f"{spec} solved it (rejected as too easy): 2 of 3 answered calls", spec)
        == "solved it (rejected as too easy)"
    )
    assert reason_class(f"{spec} could not decide: 2 of 3 calls failed", spec) == "could not decide"
    assert reason_class("", "x") == "(no reason given)"
    assert reason_class("anything: at all", detail={"reason_class": "mesh reordering"}) == (
        "mesh reordering"
    )

    store, ids = build_db(tmp_path / "r.db")
    # a gate this module does not know yet, with a failure and an error
    store.add_gate_result(
        "run-1", ids[1], "invariance", outcome="fail", reason="cell order: 0.1 became 0.2"
    )
    store.add_gate_result("run-1", ids[2], "invariance", outcome="error", reason="crash: x")
    store.add_gate_result("run-1", ids[3], "invariance", outcome="pass", reason="unchanged")
    # the loop rejected a candidate before any gate ran (e.g. a near duplicate)
    from scigate.store import CandidateRecord

    cid, _ = store.add_candidate(
        CandidateRecord(
            question="near copy", options={"A": "1", "B": "2", "C": "3", "D": "4"}, answer="A"
        )
    )
    store.add_attempt(
        "run-1",
        50,
        candidate_id=cid,
        status="rejected-duplicate",
        reason="near duplicate of x: Jaccard 0.8",
    )
    gates = {g.gate: g for g in audit(store).rejections.gates}
    assert list(gates) == ["generate", "verify", "invariance", "screen", "solve", "duplicate"]
    inv = gates["invariance"]
    assert (inv.results, inv.rejected, inv.errors, inv.rejected_share) == (3, 1, 1, 0.3333)
    assert {(x.reason, x.outcome, x.share) for x in inv.reasons} == {
        ("cell order", "fail", 0.5),
        ("crash", "error", 0.5),
    }
    assert [(x.reason, x.count) for x in gates["duplicate"].reasons] == [("near duplicate of x", 1)]
    assert gates["generate"].results == 13  # the near copy was generated too
    store.close()


def test_spec_families() -> None:
    from scigate.gate._transfer import spec_family

    assert spec_family("openai/gpt-5.5?reasoning_effort=medium") == "openai"
    assert spec_family("anthropic/claude-opus-4-8") == "anthropic"
    assert spec_family("ollama/qwen3") == "openai-compatible"
    assert spec_family("python/models/a.py:f") == "python"
    assert spec_family("cue/middle-value") == "cue"
    assert spec_family("cmd:codex exec --full-auto") == "cmd"
    assert spec_family("nonsense") == "unknown"


OPUS_AGENT = "anthropic/claude-opus-4-8"
GPT_SCREEN = "openai/gpt-5.5?reasoning_effort=medium"


def test_tool_solver_transfer_between_families(tmp_path: Path) -> None:
    store, ids = build_db(tmp_path / "t.db")
    # the held-out family's agent on the python solver's cohort: c4 wrong, c5 c8 right, c10 error
    for i, outcome in ((4, "fail"), (5, "pass"), (8, "pass"), (10, "error")):
        store.add_gate_result("run-2", ids[i], "solve", screen=OPUS_AGENT, outcome=outcome)
    t = audit(store).transfer
    assert t.tool_families == ["anthropic", "python"]
    cells = {(c.a, c.b): (c.n, c.solved, c.rate) for c in t.tool}
    # python solved c4 c5 c8 c10; anthropic decided c4 c5 c8 and solved c5 c8
    assert cells[("python", "anthropic")] == (3, 2, 0.6667)
    assert cells[("anthropic", "python")] == (2, 2, 1.0)
    assert cells[("python", "python")] == (5, 4, 0.8)
    assert cells[("anthropic", "anthropic")] == (3, 2, 0.6667)
    solvers = {s.spec: s for s in t.solvers}
    assert (solvers[OPUS_AGENT].attempted, solvers[OPUS_AGENT].solved) == (3, 2)
    assert solvers[OPUS_AGENT].errors == 1 and solvers[OPUS_AGENT].kind == "tool"
    # the pool (c5, c8): both solved by both families
    assert t.accepted_solved_by == {ids[5]: [OPUS_AGENT, SOLVER], ids[8]: [OPUS_AGENT, SOLVER]}
    assert t.accepted_by_families == {"anthropic+python": 2}
    store.close()


def test_no_tool_transfer_between_families(tmp_path: Path) -> None:
    store, ids = build_db(tmp_path / "n.db")
    for i, outcome in ((0, "fail"), (1, "pass"), (3, "fail"), (8, "error")):
        store.add_gate_result("run-2", ids[i], "screen", screen=GPT_SCREEN, outcome=outcome)
    t = audit(store).transfer
    assert t.no_tool_families == ["openai", "python"]
    cells = {(c.a, c.b): (c.n, c.solved) for c in t.no_tool}
    # the python screens solved c0 c1 c2 c3 c4 c6 c7; openai decided c0 c1 c3, solved c0 c3
    assert cells[("openai", "openai")] == (3, 2)
    assert cells[("openai", "python")] == (2, 2)
    assert cells[("python", "openai")] == (3, 2)
    assert cells[("python", "python")] == (10, 7)
    store.close()


def test_audit_cli_text_shows_the_new_tables(tmp_path: Path, db) -> None:
    import json

    from typer.testing import CliRunner

    from scigate.cli import app

    res = CliRunner().invoke(app, ["gate", "audit", "--db", str(db[0].path)])
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())  # rich wraps lines at the runner's width
    for text in ("Rejections (12", "Solved by", "No-tool transfer", "value ranks of the pool"):
        assert text in out, text
    assert "0 conflicts (same question and options, different proposals)" in out
    res = CliRunner().invoke(app, ["gate", "audit", "--db", str(db[0].path), "--json"])
    data = json.loads(res.output)
    assert data["rejections"]["gates"][1]["reasons"][0]["reason"] == (
        "printed value matches no option"
    )
    assert data["transfer"]["accepted_by_families"] == {"python": 2}
    assert data["pool_value_rank_distribution"]["2"] == 1


def test_a_loop_repeat_with_another_proposal_is_a_flagged_conflict(tmp_path: Path) -> None:
    """End to end: round 1 repeats round 0's question and options with another proposal
    and a solution that prints that proposal; both are gated and both verify, so the
    audit reports one conflict whose two proposals passed verification."""
    import os
    import subprocess
    import sys

    from scigate.store import Store

    from .conftest import model_spec

    db = tmp_path / "run.db"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "scigate",
            "gate",
            "run",
            "--db",
            str(db),
            "--generator",
            model_spec("generator:writes_candidates"),
            "--screen",
            "cue/largest",
            "--rounds",
            "2",
            "--verify-timeout",
            "60",
            "--concurrency",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "SCIGATE_TEST_REPROPOSE": "1"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    store = Store(db, create=False, readonly=True)
    c = audit(store).conflicts
    assert (c.conflicts, c.conflict_records, c.conflicts_verified_twice) == (1, 2, 1)
    assert sorted(c.groups[0].proposals.values()) == ["A", "B"]
    assert sorted(c.groups[0].verified) == sorted(c.groups[0].ids)
    store.close()


# -- near-linear clustering on templated questions (issue 27, item 2) ----------------------

_TEMPLATES = [
    "Solve the Poisson problem on a {a} by {b} mesh with coefficient {c} and report {d} times {e}.",
    "Tabulate the degree {a} element at ({c}, {d}) and report basis function {b} times {e}.",
    "For elasticity with modulus {c} and ratio {d} on a {a} by {b} beam report tip {e}.",
    "Project g = sin({c} x) onto DG{a} on a {b} mesh; report the error times {e} and {d}.",
]


def _templated_questions(rng: random.Random, n: int, spread: int) -> list[str]:
    """Questions from a few templates whose numbers repeat across families (as in the
    benchmark), so rare tokens are shared by dissimilar questions; `spread` sets how
    many distinct numbers there are (few: most pairs of a family are similar)."""
    out = []
    for _ in range(n):
        t = rng.choice(_TEMPLATES)
        out.append(
            t.format(
                a=rng.randint(2, 2 + spread),
                b=rng.randint(2, 2 + spread),
                c=f"0.{rng.randint(0, spread):03d}",
                d=f"0.{rng.randint(0, spread):03d}",
                e=rng.choice(["1.5", "2.25", "x", "y"]),
            )
        )
    return out


def _all_pairs_clusters(sets: list[frozenset[str]], t: float) -> list[list[int]]:
    """The quadratic reference: components of the graph of every pair with Jaccard >= t."""
    return clusters(len(sets), [(i, j, 1.0) for i, j in _brute(sets, t)])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("threshold", [0.5, 0.7, 0.8])
@pytest.mark.parametrize("rounds", [0, 1, 8])
def test_text_clusters_equal_all_pairs_on_templated_questions(
    seed: int, threshold: float, rounds: int, monkeypatch
) -> None:
    from scigate.gate import _similarity
    from scigate.gate._similarity import text_clusters

    rng = random.Random(3000 + seed)
    texts = _templated_questions(rng, rng.choice([40, 150, 260]), rng.choice([3, 12, 60]))
    texts += [""] * rng.randint(0, 2) + [texts[0]] * rng.randint(0, 2)
    rng.shuffle(texts)
    want = _all_pairs_clusters([tokens(t) for t in texts], threshold)
    # few merge rounds leave parts apart: the bound of pass (3) and its pairs decide
    monkeypatch.setattr(_similarity, "_MERGE_ROUNDS", rounds)
    assert text_clusters(texts, threshold) == want
    assert similar_clusters([tokens(t) for t in texts], threshold) == want
    monkeypatch.setattr(_similarity, "_MAX_WORDS", 0)  # sparse rows and unions
    monkeypatch.setattr(_similarity, "_BATCH", 5)
    assert text_clusters(iter(texts), threshold) == want


def test_part_bound_rules_out_families_sharing_only_numbers() -> None:
    """Two families that share their numbers but few words: after the merge passes no
    (item, other family) couple is left to verify, and the clusters are the families."""
    import numpy as np

    from scigate.gate._similarity import _TokenIndex

    texts = [f"alpha beta gamma delta epsilon zeta eta theta {k} {k + 1}" for k in range(60)] + [
        f"one two three four five six seven eight {k} {k + 1}" for k in range(60)
    ]
    vocab: dict[str, int] = {}
    sets = [tokens(t) for t in texts]
    ids = np.array([vocab.setdefault(w, len(vocab)) for s in sets for w in s])
    index = _TokenIndex(np.array([len(s) for s in sets]), ids, len(vocab), 0.7)
    family = np.array([0] * 60 + [1] * 60)
    assert len(index.open_item_parts(family)) == 0
    assert sum(p.shape[1] for p in index.cross_pairs(family, np.zeros(0, np.int64))) == 0
    assert _all_pairs_clusters(sets, 0.7) == [list(range(60)), list(range(60, 120))]
    from scigate.gate._similarity import text_clusters

    assert text_clusters(texts, 0.7) == [list(range(60)), list(range(60, 120))]
