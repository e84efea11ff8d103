"""The judge-response cache: one SQLite file, shared safely by threads and processes.

A key is the SHA-256 of the canonical JSON of everything that determines a reply
(provider, endpoint, model, messages, sampling config, trial index), so a re-run pays
only for calls it has not made before, a new trial asks the judge afresh, and the same
model name served by another server is asked again rather than answered with the first
server's verdicts. The endpoint enters the key without credentials, so no key is
needed to compute it and none can be recovered from it.

Reads are direct (a WAL-mode read of one row by primary key takes microseconds and
never waits for writers); writes are queued and committed in batches by a
background thread, so neither a slow disk nor another process holding the write
lock ever stalls the event loop. Queued values are visible to :meth:`get` at once,
and the writer thread is not a daemon: queued writes are committed before the
interpreter exits.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from pydantic import BaseModel

from ragjudge._util.known_secrets import mask_secrets_in_json
from ragjudge.errors import JudgeError

logger = logging.getLogger(__name__)

DEFAULT_CACHE_PATH = Path(".ragjudge") / "cache.db"
"""Where the CLI keeps the cache unless ``RAGJUDGE_CACHE`` says otherwise."""

_WRITER_IDLE_SECONDS = 0.05
"""How long the writer thread waits for more work before it ends (it restarts on demand)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    created_at REAL NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS counters (
    name TEXT PRIMARY KEY,
    value INTEGER NOT NULL
) WITHOUT ROWID;
"""


def default_cache_path() -> Path:
    """``$RAGJUDGE_CACHE`` if set, else ``.ragjudge/cache.db`` in the working directory."""
    env = os.environ.get("RAGJUDGE_CACHE")
    return Path(env).expanduser() if env else DEFAULT_CACHE_PATH


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace: equal values give equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def cache_key(
    provider: str,
    model: str,
    messages: list[dict[str, Any]],
    config: dict[str, Any],
    trial: int,
    *,
    endpoint: str | None = None,
) -> str:
    """The cache key of one chat call. ``config`` should hold only the fields that
    are set, so adding an unset option later keeps old keys valid; ``endpoint`` is
    the server's base URL without credentials (:func:`provider_endpoint`)."""
    payload = {
        "provider": provider,
        "endpoint": endpoint,
        "model": model,
        "messages": messages,
        "config": config,
        "trial": trial,
    }
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


def embedding_key(
    provider: str, model: str, texts: list[str], *, endpoint: str | None = None
) -> str:
    """The cache key of one embedding batch (``endpoint`` as for :func:`cache_key`)."""
    payload = {"provider": provider, "endpoint": endpoint, "model": model, "embed": texts}
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


def provider_endpoint(provider: object) -> str | None:
    """The endpoint a provider's replies come from, for cache keys: its ``endpoint``
    attribute (the base URL without credentials), or None for a provider that has no
    server (a scripted model)."""
    endpoint = getattr(provider, "endpoint", None)
    return endpoint if isinstance(endpoint, str) else None


class CacheStats(BaseModel):
    """What ``ragjudge cache stats`` shows. Hits and misses are counted over the
    cache file's lifetime (since the last :meth:`ResponseCache.clear`)."""

    entries: int
    hits: int
    misses: int
    size: int
    """Bytes on disk (database plus write-ahead log)."""
    path: str


class CacheError(JudgeError, ValueError):
    """The cache path cannot be a cache: a folder, or a file that is not SQLite."""


