"""Reads of a run's results one page of samples at a time: the samples at a range of
positions with their outputs, scores and judge calls. What the exports and the report
of a large run read, so that none holds the whole run."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragjudge.schema import STORED_FORM, Output, Sample, Score

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PAGE_SAMPLES", "PageReads", "ResultPage"]

_VALUE_ROWS = 200_000
"""Score rows per chunk of :meth:`PageReads.score_values`."""

PAGE_SAMPLES = 2000
"""Samples read per page: a few MB of Python objects for runs of lexical metrics."""
_IDS_PER_QUERY = 500
"""Ids per query, within SQLite's bound on parameters."""

_SCORES = (
    "SELECT sc.request_id, sc.trial, sc.metric, sc.value, sc.error, sc.rationale,"
    " sc.details_json, sc.judge_call_ids_json, sc.skipped, sc.judge"
    " FROM samples sa CROSS JOIN scores sc"
    " ON sc.run_id = sa.run_id AND sc.request_id = sa.request_id"
    " WHERE sa.run_id = ? AND sa.position >= ? AND sa.position < ?"
    " ORDER BY sa.position, sc.trial, sc.rowid"
)
_OUTPUTS = (
    "SELECT o.request_id, o.output_json FROM samples sa CROSS JOIN outputs o"
    " ON o.run_id = sa.run_id AND o.request_id = sa.request_id"
    " WHERE sa.run_id = ? AND sa.position >= ? AND sa.position < ?"
)


@dataclass(frozen=True)
class ResultPage:
    """The samples of one page, in evaluation-set order, with what is stored for them."""

    samples: list[Sample]
    outputs: dict[str, Output]
    scores: list[tuple[str, int, Score]]
    """(request_id, trial, score) in sample order, as ``Store.scores`` gives them."""


