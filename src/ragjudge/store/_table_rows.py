"""The layout of the results table (:mod:`ragjudge.store._table_sink`) and the stored
rows in that layout: Arrow schemas of its two tables, stored ``scores`` and ``outputs``
rows turned into Arrow record batches, and the store's reads those are made from.

Two long tables rather than one wide one: a wide table has a column per score, so its
schema changes with the metrics of each run, and warehouses (and Parquet datasets read
as one) want one schema for every run appended to a table. One row per sample × trial ×
score is stable and filters and groups well; the target's outputs (large text) are kept
apart so reading scores never reads responses.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ragjudge._util.known_secrets import has_secrets, mask_secrets
from ragjudge.schema import ScoreMeaning
from ragjudge.store._rows import OutputRow, ScoreRow

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "PARTITION_FIRST",
    "SCORE_COLUMNS",
    "TableRowReads",
    "output_batch",
    "output_schema",
    "score_batch",
    "score_schema",
]

PARTITION_FIRST = "run_id"
"""The first partition column of both tables: every run's rows sit in their own folder."""

SCORE_COLUMNS = (
    "run_name", "request_id", "trial", "score", "value", "passed", "error", "skipped",
    "rationale", "details", "judge", "judge_model", "written_at",
)  # fmt: skip
"""The columns of the ``scores`` table besides its partition columns."""
OUTPUT_COLUMNS = (
    "run_name", "request_id", "response", "contexts", "error", "latency", "input_tokens",
    "output_tokens", "written_at",
)  # fmt: skip
"""The columns of the ``outputs`` table besides its partition columns."""

_IDS_PER_QUERY = 500
"""Request ids per query, within SQLite's bound on parameters."""


def score_schema(partitions: Sequence[str] = ()) -> pa.Schema:
    """The ``scores`` table's schema, with these partition columns (strings) first."""
    import pyarrow as pa

    return pa.schema(
        [(name, pa.string()) for name in partitions]
        + [
            ("run_name", pa.string()),
            ("request_id", pa.string()),
            ("trial", pa.int32()),
            ("score", pa.string()),
            ("value", pa.float64()),
            ("passed", pa.bool_()),
            ("error", pa.string()),
            ("skipped", pa.string()),
            ("rationale", pa.string()),
            ("details", pa.string()),
            ("judge", pa.string()),
            ("judge_model", pa.string()),
            ("written_at", pa.timestamp("ms", tz="UTC")),
        ]
    )


def output_schema(partitions: Sequence[str] = ()) -> pa.Schema:
    """The ``outputs`` table's schema, with these partition columns (strings) first."""
    import pyarrow as pa

    return pa.schema(
        [(name, pa.string()) for name in partitions]
        + [
            ("run_name", pa.string()),
            ("request_id", pa.string()),
            ("response", pa.string()),
            ("contexts", pa.string()),
            ("error", pa.string()),
            ("latency", pa.float64()),
            ("input_tokens", pa.int64()),
            ("output_tokens", pa.int64()),
            ("written_at", pa.timestamp("ms", tz="UTC")),
        ]
    )


def _masked(text: str | None) -> str | None:
    return text if text is None or not has_secrets() else mask_secrets(text)


def _time(text: str, seen: dict[str, datetime]) -> datetime:
    """A stored time stamp; the rows of one batch share a few, parsed once each."""
    if text not in seen:
        seen[text] = datetime.fromisoformat(text)
    return seen[text]


def score_batch(
    rows: Sequence[ScoreRow],
    run_name: str | None,
    meanings: Mapping[str, ScoreMeaning],
    judge_models: Mapping[str | None, str],
    partitions: Mapping[str, Sequence[str | None]] | None = None,
) -> pa.RecordBatch:
    """Stored ``scores`` rows as a record batch of the ``scores`` table; ``partitions``
    gives each partition column's value per row (none: the batch has no partition
    columns). ``judge_model`` is filled for scores that made judge calls."""
    import pyarrow as pa

    times: dict[str, datetime] = {}
    columns: dict[str, list[Any]] = {name: [] for name in SCORE_COLUMNS}
    for _, rid, trial, score, value, error, rationale, details, calls, at, skipped, judge in rows:
        meaning = meanings.get(score)
        columns["run_name"].append(run_name)
        columns["request_id"].append(rid)
        columns["trial"].append(trial)
        columns["score"].append(score)
        columns["value"].append(value)
        columns["passed"].append(None if meaning is None else meaning.passed(value))
        columns["error"].append(_masked(error))
        columns["skipped"].append(skipped)
        columns["rationale"].append(_masked(rationale))
        columns["details"].append(_masked(details) if details != "{}" else None)
        columns["judge"].append(judge)
        columns["judge_model"].append(judge_models.get(judge) if calls != "[]" else None)
        columns["written_at"].append(_time(at, times))
    partitions = partitions or {}
    data = {**partitions, **columns}
    return pa.RecordBatch.from_pydict(data, schema=score_schema(list(partitions)))


