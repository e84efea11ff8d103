"""The ``judge_batches`` table: every batch a run sent to a provider's batch API and
the calls in it (by ``custom_id``), written under an intent mark before the batch is
created and under its id the moment it is, so a run that is stopped and resumed waits
for its batches (or finds the one created for an intent) instead of sending (and paying
for) them again."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from ragjudge.models._batch_intents import INTENT_PREFIX
from ragjudge.store._file import transaction

__all__ = ["RunBatches", "SubmittedBatches"]


class SubmittedBatches:
    """The batch writes and reads of :class:`~ragjudge.store._store.Store`."""

    path: Path
    _conn: sqlite3.Connection

    def record_batch(self, run_id: str, batch_id: str, custom_ids: Sequence[str]) -> None:
        """Keep that run ``run_id`` sent the calls ``custom_ids`` in batch ``batch_id``
        (a call sent again, after its batch ended without it, points to the new one)."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        rows = [(run_id, custom_id, batch_id, now) for custom_id in custom_ids]
        with transaction(self._conn, self.path) as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO judge_batches (run_id, custom_id, batch_id, created_at)"
                " VALUES (?, ?, ?, ?)",
                rows,
            )

    def submitted_batch(self, run_id: str, custom_id: str) -> str | None:
        """The batch run ``run_id`` sent the call ``custom_id`` in, if any."""
        row = self._conn.execute(
            "SELECT batch_id FROM judge_batches WHERE run_id = ? AND custom_id = ?",
            (run_id, custom_id),
        ).fetchone()
        return None if row is None else str(row[0])

    def calls_in_batch(self, run_id: str, batch_id: str) -> list[str]:
        """The calls run ``run_id`` keeps under ``batch_id`` (a batch id or an intent mark)."""
        rows = self._conn.execute(
            "SELECT custom_id FROM judge_batches WHERE run_id = ? AND batch_id = ?"
            " ORDER BY custom_id",
            (run_id, batch_id),
        ).fetchall()
        return [str(row[0]) for row in rows]

    def run_batches(self, run_id: str) -> dict[str, int]:
        """The batches run ``run_id`` sent, each with its count of calls (calls kept
        under an intent whose batch was never found are not in it)."""
        rows = self._conn.execute(
            "SELECT batch_id, COUNT(*) FROM judge_batches WHERE run_id = ?"
            f" AND batch_id NOT LIKE '{INTENT_PREFIX}%' GROUP BY batch_id"
            " ORDER BY MIN(created_at), batch_id",
            (run_id,),
        ).fetchall()
        return {str(batch_id): int(count) for batch_id, count in rows}

    def batch_ledger(self, run_id: str) -> RunBatches:
        """The batches of run ``run_id`` as a judge's batch ledger."""
        return RunBatches(self, run_id)


class RunBatches:
    """One run's batches in the store, as the judge layer's batch ledger
    (:class:`~ragjudge.models._batching.BatchLedger`)."""

    def __init__(self, store: SubmittedBatches, run_id: str) -> None:
        self.store = store
        self.run_id = run_id

    def submitted_batch(self, custom_id: str) -> str | None:
        """The batch the call ``custom_id`` was sent in, if any."""
        return self.store.submitted_batch(self.run_id, custom_id)

    def record_batch(self, batch_id: str, custom_ids: Sequence[str]) -> None:
        """Keep the calls of a new batch (or of a batch about to be created)."""
        self.store.record_batch(self.run_id, batch_id, custom_ids)

    def calls_in(self, batch_id: str) -> list[str]:
        """The calls kept under ``batch_id``."""
        return self.store.calls_in_batch(self.run_id, batch_id)

    def batch_ids(self) -> set[str]:
        """The run's batch ids (not intent marks)."""
        return set(self.store.run_batches(self.run_id))
