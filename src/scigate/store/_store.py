"""`Store`: the run database that keeps every run, attempt, candidate, gate result,
model call and event.

Every write is one `BEGIN IMMEDIATE` transaction and is idempotent on a natural key
(UNIQUE constraint + `INSERT ... ON CONFLICT DO NOTHING`), so a run killed at any
instant can be resumed and re-issue its writes without losing or duplicating a record.
Each thread gets its own connection; asyncio tasks in one thread share that thread's
connection (a write never awaits, so writes cannot interleave); worker processes open
their own `Store` on the same file.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scigate import _secrets
from scigate.errors import BadInput, ScigateError
from scigate.store._audit_reads import AuditReads
from scigate.store._connection import check_path, connect, ensure_schema
from scigate.store._cost_reads import CostReads
from scigate.store._gate_reads import GateReads
from scigate.store._lock import RunLock, lock_run
from scigate.store._outcomes import GATE_OUTCOMES
from scigate.store._records import (
    CandidateRecord,
    candidate_id,
    dumps,
    dumps_or_null,
    loads,
    question_key,
)
from scigate.store._schema import JSON_COLUMNS

if TYPE_CHECKING:
    from scigate.llm import ModelCallRecord

RUN_STATUSES = ("running", "finished", "failed", "interrupted", "stopped")

_INHERITED: list[sqlite3.Connection] = []  # connections a forked child must not close

_RUN_JSON = ("config",)
_ATTEMPT_JSON = ("detail",)
_GATE_JSON = ("detail",)
_CALL_JSON = ("settings", "messages", "tools", "response")
_EVENT_JSON = ("data",)


def _broken_json(name: str, row: dict[str, Any], table: str | None = None) -> BadInput:
    where = next((f"{k} {row[k]!r}" for k in ("id", "call_key") if row.get(k)), "a row")
    column = f"{table}.{name}" if table else name
    return BadInput(f"run database is damaged: column {column} of {where} does not hold JSON")


def _decode(row: sqlite3.Row, json_columns: Sequence[str]) -> dict[str, Any]:
    out = dict(row)
    for name in json_columns:
        if name in out:
            try:
                out[name] = loads(out[name])
            except (ValueError, TypeError):
                raise _broken_json(name, out) from None
    return out


def _decode_query_value(name: str, item: dict[str, Any]) -> Any:
    """A JSON column of a query's row, decoded; a damaged one is BadInput, not a crash."""
    value = item[name]
    if isinstance(value, str):
        try:
            return loads(value)
        except ValueError:
            raise _broken_json(name, item) from None
    return value


