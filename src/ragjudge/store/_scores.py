"""Reads of a run's applicable scores as numeric columns, a page at a time: what the
run summary is computed from, without a Python object or a frame row per score.
numpy is loaded when a page is read, not with the module (the store imports it)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["PAGE_ROWS", "MetricTally", "ScoreColumnReads", "ScorePage"]

_IDS_PER_QUERY = 500
"""Request ids per query, within SQLite's bound on parameters."""

PAGE_ROWS = 8192
"""Score rows read per page: about 1 MB of Python tuples while a page is converted."""

# Samples in the order of the evaluation set, each sample's scores by trial; within a
# sample and trial the metrics come in key order, so ``rowid`` is read as well: it is
# what orders metrics first seen on the same sample and trial (see ScorePage.rowid).
_APPLICABLE = (
    " FROM samples sa CROSS JOIN scores sc"
    " ON sc.run_id = sa.run_id AND sc.request_id = sa.request_id"
    " WHERE sa.run_id = ? AND (sc.skipped IS NULL OR sc.skipped = '')"
)
_PAGES = (
    "SELECT sa.position, sc.trial, sc.metric, sc.value,"
    " CASE WHEN sc.error IS NULL THEN 0 WHEN sc.error = '' THEN 1 ELSE 2 END, sc.rowid"
    + _APPLICABLE
    + " ORDER BY sa.position, sc.trial"
)
_ERRORS = (
    "SELECT sc.metric, sc.error" + _APPLICABLE + " AND sc.error IS NOT NULL"
    " ORDER BY sa.position, sc.trial"
)
_METADATA = (
    "SELECT sa.position, json_extract(sa.sample_json, '$.metadata'), EXISTS (SELECT 1 FROM scores sc"
    " WHERE sc.run_id = sa.run_id AND sc.request_id = sa.request_id"
    " AND (sc.skipped IS NULL OR sc.skipped = '')) FROM samples sa WHERE sa.run_id = ?"
    " ORDER BY sa.position"
)


@dataclass(frozen=True)
class ScorePage:
    """One page of a run's applicable scores (skipped ones are not read), in sample
    order then trial order: equally long columns."""

    sample: npt.NDArray[np.int64]
    """The sample's position in the evaluation set."""
    trial: npt.NDArray[np.int64]
    metric: npt.NDArray[np.int64]
    """Index of the score's name in the ``names`` list the pages were read with."""
    value: npt.NDArray[np.float64]
    """NaN where the score has no value."""
    failed: npt.NDArray[np.bool_]
    """The score has an error message (an empty one does not count)."""
    noted: npt.NDArray[np.bool_]
    """The score has an error, even an empty one (what errors are grouped from)."""
    rowid: npt.NDArray[np.int64]
    """Where the score was stored: the order of scores of one sample and trial."""

    def __len__(self) -> int:
        return int(self.sample.size)


_TALLIES = (
    "SELECT metric, COUNT(*),"
    " SUM(skipped IS NOT NULL AND skipped <> ''),"
    " SUM((skipped IS NULL OR skipped = '') AND error IS NOT NULL AND error <> ''),"
    " SUM((skipped IS NULL OR skipped = '') AND value IS NOT NULL),"
    " TOTAL(CASE WHEN skipped IS NULL OR skipped = '' THEN value END)"
    " FROM scores WHERE run_id = ? GROUP BY metric ORDER BY MIN(rowid)"
)


@dataclass(frozen=True)
class MetricTally:
    """One metric's results in a run, counted by SQLite without reading them: how many
    were stored, not applicable, failed, and the values (those a mean leaves out not
    counted) with their sum."""

    metric: str
    results: int
    skipped: int
    errors: int
    values: int
    total: float

    @property
    def scored(self) -> int:
        """Results with a value, left out of the mean or not (what a run's status
        counts, as :class:`~ragjudge.store.ResultCount` does)."""
        return self.results - self.skipped - self.errors

    @property
    def mean(self) -> float | None:
        """The mean over results (trials not averaged per sample first); None without
        a value."""
        return self.total / self.values if self.values else None


