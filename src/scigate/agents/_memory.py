"""SciToolAgent-Evo's evolving memory, persisted in its own SQLite file.

Holds the known/unknown split and migrated ontologies (the known tool graph), the skill
library, the experience pool (general and domain-specific, with embeddings) and the
LinUCB gate state plus the exploration-success statistics behind the prior p. The file
is in WAL mode, carries `PRAGMA user_version` and an application id, and every write is
one transaction, so a crash never leaves half an update.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from scigate._secrets import redactor
from scigate.errors import BadInput
from scigate.tools import Tool, ToolSplit

#: "SGEM" as a big-endian int32: marks a file as a scigate agent memory.
APPLICATION_ID = 0x5347454D
SCHEMA_VERSION = 1
DEDUP_THRESHOLD = 0.85
#: the id of the only embedder agents used before memories recorded theirs
LEGACY_EMBEDDER = "builtin-hash-v1-2048-35"

_V1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE tools (
    name       TEXT PRIMARY KEY,
    known      INTEGER NOT NULL,           -- 1 known (in the graph), 0 unknown
    migrated   INTEGER NOT NULL DEFAULT 0, -- 1 when it moved from unknown to known
    ontology   TEXT,                       -- JSON, the completed ontology of a migrated tool
    updated_at REAL NOT NULL
);
CREATE TABLE skills (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    description TEXT NOT NULL,
    tool_chain  TEXT NOT NULL,             -- JSON list of tool names
    question    TEXT NOT NULL DEFAULT '',
    embedding   TEXT NOT NULL,             -- JSON list of floats
    uses        INTEGER NOT NULL DEFAULT 0,
    created_at  REAL NOT NULL,
    UNIQUE (name, tool_chain)
);
CREATE TABLE experiences (
    id         INTEGER PRIMARY KEY,
    kind       TEXT NOT NULL,              -- general | domain
    domain     TEXT,
    situation  TEXT NOT NULL,
    guidance   TEXT NOT NULL,
    embedding  TEXT NOT NULL,
    question   TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL
);
CREATE INDEX experiences_kind ON experiences(kind, domain);
CREATE TABLE state (key TEXT PRIMARY KEY, value TEXT NOT NULL);  -- JSON: gate, stats
"""

MIGRATIONS = [_V1]


