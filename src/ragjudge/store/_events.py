"""The ``run_events`` table: what a run should tell its reader besides its scores —
how its evaluation set was read (the format assumed, columns left unread, rows
skipped) and the judge's rate-limit events (429 answers, pauses, retries) — one row
per event, so ``show`` says what ``run`` said."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from typing import Any

__all__ = ["INCREMENTAL", "NOTE", "RATE_LIMITS", "add_event", "events"]

NOTE = "note"
"""A line about the evaluation set: ``{"text": ...}``."""
INCREMENTAL = "incremental"
"""What an incremental run continues: ``{fingerprint, continues, new_rows, skipped_rows}``
(see :mod:`ragjudge.run._incremental`)."""
RATE_LIMITS = "rate_limits"
"""One execution's rate-limit counters of one model (see :mod:`ragjudge.analysis._rate_limits`)."""


def add_event(conn: sqlite3.Connection, run_id: str, kind: str, data: dict[str, Any]) -> None:
    """Store one event of the run (the caller commits)."""
    conn.execute(
        "INSERT INTO run_events (run_id, kind, data_json, created_at) VALUES (?, ?, ?, ?)",
        (run_id, kind, json.dumps(data, ensure_ascii=False), datetime.now(UTC).isoformat()),
    )


def events(conn: sqlite3.Connection, run_id: str, kind: str) -> list[dict[str, Any]]:
    """The run's events of ``kind``, oldest first."""
    rows = conn.execute(
        "SELECT data_json FROM run_events WHERE run_id = ? AND kind = ? ORDER BY event_id",
        (run_id, kind),
    ).fetchall()
    return [json.loads(row[0]) for row in rows]
