"""The response cache: a model call answered before is answered again without a request.

A call is looked up by a SHA-256 of its canonical request: provider, endpoint (without
any ``user:pass@``), model, every setting sent, the messages and tools as sent (after
the layer's adaptations), the sample's identity (`cache_sample`: the evaluation run,
epoch and task, the screen and its call index) and how many identical requests that
sample made before. So repeated samples of one question stay independent (the third
identical screen call of an item gets the third answer recorded, not the first), and a
rerun of the same run asks the same keys in the same order. Credentials never enter the
key or the file: the key material and the stored answer pass through `redact_obj` first.

Only successful answers are stored (never an error, never a refused request that the
layer adapted and sent again: the adapted request is the one stored). The file is SQLite
in WAL mode under the user cache directory (``responses.sqlite``), the answers zlib
compressed, its size bounded: past `max_bytes` the least recently used answers go.

Turned on by ``SCIGATE_CACHE`` (``1``/``true``/``on``: the default file; a directory:
the file in it) or, for one command, by the verbs' ``--cache`` (`response_cache`).
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
import sqlite3
import threading
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from scigate._cachedir import user_cache_dir
from scigate._secrets import redact_obj

CACHE_ENV = "SCIGATE_CACHE"
FILE_NAME = "responses.sqlite"
DEFAULT_MAX_BYTES = 2 * 1024**3  # 2 GiB of compressed answers
KEY_VERSION = 1  # part of every key: a change of what a key covers starts a fresh cache
_ON = frozenset({"1", "true", "yes", "on"})
_OFF = frozenset({"", "0", "false", "no", "off"})

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key        TEXT PRIMARY KEY,
    provider   TEXT NOT NULL,
    model      TEXT NOT NULL,
    body       BLOB NOT NULL,      -- zlib-compressed JSON of the ModelOutput (no raw)
    size       INTEGER NOT NULL,
    created_at REAL NOT NULL,
    used_at    REAL NOT NULL,
    hits       INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS responses_used ON responses(used_at);
"""


@dataclass
class _Sample:
    identity: tuple[Any, ...]
    seen: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def occurrence(self, request: str) -> int:
        """How many identical requests this sample made before this one."""
        with self.lock:
            n = self.seen.get(request, 0)
            self.seen[request] = n + 1
            return n


_SAMPLE: contextvars.ContextVar[_Sample | None] = contextvars.ContextVar(
    "scigate_cache_sample", default=None
)
_ROOT = _Sample(identity=())


@contextlib.contextmanager
def cache_sample(*identity: Any) -> Iterator[None]:
    """Within the block, model calls belong to the sample `identity` (run, epoch, task,
    screen call, ...): its n-th identical request is cached apart from the others."""
    parent = _SAMPLE.get()
    full = (*(parent.identity if parent else ()), *identity)
    token = _SAMPLE.set(_Sample(identity=tuple(str(part) for part in full)))
    try:
        yield
    finally:
        _SAMPLE.reset(token)


@contextlib.contextmanager
def response_cache(enabled: bool | None, directory: Path | None = None) -> Iterator[None]:
    """Within the block the response cache is on (True), off (False) or as
    ``SCIGATE_CACHE`` says (None); a run of its own: identical requests count from 0.
    Worker processes started inside the block inherit the choice (``SCIGATE_CACHE``)."""
    previous = os.environ.get(CACHE_ENV)
    if enabled is not None:
        os.environ[CACHE_ENV] = str(directory) if enabled and directory else str(int(enabled))
    token = _SAMPLE.set(_Sample(identity=()))
    try:
        yield
    finally:
        _SAMPLE.reset(token)
        if enabled is not None:
            if previous is None:
                os.environ.pop(CACHE_ENV, None)
            else:
                os.environ[CACHE_ENV] = previous


def cache_setting() -> Path | None:
    """The cache file that ``SCIGATE_CACHE`` turns on, or None when the cache is off."""
    raw = os.environ.get(CACHE_ENV, "").strip()
    if raw.lower() in _OFF:
        return None
    if raw.lower() in _ON:
        return user_cache_dir() / FILE_NAME
    return Path(raw).expanduser() / FILE_NAME


def cache_file(directory: Path | None = None) -> Path:
    """The cache file in `directory`, else the one ``SCIGATE_CACHE`` names, else the
    default (in the user cache directory), whether or not the cache is on."""
    if directory is not None:
        return Path(directory).expanduser() / FILE_NAME
    return cache_setting() or user_cache_dir() / FILE_NAME


_OPEN: dict[Path, ResponseCache] = {}
_OPEN_LOCK = threading.Lock()


def active_cache() -> ResponseCache | None:
    """The response cache model calls use now (None: every call goes to the provider)."""
    path = cache_setting()
    if path is None:
        return None
    with _OPEN_LOCK:
        cache = _OPEN.get(path)
        if cache is None:
            cache = _OPEN[path] = ResponseCache(path)
        return cache


