"""A stored run at a glance, for lists of runs: whether it delivered (``completed``,
``failed``, ``incomplete`` or still ``running``) and its headline means, counted by
SQLite without reading the scores (no bootstrap, no frame), so a list of many runs
opens at once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ragjudge.analysis._meanings import exclusions, run_meanings
from ragjudge.store._scores import MetricTally
from ragjudge.store._store import RunInfo, Store

__all__ = ["HEADLINES", "RunListing", "RunState", "list_runs", "run_state"]

RunState = Literal["running", "completed", "failed", "incomplete"]
"""``completed``: every score arrived (or at most ``max_error_rate`` of each metric's
results failed); ``failed``: the run stopped on an error, or a metric failed beyond
that rate or has no value at all; ``incomplete``: it was interrupted before every
sample was scored; ``running``: it is being scored."""

HEADLINES = 3
"""Metrics shown in a run's headline: the first ones the run scored."""


@dataclass(frozen=True)
class RunListing:
    """One run in a list: the stored run, its state and its metrics' tallies."""

    run: RunInfo
    state: RunState
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


def run_state(run: RunInfo, tallies: list[MetricTally]) -> RunState:
    """What a run delivered, from its stored status and its results (the rule of
    :func:`ragjudge.analysis._outcome.run_verdict`: a metric with only errors, or
    more failed results than ``max_error_rate`` allows, fails the run)."""
    if run.status == "running":
        return "running"
    if run.status == "failed":
        return "failed"
    if run.status == "interrupted":
        return "incomplete"
    allowed = float(run.config.get("max_error_rate") or 0.0)
    applied = [t for t in tallies if t.results > t.skipped]
    if not any(t.values for t in applied):
        return "failed"
    for tally in applied:
        answered = tally.results - tally.skipped
        if tally.errors and (not tally.values or tally.errors / answered > allowed):
            return "failed"
    return "completed"


def list_runs(store: Store) -> list[RunListing]:
    """Every run of ``store``, newest first, with its state and tallies."""
    listed = []
    for run in reversed(store.runs()):
        tallies = store.metric_tallies(run.run_id, exclusions(run_meanings(run)))
        listed.append(RunListing(run, run_state(run, tallies), tallies))
    return listed
