"""A stored run at a glance, for lists of runs: its status (``completed``,
``incomplete``, ``failed``, ``interrupted`` or ``running``) and its headline means, counted by
SQLite without reading the scores (no bootstrap, no frame), so a list of many runs
opens at once."""

from __future__ import annotations

from dataclasses import dataclass

from ragjudge.analysis._meanings import exclusions, run_meanings
from ragjudge.analysis._status import status_of
from ragjudge.store._scores import MetricTally
from ragjudge.store._store import RunInfo, RunStatus, Store

__all__ = ["HEADLINES", "RunListing", "list_runs", "run_state"]

HEADLINES = 3
"""Metrics shown in a run's headline: the first ones the run scored."""


@dataclass(frozen=True)
class RunListing:
    """One run in a list: the stored run, its state and its metrics' tallies."""

    run: RunInfo
    state: RunStatus
    tallies: list[MetricTally]

    @property
    def headlines(self) -> list[MetricTally]:
        """The first :data:`HEADLINES` metrics with a value."""
        return [t for t in self.tallies if t.values][:HEADLINES]

    @property
    def errors(self) -> int:
        """Failed results over every metric."""
        return sum(t.errors for t in self.tallies)

    @property
    def metrics(self) -> list[str]:
        """Every metric's name: the run's meanings, else its tallies."""
        return list(self.run.meanings) if self.run.meanings else [t.metric for t in self.tallies]


def run_state(run: RunInfo, tallies: list[MetricTally]) -> RunStatus:
    """What a run delivered: the shared rule of :func:`ragjudge.analysis._status.status_of`
    (what ``ragjudge runs``, the report and ``evaluate()``'s result say), from the
    stored status and the results' tallies."""
    allowed = float(run.config.get("max_error_rate") or 0.0)
    applied = [t for t in tallies if t.results > t.skipped]
    return status_of(run.status, applied, allowed)


def list_runs(store: Store) -> list[RunListing]:
    """Every run of ``store``, newest first, with its state and tallies."""
    listed = []
    for run in reversed(store.runs()):
        tallies = store.metric_tallies(run.run_id, exclusions(run_meanings(run)))
        listed.append(RunListing(run, run_state(run, tallies), tallies))
    return listed
