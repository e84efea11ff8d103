"""Counts over every run of a store at once — results with a value and failed results
per metric, error messages by how often they occur — so a listing of the runs says how
each one went without reading any run's scores one by one."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

__all__ = ["ResultCount", "RunTallies"]


@dataclass(frozen=True)
class ResultCount:
    """One metric of one run: results with a value and failed results (results where
    the metric did not apply are not counted)."""

    metric: str
    scored: int
    errors: int


_TALLIES = (
    "SELECT run_id, metric, SUM(value IS NOT NULL), SUM(error IS NOT NULL) FROM scores"
    " WHERE skipped IS NULL OR skipped = '' GROUP BY run_id, metric ORDER BY run_id, MIN(rowid)"
)
_ERROR_MESSAGES = (
    "SELECT run_id, error, COUNT(*) FROM scores WHERE error IS NOT NULL"
    " AND (skipped IS NULL OR skipped = '') GROUP BY run_id, error"
)


class RunTallies:
    """The counts of :class:`~ragjudge.store.Store` (a part of it)."""

    _conn: sqlite3.Connection

    def result_counts(self) -> dict[str, list[ResultCount]]:
        """Every run's metrics, each with its results with a value and its failed
        results, by run id (a run without scores is absent)."""
        tallies: dict[str, list[ResultCount]] = {}
        for run_id, metric, scored, errors in self._conn.execute(_TALLIES):
            tallies.setdefault(run_id, []).append(ResultCount(metric, int(scored), int(errors)))
        return tallies

    def error_messages(self) -> dict[str, dict[str, int]]:
        """Every run's distinct error messages and how many results failed with each,
        by run id."""
        messages: dict[str, dict[str, int]] = {}
        for run_id, error, count in self._conn.execute(_ERROR_MESSAGES):
            messages.setdefault(run_id, {})[str(error)] = int(count)
        return messages