class PageReads:
    """The paged reads of :class:`~ragjudge.store._store.Store` (its connection)."""

    _conn: sqlite3.Connection

    def result_pages(self, run_id: str, size: int = PAGE_SAMPLES) -> Iterator[ResultPage]:
        """The run's samples with their outputs and scores, ``size`` samples a page."""
        (last,) = self._conn.execute(
            "SELECT COALESCE(MAX(position), -1) FROM samples WHERE run_id = ?", (run_id,)
        ).fetchone()
        for start in range(0, int(last) + 1, size):
            yield self.result_page(run_id, start, size)

    def result_page(self, run_id: str, start: int, size: int) -> ResultPage:
        """The samples at positions ``start`` to ``start + size`` and their results."""
        window = (run_id, start, start + size)
        samples = [
            Sample.model_validate_json(text, context={STORED_FORM: True})
            for (text,) in self._conn.execute(
                "SELECT sample_json FROM samples WHERE run_id = ? AND position >= ?"
                " AND position < ? ORDER BY position",
                window,
            )
        ]
        outputs = {
            rid: Output.model_validate_json(text)
            for rid, text in self._conn.execute(_OUTPUTS, window)
        }
        scores = [_score_of(row) for row in self._conn.execute(_SCORES, window)]
        return ResultPage(samples, outputs, scores)

    def results_at(self, run_id: str, positions: Sequence[int]) -> ResultPage:
        """The samples at these positions (in evaluation-set order) and their results."""
        ordered = sorted(set(positions))
        pages = self._results_at(run_id, ordered) if ordered else []
        samples = [s for page in pages for s in page.samples]
        outputs = {k: v for page in pages for k, v in page.outputs.items()}
        scores = [row for page in pages for row in page.scores]
        return ResultPage(samples, outputs, scores)

    def _results_at(self, run_id: str, positions: list[int]) -> list[ResultPage]:
        """The pages of runs of consecutive ``positions`` (sorted, distinct)."""
        pages = []
        start = previous = positions[0]
        for position in [*positions[1:], None]:
            if position is not None and position == previous + 1:
                previous = position
                continue
            pages.append(self.result_page(run_id, start, previous - start + 1))
            if position is not None:
                start = previous = position
        return pages

    def sample_position(self, run_id: str, request_id: str) -> int | None:
        """The position of the run's sample ``request_id``, or None without one."""
        row = self._conn.execute(
            "SELECT position FROM samples WHERE run_id = ? AND request_id = ?",
            (run_id, request_id),
        ).fetchone()
        return None if row is None else int(row[0])

    def worst_positions(self, run_id: str, count: int) -> list[int]:
        """The positions of up to ``count`` samples that failed or scored lowest: those
        with a failed result (target or score) first, then by their lowest value."""
        rows = self._conn.execute(
            "SELECT sa.position FROM samples sa"
            " LEFT JOIN scores sc ON sc.run_id = sa.run_id AND sc.request_id = sa.request_id"
            " LEFT JOIN outputs o ON o.run_id = sa.run_id AND o.request_id = sa.request_id"
            " WHERE sa.run_id = ? GROUP BY sa.position"
            " ORDER BY MAX(sc.error IS NOT NULL OR o.error IS NOT NULL) DESC,"
            " MIN(sc.value) ASC, sa.position LIMIT ?",
            (run_id, count),
        ).fetchall()
        return [int(position) for (position,) in rows]

    def score_values(self, run_id: str) -> pd.DataFrame:
        """The applicable scores as a frame of ``sample_id`` (the sample's position),
        ``trial``, ``metric`` (categorical), ``value`` and ``error``: the columns the
        report's plots read, read in chunks and small per row at any run size."""
        import pandas as pd

        chunks = pd.read_sql_query(
            "SELECT sa.position AS sample_id, sc.trial, sc.metric, sc.value, sc.error"
            " FROM samples sa CROSS JOIN scores sc"
            " ON sc.run_id = sa.run_id AND sc.request_id = sa.request_id"
            " WHERE sa.run_id = ? AND (sc.skipped IS NULL OR sc.skipped = '')"
            " ORDER BY sa.position, sc.trial, sc.rowid",
            self._conn,
            params=(run_id,),
            chunksize=_VALUE_ROWS,
            dtype={"value": "float64"},
        )
        names = [
            str(name)
            for (name,) in self._conn.execute(
                "SELECT DISTINCT metric FROM scores WHERE run_id = ?", (run_id,)
            )
        ]
        frames = [
            chunk.assign(metric=pd.Categorical(chunk["metric"], categories=names))
            for chunk in chunks
        ]
        if not frames:
            return pd.DataFrame(columns=["sample_id", "trial", "metric", "value", "error"])
        return pd.concat(frames, ignore_index=True)

    def score_columns(self, run_id: str, *, skipped: bool = False) -> Iterator[pd.DataFrame]:
        """The applicable scores (all of them with ``skipped``) in chunks of ``sample``
        (the sample's position), ``metric``, ``value`` (NaN without one) and ``error``
        (whether the row has an error message), in stored order: what a paired
        comparison reduces, small per row at any run size."""
        import pandas as pd

        applicable = "" if skipped else " AND (sc.skipped IS NULL OR sc.skipped = '')"

        yield from pd.read_sql_query(
            "SELECT sa.position AS sample, sc.metric, sc.value,"
            " (sc.error IS NOT NULL AND sc.error != '') AS error"
            " FROM samples sa CROSS JOIN scores sc"
            " ON sc.run_id = sa.run_id AND sc.request_id = sa.request_id"
            f" WHERE sa.run_id = ?{applicable}"
            " ORDER BY sa.position, sc.trial, sc.rowid",
            self._conn,
            params=(run_id,),
            chunksize=_VALUE_ROWS,
            dtype={"sample": "int64", "value": "float64", "error": "bool"},
        )

    def request_ids(self, run_id: str) -> list[str | None]:
        """The request id of the run's sample at each position (None at a gap)."""
        (last,) = self._conn.execute(
            "SELECT COALESCE(MAX(position), -1) FROM samples WHERE run_id = ?", (run_id,)
        ).fetchone()
        ids: list[str | None] = [None] * (int(last) + 1)
        for position, request_id in self._conn.execute(
            "SELECT position, request_id FROM samples WHERE run_id = ?", (run_id,)
        ):
            ids[int(position)] = str(request_id)
        return ids

    def metadata_pages(
        self, run_id: str, size: int = PAGE_SAMPLES
    ) -> Iterator[list[tuple[int, dict[str, Any]]]]:
        """The run's samples' metadata as (position, metadata) pairs, ``size`` a page."""
        cursor = self._conn.execute(
            "SELECT position, json_extract(sample_json, '$.metadata') FROM samples"
            " WHERE run_id = ? ORDER BY position",
            (run_id,),
        )
        while page := cursor.fetchmany(size):
            yield [(int(position), json.loads(text) if text else {}) for position, text in page]

    def judge_calls_by_id(self, run_id: str, call_ids: Sequence[int]) -> pd.DataFrame:
        """The run's stored judge calls with these ids (the columns of
        ``Store.judge_calls``), in call order."""
        import pandas as pd

        ids = sorted(set(call_ids))
        frames = []
        for at in range(0, len(ids), _IDS_PER_QUERY):
            chunk = ids[at : at + _IDS_PER_QUERY]
            marks = ", ".join("?" * len(chunk))
            frames.append(
                pd.read_sql_query(
                    f"SELECT * FROM judge_calls WHERE run_id = ? AND call_id IN ({marks})"
                    " ORDER BY call_id",
                    self._conn,
                    params=(run_id, *chunk),
                )
            )
        if not frames:
            return pd.read_sql_query("SELECT * FROM judge_calls WHERE 0", self._conn)
        return pd.concat(frames, ignore_index=True)


def _score_of(row: tuple[Any, ...]) -> tuple[str, int, Score]:
    request_id, trial, metric, value, error, rationale, details, ids, skipped, judge = row
    score = Score(
        metric=metric,
        value=value,
        error=error,
        rationale=rationale,
        details=json.loads(details),
        judge_call_ids=json.loads(ids),
        skipped=skipped,
        judge=judge,
    )
    return request_id, trial, score