def output_batch(
    rows: Sequence[OutputRow],
    run_name: str | None,
    partitions: Mapping[str, Sequence[str | None]] | None = None,
) -> pa.RecordBatch:
    """Stored ``outputs`` rows as a record batch of the ``outputs`` table (the response
    and the retrieved contexts, as JSON text, read from the stored output)."""
    import pyarrow as pa

    times: dict[str, datetime] = {}
    columns: dict[str, list[Any]] = {name: [] for name in OUTPUT_COLUMNS}
    for _, rid, output_json, error, latency, tokens_in, tokens_out, at in rows:
        output = json.loads(output_json)
        contexts = output.get("retrieved_contexts")
        columns["run_name"].append(run_name)
        columns["request_id"].append(rid)
        columns["response"].append(_masked(output.get("response")))
        columns["contexts"].append(
            None if contexts is None else _masked(json.dumps(contexts, ensure_ascii=False))
        )
        columns["error"].append(_masked(error))
        columns["latency"].append(latency)
        columns["input_tokens"].append(tokens_in)
        columns["output_tokens"].append(tokens_out)
        columns["written_at"].append(_time(at, times))
    partitions = partitions or {}
    data = {**partitions, **columns}
    return pa.RecordBatch.from_pydict(data, schema=output_schema(list(partitions)))


class TableRowReads:
    """The reads of :class:`~ragjudge.store._store.Store` (its connection) that the
    results table is written from: stored rows a page at a time, their count, and the
    metadata values that partition them."""

    _conn: sqlite3.Connection

    def score_row_pages(self, run_id: str, page_rows: int) -> Iterator[list[ScoreRow]]:
        """The run's stored ``scores`` rows, ``page_rows`` at a time, in stored order."""
        yield from self._pages(
            "SELECT * FROM scores WHERE run_id = ? ORDER BY rowid", run_id, page_rows
        )

    def output_row_pages(self, run_id: str, page_rows: int) -> Iterator[list[OutputRow]]:
        """The run's stored ``outputs`` rows, ``page_rows`` at a time, in stored order."""
        yield from self._pages(
            "SELECT * FROM outputs WHERE run_id = ? ORDER BY rowid", run_id, page_rows
        )

    def stored_result_counts(self, run_id: str) -> tuple[int, int]:
        """How many ``scores`` and ``outputs`` rows the run has."""
        scores = self._conn.execute("SELECT COUNT(*) FROM scores WHERE run_id = ?", (run_id,))
        outputs = self._conn.execute("SELECT COUNT(*) FROM outputs WHERE run_id = ?", (run_id,))
        return int(scores.fetchone()[0]), int(outputs.fetchone()[0])

    def metadata_values(
        self, run_id: str, request_ids: Sequence[str], keys: Sequence[str]
    ) -> dict[str, tuple[str | None, ...]]:
        """Each sample's values of these metadata keys, as text (None when absent)."""
        picks = ", ".join(f"json_extract(sample_json, '$.metadata.{key}')" for key in keys)
        found: dict[str, tuple[str | None, ...]] = {}
        unique = list(dict.fromkeys(request_ids))
        for at in range(0, len(unique), _IDS_PER_QUERY):
            chunk = unique[at : at + _IDS_PER_QUERY]
            for rid, *values in self._conn.execute(
                f"SELECT request_id, {picks} FROM samples WHERE run_id = ?"
                f" AND request_id IN ({', '.join('?' * len(chunk))})",
                (run_id, *chunk),
            ):
                found[rid] = tuple(None if v is None else str(v) for v in values)
        return found

    def _pages(self, query: str, run_id: str, page_rows: int) -> Iterator[list[Any]]:
        cursor = self._conn.execute(query, (run_id,))
        try:
            while rows := cursor.fetchmany(page_rows):
                yield rows
        finally:
            cursor.close()
