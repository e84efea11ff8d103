"""How a run went, in one word, and its errors counted by cause: what ``ragjudge runs``,
the report's header, the viewer's list and :func:`ragjudge.evaluate`'s result show.

A run that ended is ``completed`` when every result arrived (or at most
``max_error_rate`` of each metric's results failed), ``incomplete`` when more of a
metric's results failed than that, and ``failed`` when a metric has no value at all
(every one of its results failed), the run has no value at all, or it stopped on an
error. ``interrupted`` (stopped by Ctrl-C or a signal; resume it) and ``running`` are
what the store says. The words follow the exit codes of ``ragjudge run``: ``incomplete``
is exit 3, ``failed`` exit 4 (see :mod:`ragjudge.analysis._outcome`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ragjudge.analysis._outcome import (
    EXIT_ERRORS,
    EXIT_NO_VALUES,
    Tally,
    Verdict,
    error_cause,
    run_verdict,
)
from ragjudge.store._store import RunInfo, RunStatus, Store

__all__ = [
    "FinishedStatus",
    "RunState",
    "errors_by_cause",
    "finished_status",
    "metric_names",
    "run_states",
    "status_of",
]

FinishedStatus = Literal["completed", "incomplete", "failed"]


def finished_status(verdict: Verdict) -> FinishedStatus:
    """The status of a run that ran to its end with this verdict."""
    if verdict.exit_code == EXIT_NO_VALUES:
        return "failed"
    if verdict.exit_code == EXIT_ERRORS:
        return "incomplete"
    return "completed"


def status_of(stored: RunStatus, tallies: Sequence[Tally], max_error_rate: float) -> RunStatus:
    """The status of a run the store marks ``stored``: a run stored as ``completed``
    (by a version that did not look at its results) is judged by its results."""
    if stored != "completed":
        return stored
    return finished_status(run_verdict(tallies, max_error_rate=max_error_rate))


@dataclass(frozen=True)
class RunState:
    """A stored run with how it went: its status and its failed results by cause."""

    info: RunInfo
    status: RunStatus
    errors: dict[str, int]
    """Failed results by cause (``judge unreachable``, ``parse error`` …), most first."""

    @property
    def error_count(self) -> int:
        """Every failed result of the run."""
        return sum(self.errors.values())

    def to_dict(self) -> dict[str, Any]:
        """The JSON form printed by ``ragjudge runs --json``."""
        info = self.info
        return {
            "run_id": info.run_id,
            "name": info.name,
            "status": self.status,
            "created_at": info.created_at,
            "finished_at": info.finished_at,
            "n_samples": info.n_samples,
            "trials": info.trials,
            "metrics": metric_names(info),
            "errors": self.error_count,
            "errors_by_cause": self.errors,
        }


def metric_names(info: RunInfo) -> list[str]:
    """The metrics named in the run's config, in order."""
    return [
        m if isinstance(m, str) else str(m.get("name") or m.get("metric"))
        for m in info.config.get("metrics", [])
    ]


def run_states(store: Store) -> list[RunState]:
    """Every run of the store with its status and errors by cause, oldest first; read
    with two queries over the whole store, whatever the number of runs."""
    tallies = store.result_counts()
    messages = store.error_messages()
    return [
        RunState(
            info=info,
            status=status_of(
                info.status, tallies.get(info.run_id, []), _max_error_rate(info.config)
            ),
            errors=errors_by_cause(messages.get(info.run_id, {})),
        )
        for info in store.runs()
    ]


def errors_by_cause(messages: Mapping[str, int]) -> dict[str, int]:
    """Failed results counted by cause, most frequent first, from each error message
    and how often it occurred."""
    counts: Counter[str] = Counter()
    for message, count in messages.items():
        counts[error_cause(message)] += count
    return dict(counts.most_common())


def _max_error_rate(config: Mapping[str, Any]) -> float:
    return float(config.get("max_error_rate") or 0.0)
