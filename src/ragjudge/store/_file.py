"""The store's SQLite file: its schema, and opening it safely — never a folder, never
another program's database, an older ragjudge store brought up to the current schema
(and its runs given the meanings of their scores, once; scores an older version stored
under names since changed renamed, :mod:`ragjudge.store._renames`). Every text the store writes
has the known secrets masked (:class:`MaskingConnection`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ragjudge._util.known_secrets import has_secrets, holds_secrets, mask_secrets_in_json
from ragjudge.errors import StoreError as StoreError
from ragjudge.store._renames import rename_old_scores

__all__ = ["APPLICATION_ID", "StoreError", "open_store_file", "store_error"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    name TEXT,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    finished_at TEXT,
    config_json TEXT NOT NULL,
    versions_json TEXT NOT NULL,
    n_samples INTEGER NOT NULL,
    trials INTEGER NOT NULL,
    meanings_json TEXT
);
CREATE TABLE IF NOT EXISTS samples (
    run_id TEXT NOT NULL REFERENCES runs(run_id),
    position INTEGER NOT NULL,
    request_id TEXT NOT NULL,
    sample_json TEXT NOT NULL,
    PRIMARY KEY (run_id, request_id)
);
CREATE TABLE IF NOT EXISTS outputs (
    run_id TEXT NOT NULL REFERENCES runs(run_id),
    request_id TEXT NOT NULL,
    output_json TEXT NOT NULL,
    error TEXT,
    latency REAL,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    PRIMARY KEY (run_id, request_id)
);
CREATE TABLE IF NOT EXISTS scores (
    run_id TEXT NOT NULL REFERENCES runs(run_id),
    request_id TEXT NOT NULL,
    trial INTEGER NOT NULL,
    metric TEXT NOT NULL,
    value REAL,
    error TEXT,
    rationale TEXT,
    details_json TEXT NOT NULL,
    judge_call_ids_json TEXT NOT NULL,
    created_at TEXT NOT NULL,
    skipped TEXT,
    judge TEXT,
    PRIMARY KEY (run_id, request_id, trial, metric)
);
CREATE TABLE IF NOT EXISTS judge_calls (
    call_id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    purpose TEXT,
    trial INTEGER NOT NULL,
    messages_json TEXT NOT NULL,
    config_json TEXT NOT NULL,
    text TEXT,
    parsed_json TEXT,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    latency REAL NOT NULL,
    attempts INTEGER NOT NULL,
    cached INTEGER NOT NULL,
    error TEXT,
    cost REAL,
    created_at TEXT NOT NULL,
    judge TEXT
);
CREATE INDEX IF NOT EXISTS judge_calls_run ON judge_calls(run_id);
CREATE INDEX IF NOT EXISTS samples_position ON samples(run_id, position);
CREATE TABLE IF NOT EXISTS judge_batches (
    run_id TEXT NOT NULL,
    custom_id TEXT NOT NULL,
    batch_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (run_id, custom_id)
);
CREATE TABLE IF NOT EXISTS run_events (
    event_id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    data_json TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS labels (
    run_id TEXT NOT NULL,
    request_id TEXT NOT NULL,
    metric TEXT NOT NULL,
    annotator TEXT NOT NULL,
    kind TEXT NOT NULL,
    value_json TEXT NOT NULL,
    comment TEXT,
    drawn TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (run_id, request_id, metric, annotator)
);
CREATE TABLE IF NOT EXISTS testset_generations (
    generation_id TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL UNIQUE,
    settings_json TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS testset_candidates (
    generation_id TEXT NOT NULL,
    candidate TEXT NOT NULL,
    kind TEXT NOT NULL,
    position INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    record_json TEXT NOT NULL,
    calls INTEGER NOT NULL,
    cost REAL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (generation_id, candidate)
);
CREATE TABLE IF NOT EXISTS store_marks (
    name TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
"""


APPLICATION_ID = 0x726A6467
"""Written into the header of every store (SQLite's ``application_id``, "rjdg"), so a
ragjudge store is told from another program's SQLite file before anything is written."""

_RUN_COLUMNS = frozenset({"run_id", "status", "created_at", "config_json", "versions_json"})
"""Columns of ragjudge's ``runs`` table since the first version: how a store written
before stores were marked is recognised."""