class ResponseCache:
    """A SQLite key → JSON-object store for judge replies.

    ``path`` may be ``":memory:"`` for a cache that lives as long as the object.
    The file and its folder are created on first use.
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = str(path) if path is not None else str(default_cache_path())
        self._memory = self.path == ":memory:"
        self._read_lock = threading.Lock()
        self._reader: sqlite3.Connection | None = None
        self._writer: sqlite3.Connection | None = None
        self._writer_opening = threading.Lock()
        # Guards the queue of writes, the counters and the writer thread's lifecycle.
        self._state = threading.Condition()
        self._pending: dict[str, str] = {}
        self._in_progress: dict[str, str] = {}
        self._committing = False
        self._pending_hits = 0
        self._pending_misses = 0
        self._clear_requested = False
        self._closing = False
        """Set while :meth:`close` waits for the writer thread to end."""
        self._writer_thread: threading.Thread | None = None

    # public API -----------------------------------------------------------

    def check(self, *, write: bool = False) -> None:
        """Open the file now; :class:`CacheError` naming the path when it is a folder,
        not a SQLite database or, with ``write``, cannot be written (a run checks before
        it starts)."""
        if self._memory:
            return
        if Path(self.path).is_dir():
            raise CacheError(f"the cache {self.path} is a folder; a cache is a SQLite file")
        doing = "open"
        try:
            with self._read_lock:
                conn = self._read_connection()
                conn.execute("SELECT COUNT(*) FROM responses").fetchone()
                if write:  # writes the value it holds: fails on a read-only file
                    doing = "write"
                    version = conn.execute("PRAGMA user_version").fetchone()[0]
                    conn.execute(f"PRAGMA user_version = {int(version)}")
            if write:  # opened now, not by the writer thread while requests go out
                self._write_connection()
        except sqlite3.DatabaseError as exc:
            with self._read_lock:
                if self._reader is not None:
                    self._reader.close()
                    self._reader = None
            reason = _reason(exc, self.path)
            raise CacheError(f"cannot {doing} the cache {self.path}: {reason}") from None

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored value for ``key`` (counting a hit) or ``None`` (a miss)."""
        text = self._read(key)
        with self._state:
            if text is None:
                self._pending_misses += 1
            else:
                self._pending_hits += 1
            self._start_writer()  # to persist the counters
        return _parsed(text)

    def recall(self, key: str) -> dict[str, Any] | None:
        """A fact about an endpoint kept with :meth:`put` under a key of its own (not a
        reply: no hit or miss is counted), or ``None``."""
        return _parsed(self._read(key))

    def _read(self, key: str) -> str | None:
        with self._state:
            text = self._pending.get(key) or self._in_progress.get(key)
        if text is not None:
            return text
        with self._read_lock:
            row = (
                self._read_connection()
                .execute("SELECT value FROM responses WHERE key = ?", (key,))
                .fetchone()
            )
        return row[0] if row is not None else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        """Queue ``value`` under ``key`` (replacing an older value); returns at once.
        The secrets this process knows are masked in it, as in the store
        (:mod:`ragjudge._util.known_secrets`)."""
        text = mask_secrets_in_json(canonical_json(value))
        with self._state:
            self._pending[key] = text
            self._start_writer()

    def flush(self) -> None:
        """Wait until every queued write and counter is committed."""
        with self._state:
            while self._has_work() or self._committing:
                self._start_writer()
                self._state.notify_all()  # a writer waiting for more work goes now
                self._state.wait(timeout=0.1)

    def stats(self) -> CacheStats:
        """Entries, lifetime hits and misses, and size on disk."""
        self.flush()
        with self._read_lock:
            conn = self._read_connection()
            entries = conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
            counters = dict(conn.execute("SELECT name, value FROM counters").fetchall())
        return CacheStats(
            entries=entries,
            hits=counters.get("hits", 0),
            misses=counters.get("misses", 0),
            size=self._size_on_disk(),
            path=self.path,
        )

    def clear(self) -> int:
        """Delete every entry and reset the counters; return how many entries went
        (:class:`CacheError` when the file cannot be written)."""
        self.flush()
        with self._state:
            self._pending_hits = self._pending_misses = 0
        try:
            with self._read_lock:
                conn = self._read_connection()
                with conn:
                    conn.execute("BEGIN IMMEDIATE")
                    removed: int = conn.execute("DELETE FROM responses").rowcount
                    conn.execute("DELETE FROM counters")
                conn.execute("VACUUM")
        except sqlite3.OperationalError as exc:
            raise CacheError(
                f"cannot clear the cache {self.path}: {_reason(exc, self.path)}"
            ) from None
        return removed

    def close(self) -> None:
        """Commit queued writes, let the writer thread end and close the database file
        (it reopens on next use).
        An in-memory cache stays open: its one connection holds its data."""
        self.flush()
        if self._memory:
            return
        with self._state:
            self._closing = True  # the writer thread ends once nothing is queued
            self._state.notify_all()
            while self._writer_thread is not None and self._writer_thread.is_alive():
                self._state.wait(timeout=0.1)
            self._closing = False
            writer, self._writer = self._writer, None
        with self._read_lock:
            reader, self._reader = self._reader, None
        for conn in (reader, writer):
            if conn is not None:
                conn.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # connections ----------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        if not self._memory:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(
            self.path, check_same_thread=False, timeout=30.0, isolation_level=None
        )
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.executescript(_SCHEMA)
        return conn

    def _read_connection(self) -> sqlite3.Connection:
        """The connection reads use; call with ``_read_lock`` held."""
        if self._reader is None:
            self._reader = self._open()
        return self._reader

    # the writer thread ----------------------------------------------------

    def _start_writer(self) -> None:
        """Start the writer thread unless it runs; call with ``_state`` held."""
        if self._writer_thread is None:
            self._writer_thread = threading.Thread(
                target=self._write_loop, name="ragjudge-cache-writer", daemon=False
            )
            self._writer_thread.start()

    def _write_loop(self) -> None:
        while True:
            with self._state:
                if not self._has_work() and not self._closing:
                    self._state.wait(timeout=_WRITER_IDLE_SECONDS)
                if not self._has_work():
                    self._writer_thread = None
                    self._state.notify_all()
                    return
                batch, self._pending = self._pending, {}
                self._in_progress = batch
                self._committing = True
                hits, misses = self._pending_hits, self._pending_misses
                self._pending_hits = self._pending_misses = 0
            try:
                self._commit(batch, hits, misses)
            except sqlite3.Error as exc:
                logger.warning("response cache: %d replies not written: %s", len(batch), exc)
            with self._state:
                self._in_progress = {}
                self._committing = False
                self._state.notify_all()

    def _has_work(self) -> bool:
        return bool(self._pending or self._pending_hits or self._pending_misses)

    def _commit(self, batch: dict[str, str], hits: int, misses: int) -> None:
        # An in-memory database exists only on its one connection, so it is shared.
        lock = self._read_lock if self._memory else contextlib.nullcontext()
        with lock:
            conn = self._write_connection()
            now = time.time()
            with conn:
                conn.execute("BEGIN IMMEDIATE")
                conn.executemany(
                    "INSERT OR REPLACE INTO responses (key, value, created_at) VALUES (?, ?, ?)",
                    [(key, text, now) for key, text in batch.items()],
                )
                for name, count in (("hits", hits), ("misses", misses)):
                    if count:
                        conn.execute(
                            "INSERT INTO counters (name, value) VALUES (?, ?)"
                            " ON CONFLICT(name) DO UPDATE SET value = value + excluded.value",
                            (name, count),
                        )

    def _write_connection(self) -> sqlite3.Connection:
        if self._memory:
            return self._read_connection()
        with self._writer_opening:
            if self._writer is None:
                self._writer = self._open()
            return self._writer

    def _size_on_disk(self) -> int:
        if self._memory:
            return 0
        return sum(os.path.getsize(p) for p in (self.path, self.path + "-wal") if os.path.exists(p))


def _parsed(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    value: dict[str, Any] = json.loads(text)
    return value


def _reason(exc: sqlite3.Error, path: str) -> str:
    if exc.sqlite_errorname == "SQLITE_READONLY":
        return "the file is read-only"
    if exc.sqlite_errorname == "SQLITE_CANTOPEN" and not os.path.exists(path):
        return f"its folder {Path(path).parent} cannot be written"
    return str(exc)
