"""The run database: runs, attempts, candidates, gate results, model calls and events.

One SQLite file in WAL mode with a public, versioned schema (docs/schema.md). Every
write is one transaction and idempotent on a natural key, so concurrent writers
(asyncio tasks, threads, processes) and runs resumed after a crash never lose or
duplicate a record.
"""

from scigate.store._lock import RunLock, lock_path, lock_run
from scigate.store._outcomes import (
    ATTEMPT_STATUSES,
    BENCH_ATTEMPT_STATUSES,
    CANDIDATE_STATUSES,
    GATE_OUTCOMES,
    AttemptStatus,
    BenchAttemptStatus,
    CandidateStatus,
    GateOutcome,
    candidate_status,
)
from scigate.store._records import CandidateRecord, candidate_id, question_key
from scigate.store._schema import SCHEMA_VERSION
from scigate.store._store import RUN_STATUSES, Store

__all__ = [
    "ATTEMPT_STATUSES",
    "BENCH_ATTEMPT_STATUSES",
    "CANDIDATE_STATUSES",
    "GATE_OUTCOMES",
    "RUN_STATUSES",
    "SCHEMA_VERSION",
    "AttemptStatus",
    "BenchAttemptStatus",
    "CandidateRecord",
    "CandidateStatus",
    "GateOutcome",
    "RunLock",
    "Store",
    "candidate_id",
    "candidate_status",
    "lock_path",
    "lock_run",
    "question_key",
]