class _RedactingConnection:
    """The connection of one write transaction: every text parameter of a statement is
    redacted of the caller's credential values (`scigate._secrets`) before it is stored,
    so no writer (model calls, transcripts, gate reasons, events, configs) can skip it."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.redact = _secrets.redactor()

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> sqlite3.Cursor:
        """`sqlite3.Connection.execute` with redacted text parameters."""
        if isinstance(params, dict):
            params = {k: self.redact(v) if isinstance(v, str) else v for k, v in params.items()}
        else:
            params = tuple(self.redact(v) if isinstance(v, str) else v for v in params)
        return self.conn.execute(sql, params)


class Store(GateReads, AuditReads, CostReads):
    """The SQLite (WAL) run database at `path`.

    `create=False` raises BadInput when the file does not exist or holds no schema yet
    (an empty file is not given one). `readonly=True` (audit, report, export) opens the
    file read-only: no write can reach it. Opening a directory, a file that is not a
    SQLite database, another program's database, an unreadable path or a database
    written by a newer scigate raises BadInput with one line; so does reading a row whose
    JSON column does not hold JSON.
    """

    def __init__(self, path: str | Path, *, create: bool = True, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        check_path(self.path, create=create and not readonly, readonly=readonly)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: list[sqlite3.Connection] = []
        self._pid = os.getpid()
        self._closed = False
        self._run_locks: dict[str, RunLock] = {}
        conn = self._conn()
        try:
            ensure_schema(conn, self.path, create=create and not readonly, readonly=readonly)
            if readonly:  # a reader checks the whole file before printing or writing anything
                self.check_json()
        except BaseException:
            self.close()
            raise

    # -- connections and transactions -------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        if self._closed:
            raise ScigateError(f"run database {self.path} is closed")
        if os.getpid() != self._pid:
            # A forked child must not use (or close) its parent's connections: keep them
            # referenced so they are never finalized here, and start afresh.
            _INHERITED.extend(self._connections)
            self._local = threading.local()
            self._connections = []
            self._pid = os.getpid()
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.path, readonly=self.readonly)
            self._local.conn = conn
            with self._lock:
                self._connections.append(conn)
        return conn

    @contextmanager
    def _write(self, what: str) -> Iterator[_RedactingConnection]:
        """One write transaction (BEGIN IMMEDIATE ... COMMIT, rolled back on error);
        statements go through `_RedactingConnection`."""
        if self.readonly:
            raise ScigateError(f"cannot {what}: run database {self.path} is open read-only")
        conn = self._conn()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as e:
            raise ScigateError(f"cannot write run database {self.path}: {e}") from None
        try:
            yield _RedactingConnection(conn)
            conn.execute("COMMIT")
        except sqlite3.IntegrityError as e:
            self._rollback(conn)
            raise BadInput(f"cannot {what}: {e}") from None
        except BaseException:
            self._rollback(conn)
            raise

    @staticmethod
    def _rollback(conn: sqlite3.Connection) -> None:
        if conn.in_transaction:
            conn.execute("ROLLBACK")

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        return self._conn().execute(sql, params).fetchall()

    def close(self) -> None:
        """Close every connection this store opened (in this process)."""
        with self._lock:
            connections, self._connections = self._connections, []
        if os.getpid() == self._pid:
            for conn in connections:
                with suppress(sqlite3.Error):
                    conn.close()
        self._local = threading.local()
        self._closed = True
        for run_id in list(getattr(self, "_run_locks", {})):
            self.release_run(run_id)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    def check_json(self) -> None:
        """Raise BadInput naming the first row whose JSON column does not hold valid JSON."""
        conn = self._conn()
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            columns = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
            json_columns = [name for name in columns if name in JSON_COLUMNS]
            if len(json_columns) > 1:
                # one scan of the table (not one per column) finds whether any is bad;
                # the first bad one is then named column by column, as before
                broken = " OR ".join(
                    f'("{name}" IS NOT NULL AND NOT json_valid("{name}"))' for name in json_columns
                )
                if not conn.execute(f'SELECT 1 FROM "{table}" WHERE {broken} LIMIT 1').fetchone():
                    continue
            for name in json_columns:
                bad = conn.execute(
                    f'SELECT * FROM "{table}" WHERE "{name}" IS NOT NULL'
                    f' AND NOT json_valid("{name}") LIMIT 1'
                ).fetchone()
                if bad is not None:
                    raise _broken_json(name, dict(bad), table)

    # -- runs -------------------------------------------------------------------------

    def create_run(
        self,
        kind: str,
        *,
        domain: str | None = None,
        config: dict[str, Any] | None = None,
        run_id: str | None = None,
    ) -> str:
        """Record a new run (status 'running') and return its id.

        With an explicit `run_id` that already exists, nothing changes (resuming).
        """
        if not run_id:
            run_id = f"{kind}-{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}"
        held = self._holds(run_id)
        self.claim_run(run_id)
        try:
            with self._write("create run") as conn:
                conn.execute(
                    "INSERT INTO runs (id, kind, domain, config, status, created_at)"
                    " VALUES (?, ?, ?, ?, 'running', ?) ON CONFLICT (id) DO NOTHING",
                    (run_id, kind, domain, dumps(config or {}), time.time()),
                )
        except BaseException:
            if not held:
                self.release_run(run_id)
            raise
        return run_id

    # -- one writer per run -------------------------------------------------------------

    def claim_run(self, run_id: str) -> RunLock:
        """Hold the run's lock (`scigate.store.lock_run`) until its status becomes final
        or this store closes; BadInput when another live process works on the run.

        `create_run` and `set_run_status` claim the run themselves, so a second process
        resuming a live run is refused before it writes anything.
        """
        lock = self._run_locks.get(run_id)
        if lock is not None and lock.held:
            return lock
        lock = lock_run(self.path, run_id)
        self._run_locks[run_id] = lock
        return lock

    def release_run(self, run_id: str) -> None:
        """Give up this store's claim on the run (no-op when it holds none)."""
        lock = self._run_locks.pop(run_id, None)
        if lock is not None:
            lock.release()

    def _holds(self, run_id: str) -> bool:
        lock = self._run_locks.get(run_id)
        return lock is not None and lock.held

    def get_run(self, run_id: str) -> dict[str, Any] | None:
        """The run with this id, or None."""
        rows = self._read("SELECT * FROM runs WHERE id = ?", (run_id,))
        return _decode(rows[0], _RUN_JSON) if rows else None

    def latest_run(self, kind: str | None = None) -> dict[str, Any] | None:
        """The most recently created run (of this kind), or None."""
        where, params = ("WHERE kind = ?", (kind,)) if kind else ("", ())
        rows = self._read(
            f"SELECT * FROM runs {where} ORDER BY created_at DESC, rowid DESC LIMIT 1", params
        )
        return _decode(rows[0], _RUN_JSON) if rows else None

    def runs(self) -> list[dict[str, Any]]:
        """All runs, oldest first."""
        rows = self._read("SELECT * FROM runs ORDER BY created_at, rowid")
        return [_decode(r, _RUN_JSON) for r in rows]

    def set_run_status(self, run_id: str, status: str) -> None:
        """Set a run's status; finished/failed/interrupted also stamp `finished_at`."""
        if status not in RUN_STATUSES:
            raise BadInput(f"unknown run status {status!r} (expected one of {RUN_STATUSES})")
        finished_at = None if status == "running" else time.time()
        held = self._holds(run_id)
        self.claim_run(run_id)  # only the process working on a run changes its status
        try:
            with self._write("set run status") as conn:
                cur = conn.execute(
                    "UPDATE runs SET status = ?, finished_at = ? WHERE id = ?",
                    (status, finished_at, run_id),
                )
                if cur.rowcount == 0:
                    raise BadInput(f"no run {run_id!r} in {self.path}")
        except BaseException:
            if not held:
                self.release_run(run_id)
            raise
        if status != "running":
            self.release_run(run_id)

    # -- attempts ---------------------------------------------------------------------

    def add_attempt(
        self,
        run_id: str,
        round: int,
        *,
        candidate_id: str | None,
        status: str,
        reason: str = "",
        detail: dict[str, Any] | None = None,
        seconds: float = 0.0,
        gen_seconds: float = 0.0,
    ) -> bool:
        """Record one generation attempt; False if (run_id, round) was already recorded.

        `seconds` is the round's wall time; `gen_seconds` the generator's own working time.
        """
        with self._write(f"add attempt {run_id}/{round}") as conn:
            cur = conn.execute(
                "INSERT INTO attempts (run_id, round, candidate_id, status, reason, detail,"
                " seconds, gen_seconds, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (run_id, round) DO NOTHING",
                (
                    run_id,
                    round,
                    candidate_id,
                    status,
                    reason,
                    dumps(detail or {}),
                    seconds,
                    gen_seconds,
                    time.time(),
                ),
            )
            return cur.rowcount == 1

    def attempts(self, run_id: str | None = None) -> list[dict[str, Any]]:
        """Attempts (of one run), in run and round order."""
        where, params = ("WHERE run_id = ?", (run_id,)) if run_id else ("", ())
        rows = self._read(f"SELECT * FROM attempts {where} ORDER BY run_id, round", params)
        return [_decode(r, _ATTEMPT_JSON) for r in rows]

    def done_rounds(self, run_id: str) -> set[int]:
        """The rounds of a run that already have an attempt (skip these when resuming)."""
        rows = self._read("SELECT round FROM attempts WHERE run_id = ?", (run_id,))
        return {r[0] for r in rows}

    # -- candidates -------------------------------------------------------------------

    def add_candidate(self, record: CandidateRecord) -> tuple[str, bool]:
        """Store a candidate once; return (id, created).

        On creation, `duplicate_of` is set to the earliest stored candidate with the same
        normalized question (an exact duplicate with different options), if any.
        """
        cid = record.id or candidate_id(record.question, record.options)
        key = question_key(record.question)
        with self._write(f"add candidate {cid}") as conn:
            if conn.execute("SELECT 1 FROM candidates WHERE id = ?", (cid,)).fetchone():
                return cid, False
            first = conn.execute(
                "SELECT id FROM candidates WHERE question_key = ? ORDER BY rowid LIMIT 1",
                (key,),
            ).fetchone()
            duplicate_of = first[0] if first else record.duplicate_of
            conn.execute(
                "INSERT INTO candidates (id, run_id, question, options, answer, answer_value,"
                " solution, meta, family, generator, question_key, duplicate_of, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (id) DO NOTHING",
                (
                    cid,
                    record.run_id or None,
                    record.question,
                    dumps(record.options),
                    record.answer,
                    record.answer_value,
                    record.solution,
                    dumps(record.meta),
                    record.family,
                    record.generator,
                    key,
                    duplicate_of,
                    record.created_at or time.time(),
                ),
            )
        return cid, True

    def get_candidate(self, candidate_id: str) -> CandidateRecord | None:
        """The candidate with this id, or None."""
        rows = self._read("SELECT * FROM candidates WHERE id = ?", (candidate_id,))
        return self._candidate(rows[0]) if rows else None

    def candidates(self, run_id: str | None = None) -> list[CandidateRecord]:
        """All candidates, oldest first; with `run_id`, those the run produced or tested
        (first produced by it, or named by one of its attempts or gate results)."""
        if run_id is None:
            rows = self._read("SELECT * FROM candidates ORDER BY rowid")
        else:
            rows = self._read(
                "SELECT * FROM candidates WHERE run_id = ?"
                " OR id IN (SELECT candidate_id FROM attempts WHERE run_id = ?)"
                " OR id IN (SELECT candidate_id FROM gate_results WHERE run_id = ?)"
                " ORDER BY rowid",
                (run_id, run_id, run_id),
            )
        return [self._candidate(r) for r in rows]

    @staticmethod
    def _candidate(row: sqlite3.Row) -> CandidateRecord:
        data = _decode(row, ("options", "meta"))
        data.pop("question_key", None)
        data["run_id"] = data["run_id"] or ""
        return CandidateRecord.model_validate(data)

    # -- gate results -----------------------------------------------------------------

    def add_gate_result(
        self,
        run_id: str,
        candidate_id: str,
        gate: str,
        *,
        outcome: str,
        reason: str = "",
        screen: str = "",
        detail: dict[str, Any] | None = None,
        seconds: float = 0.0,
        replace: bool = False,
    ) -> bool:
        """Record a gate's outcome for a candidate in a run; False if already recorded.

        The key is (run_id, candidate_id, gate, screen); the first write wins unless
        `replace=True` (e.g. retrying a gate that ended in 'error'), which overwrites it.
        """
        if outcome not in GATE_OUTCOMES:
            raise BadInput(f"unknown gate outcome {outcome!r} (expected one of {GATE_OUTCOMES})")
        conflict = (
            "DO UPDATE SET outcome = excluded.outcome, reason = excluded.reason,"
            " detail = excluded.detail, seconds = excluded.seconds,"
            " created_at = excluded.created_at"
            if replace
            else "DO NOTHING"
        )
        with self._write(f"add {gate} result for {candidate_id}") as conn:
            cur = conn.execute(
                "INSERT INTO gate_results (run_id, candidate_id, gate, screen, outcome, reason,"
                " detail, seconds, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                f" ON CONFLICT (run_id, candidate_id, gate, screen) {conflict}",
                (
                    run_id,
                    candidate_id,
                    gate,
                    screen,
                    outcome,
                    reason,
                    dumps(detail or {}),
                    seconds,
                    time.time(),
                ),
            )
            return cur.rowcount == 1

    def gate_result(
        self, run_id: str, candidate_id: str, gate: str, screen: str = ""
    ) -> dict[str, Any] | None:
        """One gate result by its key, or None."""
        rows = self._read(
            "SELECT * FROM gate_results WHERE run_id = ? AND candidate_id = ? AND gate = ?"
            " AND screen = ?",
            (run_id, candidate_id, gate, screen),
        )
        return _decode(rows[0], _GATE_JSON) if rows else None

    def gate_results(
        self,
        *,
        run_id: str | None = None,
        candidate_id: str | None = None,
        gate: str | None = None,
    ) -> list[dict[str, Any]]:
        """Gate results matching every given filter, in the order they were written."""
        where, params = _filters(run_id=run_id, candidate_id=candidate_id, gate=gate)
        rows = self._read(f"SELECT * FROM gate_results {where} ORDER BY id", params)
        return [_decode(r, _GATE_JSON) for r in rows]

    # -- model calls ------------------------------------------------------------------

    def add_model_call(
        self,
        record: ModelCallRecord,
        *,
        run_id: str | None = None,
        candidate_id: str | None = None,
        role: str = "",
        call_key: str | None = None,
    ) -> int:
        """Record one model call and return its row id.

        With a `call_key` that is already stored, nothing is written and the existing
        row's id is returned (a resumed run re-issuing the same call).
        """
        usage = record.usage
        with self._write(f"add model call {call_key or record.spec}") as conn:
            cur = conn.execute(
                "INSERT INTO model_calls (run_id, candidate_id, role, call_key, spec, settings,"
                " messages, tools, response, input_tokens, output_tokens, reasoning_tokens,"
                " cached_input_tokens, cost, latency, error, started_at, created_at, cached)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (call_key) DO NOTHING",
                (
                    run_id,
                    candidate_id,
                    role,
                    call_key,
                    record.spec,
                    dumps(record.settings),
                    dumps(record.messages),
                    dumps_or_null(record.tools),
                    dumps_or_null(record.response),
                    usage.input_tokens,
                    usage.output_tokens,
                    usage.reasoning_tokens,
                    usage.cached_input_tokens,
                    record.cost,
                    record.latency,
                    record.error,
                    record.started_at or None,
                    time.time(),
                    int(record.cached),
                ),
            )
            if cur.rowcount == 1 and cur.lastrowid is not None:
                return cur.lastrowid
            row = conn.execute("SELECT id FROM model_calls WHERE call_key = ?", (call_key,))
            return int(row.fetchone()[0])

    def model_call(self, call_key: str) -> dict[str, Any] | None:
        """The model call stored under `call_key`, or None (so a resumed run can reuse it)."""
        rows = self._read("SELECT * FROM model_calls WHERE call_key = ?", (call_key,))
        return _decode(rows[0], _CALL_JSON) if rows else None

    def model_calls(
        self,
        *,
        run_id: str | None = None,
        candidate_id: str | None = None,
        role: str | None = None,
    ) -> list[dict[str, Any]]:
        """Model calls matching every given filter, in the order they were made."""
        where, params = _filters(run_id=run_id, candidate_id=candidate_id, role=role)
        rows = self._read(f"SELECT * FROM model_calls {where} ORDER BY id", params)
        return [_decode(r, _CALL_JSON) for r in rows]

    def recorder(
        self,
        *,
        run_id: str | None = None,
        candidate_id: str | None = None,
        role: str = "",
        call_key: str | None = None,
    ) -> Callable[[ModelCallRecord], None]:
        """A callback that stores each ModelCallRecord it is given with these labels.

        With a `call_key`, the first call is stored under it and the n-th (n >= 2) under
        `f"{call_key}#{n}"`, so a multi-call episode keeps every call and a resumed run
        re-issuing the same sequence finds each one again.
        """
        count = 0
        lock = threading.Lock()

        def record(call: ModelCallRecord) -> None:
            nonlocal count
            with lock:
                count += 1
                n = count
            key = call_key if call_key is None or n == 1 else f"{call_key}#{n}"
            self.add_model_call(
                call, run_id=run_id, candidate_id=candidate_id, role=role, call_key=key
            )

        return record

    # -- expert reviews (schema v4) ---------------------------------------------------

    def add_reviewer(self, name: str) -> bool:
        """Register a reviewer by name; False when the name was already registered."""
        with self._write(f"add reviewer {name}") as conn:
            cur = conn.execute(
                "INSERT INTO reviewers (name, created_at) VALUES (?, ?)"
                " ON CONFLICT (name) DO NOTHING",
                (name, time.time()),
            )
            return cur.rowcount == 1

    def reviewers(self) -> list[str]:
        """Registered reviewer names, alphabetically."""
        return [r[0] for r in self._read("SELECT name FROM reviewers ORDER BY name")]

    def save_reviews(self, rows: Sequence[dict[str, Any]], *, source: str = "web") -> int:
        """Store verdicts in one transaction: all of them or, on any error, none.

        Each row holds item_id, item_kind, protocol, reviewer (registered), criterion,
        verdict (yes/no/unsure) and note; a reviewer's earlier verdict on the same
        (item, protocol, criterion) is replaced. Returns the number of rows written.
        """
        now = time.time()
        with self._write("save reviews") as conn:
            for r in rows:
                conn.execute(
                    "INSERT INTO reviews (item_id, item_kind, protocol, reviewer, criterion,"
                    " verdict, note, source, created_at, updated_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT (item_id, protocol, reviewer, criterion) DO UPDATE SET"
                    " verdict = excluded.verdict, note = excluded.note,"
                    " source = excluded.source, updated_at = excluded.updated_at",
                    (
                        r["item_id"],
                        r["item_kind"],
                        r["protocol"],
                        r["reviewer"],
                        r["criterion"],
                        r["verdict"],
                        r.get("note") or "",
                        source,
                        now,
                        now,
                    ),
                )
        return len(rows)

    def set_review_rule(self, protocol: str, reviewers: int) -> None:
        """Decide items of `protocol` once `reviewers` people answered every criterion."""
        with self._write(f"set review rule {protocol}") as conn:
            conn.execute(
                "INSERT INTO review_rules (protocol, reviewers, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (protocol) DO UPDATE SET reviewers = excluded.reviewers,"
                " updated_at = excluded.updated_at",
                (protocol, reviewers, time.time()),
            )

    def review_rules(self) -> dict[str, int]:
        """protocol -> reviewers needed, for the protocols whose rule was set."""
        return {r[0]: r[1] for r in self._read("SELECT protocol, reviewers FROM review_rules")}

    def reviews(
        self, *, protocol: str | None = None, item_id: str | None = None
    ) -> list[dict[str, Any]]:
        """Stored verdicts matching the given filters, by item, reviewer and criterion."""
        where, params = _filters(protocol=protocol, item_id=item_id)
        rows = self._read(
            f"SELECT * FROM reviews {where} ORDER BY item_id, reviewer, criterion", params
        )
        return [dict(r) for r in rows]

    # -- events and plain SQL ---------------------------------------------------------

    def add_event(self, run_id: str | None, kind: str, data: dict[str, Any] | None = None) -> None:
        """Append a progress or diagnostic event (not deduplicated)."""
        with self._write(f"add event {kind}") as conn:
            conn.execute(
                "INSERT INTO events (run_id, kind, data, created_at) VALUES (?, ?, ?, ?)",
                (run_id, kind, dumps(data or {}), time.time()),
            )

    def events(self, run_id: str | None = None, kind: str | None = None) -> list[dict[str, Any]]:
        """Events matching the given filters, oldest first."""
        where, params = _filters(run_id=run_id, kind=kind)
        rows = self._read(f"SELECT * FROM events {where} ORDER BY id", params)
        return [_decode(r, _EVENT_JSON) for r in rows]

    def query(
        self,
        sql: str,
        params: Sequence[Any] | dict[str, Any] = (),
        *,
        texts: Collection[str] = (),
    ) -> list[dict[str, Any]]:
        """Run one read-only SQL statement and return its rows as dicts.

        Columns named like the schema's JSON columns (detail, meta, options, ...) are
        decoded; those named in `texts` keep their stored JSON text too, as
        `<name>_text`. Writing through `query` is refused; bad SQL raises BadInput.
        """
        conn = self._conn()
        conn.execute("PRAGMA query_only = ON")
        try:
            cur = conn.cursor()
            cur.row_factory = None  # plain tuples: each row becomes a dict below
            cur.execute(sql, params)
            names = [d[0] for d in cur.description or ()]
            rows = cur.fetchall()
        except (sqlite3.OperationalError, sqlite3.ProgrammingError) as e:
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise BadInput(f"bad SQL query: {first}") from None
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            conn.execute("PRAGMA query_only = OFF")
        decoded = [name for name in names if name in JSON_COLUMNS]
        kept = [(name, f"{name}_text") for name in decoded if name in texts]
        out = []
        for row in rows:
            item = dict(zip(names, row, strict=True))
            for name, text in kept:
                item[text] = item[name]
            for name in decoded:
                item[name] = _decode_query_value(name, item)
            out.append(item)
        return out


def _filters(**filters: Any) -> tuple[str, tuple[Any, ...]]:
    """A WHERE clause (possibly empty) and its parameters for the non-None filters."""
    given = {k: v for k, v in filters.items() if v is not None}
    if not given:
        return "", ()
    return "WHERE " + " AND ".join(f"{k} = ?" for k in given), tuple(given.values())