def cosine(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """Cosine similarity of two vectors (0 when either is zero or their lengths differ)."""
    va, vb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    na, nb = np.linalg.norm(va), np.linalg.norm(vb)
    if na == 0 or nb == 0 or va.shape != vb.shape:
        return 0.0
    return float(va @ vb / (na * nb))


def near_duplicate(
    vector: Sequence[float] | np.ndarray,
    others: Iterable[Sequence[float] | np.ndarray],
    threshold: float = DEDUP_THRESHOLD,
) -> bool:
    """True when some vector of `others` has cosine similarity above `threshold`."""
    return any(cosine(vector, o) > threshold for o in others)


class Skill(BaseModel):
    id: int | None = None
    name: str
    description: str
    tool_chain: list[str]
    question: str = ""
    embedding: list[float] = Field(default_factory=list)
    uses: int = 0


class Experience(BaseModel):
    id: int | None = None
    kind: str  # general | domain
    domain: str | None = None
    situation: str
    guidance: str
    embedding: list[float] = Field(default_factory=list)
    question: str = ""

    @property
    def text(self) -> str:
        return self.guidance if self.kind == "general" else f"{self.situation} {self.guidance}"


class Memory:
    """The evolving memory file; open it, read and update it, close it."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(str(self.path), timeout=30, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise BadInput(f"cannot open agent memory {self.path}: {exc}") from None
        self.conn.row_factory = sqlite3.Row
        try:
            self._migrate()
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            raise BadInput(f"{self.path} is not a scigate agent memory: {exc}") from None

    def _migrate(self) -> None:
        c = self.conn
        app = c.execute("PRAGMA application_id").fetchone()[0]
        version = c.execute("PRAGMA user_version").fetchone()[0]
        has_tables = c.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0
        if has_tables and app != APPLICATION_ID:
            raise sqlite3.DatabaseError("different application id")
        if version > SCHEMA_VERSION:
            raise sqlite3.DatabaseError(
                f"schema version {version} is newer than this scigate ({SCHEMA_VERSION})"
            )
        c.execute("PRAGMA journal_mode=WAL")
        c.execute("PRAGMA synchronous=NORMAL")
        for v in range(version, SCHEMA_VERSION):
            c.execute("BEGIN IMMEDIATE")
            try:
                for stmt in filter(str.strip, MIGRATIONS[v].split(";")):
                    c.execute(stmt)
                c.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                c.execute(f"PRAGMA user_version = {v + 1}")
                c.execute("COMMIT")
            except BaseException:
                c.execute("ROLLBACK")
                raise

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _tx(self, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        c = self.conn
        redact = redactor()  # skills and experiences hold model text: no credential in it
        c.execute("BEGIN IMMEDIATE")
        try:
            for sql, params in statements:
                c.execute(sql, tuple(redact(p) if isinstance(p, str) else p for p in params))
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise

    # -- meta / state -------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def set_meta(self, key: str, value: str) -> None:
        self._tx(
            [
                (
                    "INSERT INTO meta VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (key, value),
                )
            ]
        )

    def get_state(self, key: str) -> Any:
        row = self.conn.execute("SELECT value FROM state WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def set_state(self, key: str, value: Any) -> None:
        self._tx(
            [
                (
                    "INSERT INTO state VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (key, json.dumps(value)),
                )
            ]
        )

    # -- tools / split ------------------------------------------------------------------------

    def has_split(self) -> bool:
        return self.conn.execute("SELECT count(*) FROM tools").fetchone()[0] > 0

    def save_split(self, split: ToolSplit) -> None:
        """Record a known/unknown split, its migrations included (replaces any existing one)."""
        now = time.time()
        migrated = set(split.migrated)
        stmts: list[tuple[str, tuple[Any, ...]]] = [("DELETE FROM tools", ())]
        stmts += [
            (
                "INSERT INTO tools (name, known, migrated, ontology, updated_at) VALUES (?, 1, ?, ?, ?)",
                (n, int(n in migrated), json.dumps(rec) if n in migrated else None, now),
            )
            for n, rec in sorted(split.known.items())
        ]
        stmts += [
            ("INSERT INTO tools (name, known, updated_at) VALUES (?, 0, ?)", (n, now))
            for n in split.unknown_names
        ]
        stmts += [
            (
                "INSERT INTO meta VALUES ('split', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (json.dumps({"ratio": split.known_ratio, "seed": split.seed}),),
            ),
        ]
        self._tx(stmts)

    def split(self, tools: dict[str, Tool]) -> ToolSplit | None:
        """The saved split over `tools` before its migrations (replay `migrations()` on it);
        tools added to the library since it was saved are unknown. None before `save_split`."""
        if not self.has_split():
            return None
        config = self.split_config() or {}
        return ToolSplit.from_known(
            tools,
            self.known_tools() - set(self.migrations()),
            seed=int(config.get("seed", 0)),
            known_ratio=config.get("ratio"),
        )

    def split_config(self) -> dict[str, Any] | None:
        raw = self.get_meta("split")
        return None if raw is None else json.loads(raw)

    def known_tools(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT name FROM tools WHERE known = 1")}

    def unknown_tools(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT name FROM tools WHERE known = 0")}

    def migrate_tool(self, name: str, ontology: dict[str, Any]) -> None:
        """Mark an unknown tool known, with the ontology the agent completed."""
        self._tx(
            [
                (
                    "INSERT INTO tools (name, known, migrated, ontology, updated_at) VALUES (?, 1, 1, ?, ?)"
                    " ON CONFLICT(name) DO UPDATE SET known = 1, migrated = 1, ontology = excluded.ontology,"
                    " updated_at = excluded.updated_at",
                    (name, json.dumps(ontology), time.time()),
                )
            ]
        )

    def migrations(self) -> dict[str, dict[str, Any]]:
        """Migrated tools and their completed ontologies."""
        rows = self.conn.execute(
            "SELECT name, ontology FROM tools WHERE migrated = 1 ORDER BY name"
        )
        return {r[0]: json.loads(r[1] or "{}") for r in rows}

    # -- skills ---------------------------------------------------------------------------------

    def add_skill(self, skill: Skill) -> bool:
        """Store a skill; False when the same name and tool chain is already stored."""
        chain = json.dumps(skill.tool_chain)
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            cur = c.execute(
                "INSERT INTO skills (name, description, tool_chain, question, embedding, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(name, tool_chain) DO NOTHING",
                (
                    skill.name,
                    skill.description,
                    chain,
                    skill.question,
                    json.dumps(skill.embedding),
                    time.time(),
                ),
            )
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise
        return cur.rowcount == 1

    def skills(self) -> list[Skill]:
        rows = self.conn.execute("SELECT * FROM skills ORDER BY id")
        return [
            Skill(
                id=r["id"],
                name=r["name"],
                description=r["description"],
                tool_chain=json.loads(r["tool_chain"]),
                question=r["question"],
                embedding=json.loads(r["embedding"]),
                uses=r["uses"],
            )
            for r in rows
        ]

    def use_skill(self, skill_id: int) -> None:
        self._tx([("UPDATE skills SET uses = uses + 1 WHERE id = ?", (skill_id,))])

    # -- experiences ----------------------------------------------------------------------------

    def add_experience(self, exp: Experience, *, threshold: float = DEDUP_THRESHOLD) -> bool:
        """Add an experience unless one already stored has cosine similarity above `threshold`."""
        if near_duplicate(exp.embedding, (e.embedding for e in self.experiences()), threshold):
            return False
        self._tx(
            [
                (
                    "INSERT INTO experiences (kind, domain, situation, guidance, embedding, question, created_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        exp.kind,
                        exp.domain,
                        exp.situation,
                        exp.guidance,
                        json.dumps(exp.embedding),
                        exp.question,
                        time.time(),
                    ),
                )
            ]
        )
        return True

    def experiences(self, kind: str | None = None, domain: str | None = None) -> list[Experience]:
        sql, params = "SELECT * FROM experiences", []
        where = []
        if kind:
            where.append("kind = ?")
            params.append(kind)
        if domain:
            where.append("domain = ?")
            params.append(domain)
        if where:
            sql += " WHERE " + " AND ".join(where)
        rows = self.conn.execute(sql + " ORDER BY id", params)
        return [
            Experience(
                id=r["id"],
                kind=r["kind"],
                domain=r["domain"],
                situation=r["situation"],
                guidance=r["guidance"],
                embedding=json.loads(r["embedding"]),
                question=r["question"],
            )
            for r in rows
        ]

    def dedup_experiences(self, threshold: float = DEDUP_THRESHOLD) -> int:
        """Remove experiences whose similarity to an earlier one exceeds `threshold`; count removed."""
        kept: list[np.ndarray] = []
        drop: list[int] = []
        for e in self.experiences():
            v = np.asarray(e.embedding)
            if near_duplicate(v, kept, threshold):
                drop.append(int(e.id or 0))
            else:
                kept.append(v)
        if drop:
            self._tx([("DELETE FROM experiences WHERE id = ?", (i,)) for i in drop])
        return len(drop)

    # -- embedder -------------------------------------------------------------------------------

    def bind_embedder(self, embedder_id: str) -> None:
        """Record the embedder whose vectors this memory stores; BadInput when asked to use
        another (its vectors would not compare with the stored ones). Files written before
        the embedder was recorded hold vectors of the built-in hashing embedder."""
        stored = self.get_meta("embedder")
        if stored is None:
            has_vectors = self.conn.execute(
                "SELECT (SELECT count(*) FROM skills) + (SELECT count(*) FROM experiences)"
            ).fetchone()[0]
            stored = LEGACY_EMBEDDER if has_vectors else embedder_id
            self.set_meta("embedder", stored)
        if stored != embedder_id:
            raise BadInput(
                f"agent memory {self.path} holds vectors of the embedder {stored!r}, not "
                f"{embedder_id!r}: use the same --embedder, or another memory file"
            )

    def snapshot(self, path: str | Path) -> None:
        """Copy the whole memory, consistently, to a new file at `path`."""
        dest = sqlite3.connect(str(path))
        try:
            self.conn.backup(dest)
        finally:
            dest.close()

    # -- summary --------------------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """Counts for reports: known/unknown/migrated tools, skills, experiences."""
        q = lambda sql: self.conn.execute(sql).fetchone()[0]  # noqa: E731
        return {
            "known_tools": q("SELECT count(*) FROM tools WHERE known = 1"),
            "unknown_tools": q("SELECT count(*) FROM tools WHERE known = 0"),
            "migrated_tools": q("SELECT count(*) FROM tools WHERE migrated = 1"),
            "skills": q("SELECT count(*) FROM skills"),
            "general_experiences": q("SELECT count(*) FROM experiences WHERE kind = 'general'"),
            "domain_experiences": q("SELECT count(*) FROM experiences WHERE kind = 'domain'"),
        }
