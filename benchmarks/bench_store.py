"""Write throughput of the run database with concurrent writer processes.

Run by hand:  .venv/bin/python benchmarks/bench_store.py [--procs 8] [--rounds 150]

Each writer process writes `rounds` ToolGate rounds of five records (model call,
candidate, verify and screen gate results, attempt), each record its own transaction,
the way a gate run writes them. Three set-ups, same records, same file system:

- store:    `scigate.store.Store` (WAL, synchronous=NORMAL, BEGIN IMMEDIATE), `--procs`
            processes, one Store each;
- naive:    the same schema in SQLite's default rollback-journal mode (journal_mode=DELETE,
            synchronous=FULL) with a fresh connection per write, `--procs` processes;
- single:   one Store in one process writing all the records (no concurrency).

Reported: records/s (records written / wall time from a shared start signal until the
last writer finishes) and the store/naive ratio.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sqlite3
import tempfile
import time
from pathlib import Path

from scigate.llm._types import ModelCallRecord, Usage
from scigate.store import CandidateRecord, Store, candidate_id, question_key
from scigate.store._records import dumps

RECORDS_PER_ROUND = 5


def _round_data(run_id: str, rnd: int) -> tuple[CandidateRecord, ModelCallRecord]:
    question = f"Run {run_id}, round {rnd}: what is the L2 norm of the solution u_h?"
    options = {"A": f"{rnd}.1", "B": f"{rnd}.2", "C": f"{rnd}.3", "D": f"{rnd}.4"}
    candidate = CandidateRecord(
        run_id=run_id,
        question=question,
        options=options,
        answer="B",
        solution="import dolfinx\nprint(0.2)\n" * 20,
        meta={"family": "poisson"},
    )
    call = ModelCallRecord(
        spec="openai/gpt-5.5",
        settings={"temperature": 0.7},
        messages=[{"role": "user", "content": "Write a candidate. " * 50}],
        response={"text": question * 5},
        usage=Usage(input_tokens=1200, output_tokens=400),
        cost=0.01,
        latency=3.2,
    )
    return candidate, call


def _store_writer(db: str, run_id: str, rounds: int, start: mp.Event) -> None:
    with Store(db) as store:
        store.create_run("gate", run_id=run_id)
        data = [_round_data(run_id, rnd) for rnd in range(rounds)]
        start.wait()
        for rnd, (candidate, call) in enumerate(data):
            store.add_model_call(call, run_id=run_id, role="generator", call_key=f"{run_id}:{rnd}")
            cid, _ = store.add_candidate(candidate)
            store.add_gate_result(run_id, cid, "verify", outcome="pass")
            store.add_gate_result(run_id, cid, "screen", screen="m", outcome="pass")
            store.add_attempt(run_id, rnd, candidate_id=cid, status="candidate")


def _naive_execute(db: str, sql: str, params: tuple) -> None:
    """One write the naive way: open, write, commit, close (default journal mode)."""
    conn = sqlite3.connect(db, timeout=60)
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute(sql, params)
        conn.commit()
    finally:
        conn.close()


def _naive_writer(db: str, run_id: str, rounds: int, start: mp.Event) -> None:
    _naive_execute(
        db,
        "INSERT OR IGNORE INTO runs (id, kind, config, created_at) VALUES (?, 'gate', '{}', ?)",
        (run_id, time.time()),
    )
    data = [_round_data(run_id, rnd) for rnd in range(rounds)]
    start.wait()
    for rnd, (c, call) in enumerate(data):
        _naive_execute(
            db,
            "INSERT OR IGNORE INTO model_calls (run_id, role, call_key, spec, settings, messages,"
            " response, input_tokens, output_tokens, cost, latency, created_at)"
            " VALUES (?, 'generator', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                f"{run_id}:{rnd}",
                call.spec,
                dumps(call.settings),
                dumps(call.messages),
                dumps(call.response),
                call.usage.input_tokens,
                call.usage.output_tokens,
                call.cost,
                call.latency,
                time.time(),
            ),
        )
        cid = candidate_id(c.question, c.options)
        _naive_execute(
            db,
            "INSERT OR IGNORE INTO candidates (id, run_id, question, options, answer, solution,"
            " meta, question_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                cid,
                run_id,
                c.question,
                dumps(c.options),
                c.answer,
                c.solution,
                dumps(c.meta),
                question_key(c.question),
                time.time(),
            ),
        )
        for gate, screen in (("verify", ""), ("screen", "m")):
            _naive_execute(
                db,
                "INSERT OR IGNORE INTO gate_results (run_id, candidate_id, gate, screen, outcome,"
                " created_at) VALUES (?, ?, ?, ?, 'pass', ?)",
                (run_id, cid, gate, screen, time.time()),
            )
        _naive_execute(
            db,
            "INSERT OR IGNORE INTO attempts (run_id, round, candidate_id, status, created_at)"
            " VALUES (?, ?, ?, 'candidate', ?)",
            (run_id, rnd, cid, time.time()),
        )


def _run(target, db: Path, procs: int, rounds: int) -> tuple[float, int]:
    """Start `procs` writers, release them together, return (seconds, records)."""
    ctx = mp.get_context("fork")
    start = ctx.Event()
    workers = [
        ctx.Process(target=target, args=(str(db), f"run-{i}", rounds, start)) for i in range(procs)
    ]
    for w in workers:
        w.start()
    time.sleep(1.0)  # let every writer open its connection and build its records
    t0 = time.perf_counter()
    start.set()
    for w in workers:
        w.join()
        if w.exitcode != 0:
            raise SystemExit(f"writer failed with exit code {w.exitcode}")
    seconds = time.perf_counter() - t0
    with Store(db) as store:
        counts = store.query(
            "SELECT (SELECT count(*) FROM model_calls) + (SELECT count(*) FROM candidates)"
            " + (SELECT count(*) FROM gate_results) + (SELECT count(*) FROM attempts) AS n"
        )[0]["n"]
    expected = procs * rounds * RECORDS_PER_ROUND
    if counts != expected:
        raise SystemExit(f"lost records: {counts} of {expected}")
    return seconds, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--procs", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=150, help="rounds per writer process")
    parser.add_argument("--dir", default=None, help="where to put the databases")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        tmp_path = Path(tmp)
        results = {}

        results["store"] = _run(_store_writer, tmp_path / "store.db", args.procs, args.rounds)

        naive_db = tmp_path / "naive.db"
        Store(naive_db).close()  # same schema ...
        conn = sqlite3.connect(naive_db)
        conn.execute("PRAGMA journal_mode = DELETE")  # ... in the default journal mode
        conn.close()
        results["naive"] = _run(_naive_writer, naive_db, args.procs, args.rounds)

        single_rounds = args.procs * args.rounds
        results["single"] = _run(_store_writer, tmp_path / "single.db", 1, single_rounds)

    print(f"{args.procs} writer processes x {args.rounds} rounds x {RECORDS_PER_ROUND} records")
    for name, (seconds, records) in results.items():
        print(f"  {name:7s} {records:6d} records  {seconds:7.2f} s  {records / seconds:9.0f} rec/s")
    store_rate = results["store"][1] / results["store"][0]
    naive_rate = results["naive"][1] / results["naive"][0]
    print(f"  store / naive throughput ratio: {store_rate / naive_rate:.1f}x")


if __name__ == "__main__":
    main()