def open_store_file(path: Path, *, write: bool = False) -> sqlite3.Connection:
    """A connection to the store at ``path``, created when missing; :class:`StoreError`
    when the path cannot be one: a folder, another program's database, a file or folder
    that cannot be written. With ``write`` the file is checked to take writes at once
    (a run stores its results there), before anything else is done."""
    if path.is_dir():
        raise StoreError(f"the store {path} is a folder; a store is a SQLite file")
    _make_folder(path)
    try:
        conn = sqlite3.connect(
            path, timeout=30.0, check_same_thread=False, factory=MaskingConnection
        )
    except sqlite3.Error as exc:
        raise store_error(path, exc) from None
    try:
        fresh = _check_ours(conn, path)
        if write or fresh:
            # the first write: a read-only file fails here, and an older store is marked
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.executescript(_SCHEMA)
        _add_missing_columns(conn)
        rename_old_scores(conn)
    except sqlite3.Error as exc:
        conn.close()
        raise store_error(path, exc) from None
    except StoreError:
        conn.close()
        raise
    return conn


def store_error(path: Path, exc: sqlite3.Error) -> StoreError:
    """What a failed open or write of the store at ``path`` means, in words."""
    name = exc.sqlite_errorname
    if name == "SQLITE_READONLY":
        return StoreError(f"cannot write the store {path}: the file is read-only")
    if name == "SQLITE_CANTOPEN" and not path.exists():
        return StoreError(
            f"cannot write the store {path}: its folder {path.parent} cannot be written"
        )
    if "not a database" in str(exc):
        return StoreError(f"cannot open the store {path}: it is not a SQLite database")
    return StoreError(f"cannot use the store {path}: {exc}")


@contextmanager
def transaction(conn: sqlite3.Connection, path: Path) -> Iterator[sqlite3.Connection]:
    """``conn`` in one transaction; a write the file refuses (read-only, full, locked
    past the timeout) is a :class:`StoreError` naming the store at ``path``."""
    try:
        with conn:
            yield conn
    except sqlite3.OperationalError as exc:
        raise store_error(path, exc) from None


def _make_folder(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        file = next((p for p in path.parents if p.is_file()), None)
        reason = f"{file} is a file, not a folder" if file else exc.strerror or str(exc)
        raise StoreError(f"cannot create the store {path}: {reason}") from None


def _check_ours(conn: sqlite3.Connection, path: Path) -> bool:
    """Whether the file is new (empty); :class:`StoreError` when it is another
    program's database. Nothing is written."""
    marked = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if marked == APPLICATION_ID:
        return False
    if marked == 0 and not tables:
        return True
    runs = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
    if marked == 0 and runs >= _RUN_COLUMNS:
        return False  # a store written before stores were marked
    if marked != 0:
        why = f"its application id is {marked:#x}"
    elif "runs" in tables:
        why = "its runs table is not ragjudge's"
    else:
        why = ", ".join(sorted(tables)[:5])
    raise StoreError(f"the store {path} is another program's database ({why})")


class MaskingConnection(sqlite3.Connection):
    """The store's connection: the text bound to every ``INSERT`` and ``UPDATE`` has
    the secrets the process knows masked (:mod:`ragjudge._util.known_secrets`), so no
    writer of the store can keep one — outputs, errors, traces, judge calls, the run
    record, run events alike. A JSON document stays one."""

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        if _writes(sql):
            parameters = _masked(parameters)
        return super().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> sqlite3.Cursor:
        if _writes(sql):
            parameters = (_masked(row) for row in parameters)
        return super().executemany(sql, parameters)


def _writes(sql: str) -> bool:
    return has_secrets() and sql.lstrip()[:6].upper() in ("INSERT", "UPDATE")


def _masked(parameters: Any) -> Any:
    values = parameters.values() if isinstance(parameters, Mapping) else parameters
    # one search over the row's texts: most rows hold no secret
    if not holds_secrets("\0".join(v for v in values if isinstance(v, str))):
        return parameters
    if isinstance(parameters, Mapping):
        return {name: _masked_value(value) for name, value in parameters.items()}
    return tuple(_masked_value(value) for value in parameters)


def _masked_value(value: Any) -> Any:
    return mask_secrets_in_json(value) if isinstance(value, str) else value


def _add_missing_columns(conn: sqlite3.Connection) -> None:
    """Bring a store written by an older version up to the current schema."""
    for table, column in (
        ("runs", "meanings_json"),
        ("scores", "skipped"),
        ("scores", "judge"),
        ("judge_calls", "judge"),
    ):
        columns = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        if column not in columns:
            with conn:
                conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} TEXT")
