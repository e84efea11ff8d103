"""The reads of a run's stored samples, whole or a page at a time, and of what is
stored for a page (a resumed run on Ray reads nothing else whole)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from ragjudge.schema import STORED_FORM, Output, Sample

__all__ = ["SampleReads"]

_CHUNK = 500
"""Request ids per query, within SQLite's bound on parameters."""


class SampleReads:
    """The sample reads of :class:`~ragjudge.store._store.Store` (its connection)."""

    _conn: sqlite3.Connection

    def samples(self, run_id: str) -> list[Sample]:
        """The run's samples, in the order of the evaluation set."""
        rows = self._conn.execute(
            "SELECT sample_json FROM samples WHERE run_id = ? ORDER BY position", (run_id,)
        ).fetchall()
        return [Sample.model_validate_json(r[0], context={STORED_FORM: True}) for r in rows]

    def sample_page(self, run_id: str, start: int, size: int) -> list[Sample]:
        """The run's samples at positions ``start`` to ``start + size`` (a page)."""
        rows = self._conn.execute(
            "SELECT sample_json FROM samples WHERE run_id = ? AND position >= ?"
            " AND position < ? ORDER BY position",
            (run_id, start, start + size),
        ).fetchall()
        return [Sample.model_validate_json(r[0], context={STORED_FORM: True}) for r in rows]

    def stored_for(
        self, run_id: str, request_ids: Sequence[str]
    ) -> tuple[dict[str, Output], set[tuple[str, int, str]]]:
        """The stored outputs and score keys (request_id, trial, metric) of these
        samples only (a page of a resumed run)."""
        outputs: dict[str, Output] = {}
        finished: set[tuple[str, int, str]] = set()
        for at in range(0, len(request_ids), _CHUNK):
            chunk = request_ids[at : at + _CHUNK]
            where = f"WHERE run_id = ? AND request_id IN ({', '.join('?' * len(chunk))})"
            for rid, text in self._conn.execute(
                f"SELECT request_id, output_json FROM outputs {where}", (run_id, *chunk)
            ):
                outputs[rid] = Output.model_validate_json(text)
            finished.update(
                self._conn.execute(
                    f"SELECT request_id, trial, metric FROM scores {where}", (run_id, *chunk)
                )
            )
        return outputs, finished

    def sample_metadata(self, run_id: str) -> dict[str, dict[str, Any]]:
        """Each sample's metadata by request id, read without rebuilding the samples."""
        rows = self._conn.execute(
            "SELECT request_id, json_extract(sample_json, '$.metadata') FROM samples"
            " WHERE run_id = ? ORDER BY position",
            (run_id,),
        ).fetchall()
        return {r[0]: json.loads(r[1]) if r[1] else {} for r in rows}

    def metadata_texts(self, run_id: str, key: str) -> dict[str, str | None]:
        """Each sample's metadata value under ``key`` by request id, as text (a list or
        an object as its JSON; None without the key), read by SQLite alone."""
        path = '$.metadata."' + key.replace('"', '""') + '"'
        rows = self._conn.execute(
            "SELECT request_id, json_extract(sample_json, ?) FROM samples WHERE run_id = ?",
            (path, run_id),
        ).fetchall()
        return {str(r[0]): None if r[1] is None else str(r[1]) for r in rows}
