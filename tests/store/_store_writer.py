"""A resumable run writer for the store's crash and concurrency tests.

`python _store_writer.py DB RUN_ID ROUNDS [SLEEP [HANG]]` writes, for every round not yet
done, a model call, a candidate, two gate results and (last) the attempt, sleeping
between writes so that a SIGKILL can land anywhere; it prints "round N" after each
round. With HANG = k, round k stops inside an open write transaction that holds its
uncommitted attempt, prints "hang", creates the file DB.hang and waits to be killed.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from scigate.llm._types import ModelCallRecord, Usage
from scigate.store import CandidateRecord, Store


def write_round(
    store: Store, run_id: str, rnd: int, sleep: float = 0.0, hang: bool = False
) -> None:
    """Write one round's five records, each in its own transaction."""
    question = f"Run {run_id}, round {rnd}: what is the L2 norm of u?"
    options = {"A": f"{rnd}.1", "B": f"{rnd}.2", "C": f"{rnd}.3", "D": f"{rnd}.4"}
    record = ModelCallRecord(
        spec="python/gen.py:generate",
        settings={"temperature": 0.7},
        messages=[{"role": "user", "content": f"round {rnd}"}],
        response={"text": question},
        usage=Usage(input_tokens=100, output_tokens=20),
        cost=0.001,
        latency=0.5,
    )
    store.add_model_call(record, run_id=run_id, role="generator", call_key=f"gen:{run_id}:{rnd}")
    time.sleep(sleep)
    cid, _ = store.add_candidate(
        CandidateRecord(run_id=run_id, question=question, options=options, answer="B")
    )
    time.sleep(sleep)
    store.add_gate_result(run_id, cid, "verify", outcome="pass", detail={"printed": f"{rnd}.2"})
    time.sleep(sleep)
    store.add_gate_result(run_id, cid, "screen", screen="python/s.py:f", outcome="fail")
    time.sleep(sleep)
    if hang:
        with store._write("hang") as conn:
            conn.execute(
                "INSERT INTO attempts (run_id, round, candidate_id, status, created_at)"
                " VALUES (?, ?, ?, 'uncommitted', 0)",
                (run_id, rnd, cid),
            )
            print("hang", flush=True)
            Path(f"{store.path}.hang").touch()
            time.sleep(120)
    store.add_attempt(run_id, rnd, candidate_id=cid, status="candidate", seconds=sleep)


def run(db: str, run_id: str, rounds: int, sleep: float = 0.0, hang: int = -1) -> None:
    """Write rounds 0..rounds-1 of `run_id`, skipping the rounds already done."""
    with Store(db) as store:
        store.create_run("gate", domain="test", config={"rounds": rounds}, run_id=run_id)
        done = store.done_rounds(run_id)
        for rnd in range(rounds):
            if rnd in done:
                continue
            write_round(store, run_id, rnd, sleep, hang=rnd == hang)
            print(f"round {rnd}", flush=True)
        store.set_run_status(run_id, "finished")
    print("finished", flush=True)


def work(db: str, run_id: str, rounds: int) -> None:
    """A worker process: write rounds 0..rounds-1 of a run that another process owns
    (holds its lock), without claiming the run."""
    with Store(db) as store:
        for rnd in range(rounds):
            write_round(store, run_id, rnd)


if __name__ == "__main__":
    args = sys.argv[1:]
    run(
        args[0],
        args[1],
        int(args[2]),
        float(args[3]) if len(args) > 3 else 0.0,
        int(args[4]) if len(args) > 4 else -1,
    )
