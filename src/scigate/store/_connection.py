"""Opening SQLite connections to a run database and bringing its schema up to date."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from urllib.parse import quote

from scigate.errors import BadInput
from scigate.store._schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION

#: Seconds a writer waits for the database lock before giving up.
BUSY_TIMEOUT = 30.0


def check_path(path: Path, *, create: bool, readonly: bool = False) -> None:
    """Raise BadInput unless `path` is (or, with `create`, may become) a database file."""
    if path.is_dir():
        raise BadInput(f"not a scigate run database: {path} (is a directory)")
    if not path.exists():
        if not create:
            raise BadInput(f"run database not found: {path}")
        parent = path.parent
        if parent.exists() and not parent.is_dir():
            raise BadInput(f"cannot create run database: {path} ({parent} is not a directory)")
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise BadInput(f"cannot create run database: {path} ({e.strerror})") from None
        if not os.access(parent, os.W_OK | os.X_OK):
            raise BadInput(f"cannot create run database: {path} (directory not writable)")
        return
    if not os.access(path, os.R_OK):
        raise BadInput(f"cannot read run database: {path} (permission denied)")
    if not readonly and not os.access(path, os.W_OK):
        raise BadInput(f"cannot write run database: {path} (permission denied)")
    if not create and path.stat().st_size == 0:
        raise _not_a_db(path, "an empty file")


def _not_a_db(path: Path, why: str) -> BadInput:
    return BadInput(f"not a scigate run database: {path} ({why})")


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """A configured connection: WAL, synchronous=NORMAL, foreign keys, 30 s busy timeout.

    Transactions are explicit (`isolation_level=None`); the caller issues BEGIN IMMEDIATE.
    `readonly` opens the file with SQLite's `mode=ro`: nothing can be written to it.
    """
    target: str | Path = path
    if readonly:
        target = f"file:{quote(str(path.absolute()))}?mode=ro"
    try:
        conn = sqlite3.connect(
            target,
            timeout=BUSY_TIMEOUT,
            isolation_level=None,
            check_same_thread=False,
            uri=readonly,
        )
    except sqlite3.Error as e:
        raise BadInput(f"cannot open run database: {path} ({e})") from None
    try:
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
        # The first read of the header: fails here for a file that is not a database.
        conn.execute("PRAGMA schema_version").fetchone()
        if not readonly:  # switching the journal mode writes the header
            _retry_busy(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone())
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.DatabaseError as e:
        conn.close()
        raise _not_a_db(path, str(e)) from None
    return conn


def _retry_busy(fn, deadline: float = BUSY_TIMEOUT):
    """Call fn, retrying while SQLite reports the database busy (mode switches skip the
    busy handler when another process is creating the same file)."""
    end = time.monotonic() + deadline
    delay = 0.005
    while True:
        try:
            return fn()
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) and "busy" not in str(e):
                raise
            if time.monotonic() > end:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.2)


def ensure_schema(
    conn: sqlite3.Connection, path: Path, *, create: bool = True, readonly: bool = False
) -> None:
    """Create the schema on a new database, migrate an older one, refuse a newer one.

    Without `create` a database that holds no schema yet (an empty SQLite file) is
    refused rather than given one. A `readonly` connection migrates an older scigate
    database through a short-lived writable connection of its own.
    """
    # One read transaction: the header and sqlite_master from the same snapshot (another
    # process may be committing the schema between two autocommit reads).
    conn.execute("BEGIN")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        if version == SCHEMA_VERSION and app_id == APPLICATION_ID:
            return  # the common case needs no write lock
        _check_version(conn, path, version, app_id)
    finally:
        conn.execute("COMMIT")
    if version == 0 and not create:
        raise _not_a_db(path, "an empty SQLite database without scigate's schema")
    if readonly:
        writer = connect(path)
        try:
            ensure_schema(writer, path, create=create)
        finally:
            writer.close()
        return
    _retry_busy(lambda: conn.execute("BEGIN IMMEDIATE"))
    try:
        # Re-read under the lock: another process may have migrated meanwhile.
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        _check_version(conn, path, version, app_id)
        for target in range(version + 1, SCHEMA_VERSION + 1):
            for statement in _statements(MIGRATIONS[target]):
                conn.execute(statement)
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _check_version(conn: sqlite3.Connection, path: Path, version: int, app_id: int) -> None:
    if app_id not in (0, APPLICATION_ID):
        raise _not_a_db(path, f"application id {app_id:#x} belongs to another program")
    if version > SCHEMA_VERSION:
        raise BadInput(
            f"run database {path} has schema version {version}, newer than this scigate "
            f"supports ({SCHEMA_VERSION}); upgrade scigate"
        )
    if version == 0:
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if tables:
            raise _not_a_db(path, "a SQLite database without scigate's schema")


def _statements(script: str) -> list[str]:
    """Split a migration script into complete statements (so it runs in our transaction,
    which `executescript` would commit first)."""
    statements, buffer = [], ""
    for piece in script.split(";"):
        buffer += piece + ";"
        if sqlite3.complete_statement(buffer):
            statement = "\n".join(
                line for line in buffer.strip().splitlines() if not line.lstrip().startswith("--")
            )
            if statement.strip(" \n;"):
                statements.append(statement)
            buffer = ""
    return statements