def _public_url(url: str) -> str:
    if "@" not in url:
        return url
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def canonical_request(
    *,
    provider: str,
    base_url: str,
    model: str,
    settings: dict[str, Any],
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
) -> str:
    """The request as one canonical JSON text (sorted keys, credentials redacted)."""
    material = {
        "v": KEY_VERSION,
        "provider": provider,
        "base_url": _public_url(base_url),
        "model": model,
        "settings": settings,
        "messages": messages,
        "tools": tools,
    }
    clean = redact_obj(json.loads(json.dumps(material, default=str)))
    return json.dumps(clean, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def request_key(request: str) -> str:
    """The cache key of a canonical request in the current sample (its n-th occurrence)."""
    sample = _SAMPLE.get() or _ROOT
    digest = hashlib.sha256(request.encode()).hexdigest()
    n = sample.occurrence(digest)
    scoped = json.dumps([digest, list(sample.identity), n], separators=(",", ":"))
    return hashlib.sha256(scoped.encode()).hexdigest()


class ResponseCache:
    """Answers by key in one SQLite file, bounded to `max_bytes` (least recently used go).

    Thread-safe (one connection behind a lock); several processes may share the file
    (WAL, SQLite's writer lock, a busy timeout)."""

    def __init__(self, path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.path = Path(path)
        self.max_bytes = max_bytes
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(
            self.path, timeout=30, check_same_thread=False, isolation_level=None
        )
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.executescript(_SCHEMA)
        self._size = self._total()

    def _total(self) -> int:
        return int(self._conn.execute("SELECT COALESCE(SUM(size), 0) FROM responses").fetchone()[0])

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored answer under `key` (marked as used), or None."""
        with self._lock:
            row = self._conn.execute("SELECT body FROM responses WHERE key = ?", (key,)).fetchone()
            if row is None:
                self.misses += 1
                return None
            self._conn.execute(
                "UPDATE responses SET used_at = ?, hits = hits + 1 WHERE key = ?",
                (time.time(), key),
            )
            self.hits += 1
        answer: dict[str, Any] = json.loads(zlib.decompress(row[0]))
        return answer

    def put(self, key: str, answer: dict[str, Any], *, provider: str, model: str) -> None:
        """Store `answer` (redacted, compressed) under `key`; evict past the size bound."""
        text = json.dumps(redact_obj(answer), separators=(",", ":"), ensure_ascii=False)
        body = zlib.compress(text.encode(), 6)
        now = time.time()
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO responses (key, provider, model, body, size,"
                " created_at, used_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key, provider, model, body, len(body), now, now),
            )
            self._size += len(body)
            if self._size > self.max_bytes:
                self._evict()

    def _evict(self) -> None:
        """Drop least recently used answers until the file holds 90 % of the bound."""
        self._size = self._total()  # other processes write too
        target = int(self.max_bytes * 0.9)
        while self._size > target:
            rows = self._conn.execute(
                "SELECT key, size FROM responses ORDER BY used_at LIMIT 256"
            ).fetchall()
            if not rows:
                break
            drop, freed = [], 0
            for key, size in rows:
                drop.append(key)
                freed += size
                if self._size - freed <= target:
                    break
            self._conn.executemany("DELETE FROM responses WHERE key = ?", [(k,) for k in drop])
            self._size -= freed

    def stats(self) -> dict[str, Any]:
        """Entries, bytes, the bound, per-model counts and this process's hits and misses."""
        with self._lock:
            entries, size, first, last = self._conn.execute(
                "SELECT COUNT(*), COALESCE(SUM(size), 0), MIN(created_at), MAX(used_at)"
                " FROM responses"
            ).fetchone()
            models = self._conn.execute(
                "SELECT provider, model, COUNT(*), SUM(hits) FROM responses"
                " GROUP BY provider, model ORDER BY provider, model"
            ).fetchall()
        return {
            "path": str(self.path),
            "entries": entries,
            "bytes": size,
            "max_bytes": self.max_bytes,
            "oldest": first,
            "last_used": last,
            "models": [
                {"provider": p, "model": m, "entries": n, "hits": h or 0} for p, m, n, h in models
            ],
            "hits": self.hits,
            "misses": self.misses,
        }

    def clear(self) -> int:
        """Remove every answer; how many there were."""
        with self._lock:
            n = self._conn.execute("DELETE FROM responses").rowcount
            self._size = 0
        self._vacuum()
        return n

    def prune(self, older_than: float) -> int:
        """Remove answers not used in the last `older_than` seconds; how many went."""
        cutoff = time.time() - older_than
        with self._lock:
            n = self._conn.execute("DELETE FROM responses WHERE used_at < ?", (cutoff,)).rowcount
            self._size = self._total()
        self._vacuum()
        return n

    def _vacuum(self) -> None:
        with self._lock, contextlib.suppress(sqlite3.OperationalError):  # busy: next time
            self._conn.execute("VACUUM")

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