class ScoreColumnReads:
    """The score-column reads of :class:`~ragjudge.store._store.Store` (its connection)."""

    _conn: sqlite3.Connection

    def score_pages(
        self, run_id: str, names: list[str], *, page_rows: int | None = None
    ) -> Iterator[ScorePage]:
        """The run's applicable scores a page of ``page_rows`` (default
        :data:`PAGE_ROWS`) at a time. ``names`` is filled with each score name as it is
        first read; pages refer to it by index."""
        index = {name: i for i, name in enumerate(names)}
        cursor = self._conn.execute(_PAGES, (run_id,))
        try:
            while rows := cursor.fetchmany(page_rows or PAGE_ROWS):
                yield _page(rows, index, names)
        finally:
            cursor.close()

    def scores_of_samples(
        self, run_id: str, request_ids: Sequence[str]
    ) -> list[tuple[str, int, str, float | None, str | None]]:
        """(request_id, trial, score name, value, error) of every applicable score of
        these samples only (a few anchors of a large run)."""
        found: list[tuple[str, int, str, float | None, str | None]] = []
        for at in range(0, len(request_ids), _IDS_PER_QUERY):
            chunk = request_ids[at : at + _IDS_PER_QUERY]
            found += self._conn.execute(
                "SELECT request_id, trial, metric, value, error FROM scores WHERE run_id = ?"
                f" AND request_id IN ({', '.join('?' * len(chunk))})"
                " AND (skipped IS NULL OR skipped = '') ORDER BY trial, rowid",
                (run_id, *chunk),
            ).fetchall()
        return found

    def score_errors(self, run_id: str) -> Iterator[tuple[str, str]]:
        """(metric, error message) of each applicable score with an error, in sample
        then trial order."""
        cursor = self._conn.execute(_ERRORS, (run_id,))
        try:
            yield from cursor
        finally:
            cursor.close()

    def metric_tallies(
        self, run_id: str, exclude: Mapping[str, Sequence[float]] | None = None
    ) -> list[MetricTally]:
        """Each metric's :class:`MetricTally` in the order the metrics were first
        stored; values in ``exclude[metric]`` are left out of its values and sum."""
        tallies = []
        for metric, results, skipped, errors, values, total in self._conn.execute(
            _TALLIES, (run_id,)
        ).fetchall():
            left_out, left_out_sum = self._left_out(run_id, metric, (exclude or {}).get(metric))
            tallies.append(
                MetricTally(
                    str(metric),
                    int(results),
                    int(skipped or 0),
                    int(errors or 0),
                    int(values or 0) - left_out,
                    float(total or 0.0) - left_out_sum,
                )
            )
        return tallies

    def _left_out(
        self, run_id: str, metric: str, values: Sequence[float] | None
    ) -> tuple[int, float]:
        if not values:
            return 0, 0.0
        marks = ", ".join("?" * len(values))
        count, total = self._conn.execute(
            "SELECT COUNT(*), TOTAL(value) FROM scores WHERE run_id = ? AND metric = ?"
            f" AND (skipped IS NULL OR skipped = '') AND value IN ({marks})",
            (run_id, metric, *values),
        ).fetchone()
        return int(count), float(total)

    def scored_metadata(self, run_id: str) -> Iterator[tuple[int, dict[str, Any], bool]]:
        """(position, metadata, whether it has an applicable score) of each sample, in
        the order of the evaluation set."""
        cursor = self._conn.execute(_METADATA, (run_id,))
        try:
            for position, text, scored in cursor:
                yield int(position), json.loads(text) if text else {}, bool(scored)
        finally:
            cursor.close()


def _page(rows: list[Any], index: dict[str, int], names: list[str]) -> ScorePage:
    import numpy as np  # loaded by the summary, not with the store (``runs`` lists without it)

    samples, trials, metrics, values, errors, rowids = zip(*rows, strict=True)
    error_state = np.array(errors, dtype=np.int8)  # 0 none, 1 empty, 2 a message
    for name in metrics:
        if name not in index:
            index[name] = len(names)
            names.append(name)
    return ScorePage(
        sample=np.array(samples, dtype=np.int64),
        trial=np.array(trials, dtype=np.int64),
        metric=np.array([index[name] for name in metrics], dtype=np.int64),
        value=np.array(values, dtype=np.float64),
        failed=error_state == 2,
        noted=error_state > 0,
        rowid=np.array(rowids, dtype=np.int64),
    )
