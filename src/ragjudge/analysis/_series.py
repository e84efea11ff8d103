"""A run series: one metric over time across the incremental runs of one config (the
same :func:`~ragjudge.config._fingerprint.config_fingerprint`), each run holding the
rows that were new that day — what ``ragjudge series`` lists and the report draws."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ragjudge.analysis._results import summarize_run
from ragjudge.config._fingerprint import config_fingerprint
from ragjudge.errors import AnalysisError
from ragjudge.stats import MetricSummary
from ragjudge.store._events import INCREMENTAL
from ragjudge.store._store import RunInfo, Store

__all__ = ["RunSeries", "SeriesPoint", "run_series", "series_of_run", "series_step"]


@dataclass(frozen=True)
class SeriesPoint:
    """One incremental run of a series: when it ran, how many new rows it scored, and
    the metric's mean over them with its 95% confidence interval."""

    run_id: str
    created_at: str
    name: str | None
    new_rows: int
    mean: float | None
    low: float | None
    high: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "created_at": self.created_at,
            "name": self.name,
            "new_rows": self.new_rows,
            "mean": self.mean,
            "ci_low": self.low,
            "ci_high": self.high,
        }


@dataclass(frozen=True)
class RunSeries:
    """The incremental runs of one config, oldest first, for one metric."""

    fingerprint: str
    metric: str
    metrics: list[str]
    """Every metric the series' runs scored (``metric`` is one of them)."""
    points: list[SeriesPoint]

    def to_dict(self) -> dict[str, Any]:
        return {
            "fingerprint": self.fingerprint,
            "metric": self.metric,
            "metrics": self.metrics,
            "runs": [point.to_dict() for point in self.points],
        }


def run_series(store: Store, *, name: str | None = None, metric: str | None = None) -> RunSeries:
    """The series of the latest incremental run (of the latest one named ``name`` when
    given) for ``metric`` (default: the first metric that run scored);
    :class:`~ragjudge.errors.AnalysisError` when there is none."""
    incremental = [run for run in store.runs() if store.run_events(run.run_id, INCREMENTAL)]
    if name is not None:
        incremental = [run for run in incremental if run.name == name]
    if not incremental:
        named = f" named {name!r}" if name is not None else ""
        raise AnalysisError(
            f"no incremental run{named} in {store.path}: a series is made by runs "
            "started with --incremental (incremental: true)"
        )
    return _series(store, incremental, incremental[-1], metric)


def series_of_run(store: Store, run: RunInfo) -> list[RunSeries]:
    """Every metric's series up to ``run`` when ``run`` is an incremental run with
    earlier runs of its config (each member summarised once); empty otherwise."""
    if not store.run_events(run.run_id, INCREMENTAL):
        return []
    incremental = [r for r in store.runs() if store.run_events(r.run_id, INCREMENTAL)]
    fingerprint, members, metrics = _members(incremental, run)
    if len(members) < 2:
        return []
    summaries = [_summaries(store, member) for member in members]
    return [
        RunSeries(
            fingerprint,
            metric,
            metrics,
            [_point(m, s.get(metric)) for m, s in zip(members, summaries, strict=True)],
        )
        for metric in metrics
    ]


def series_step(store: Store, run: RunInfo) -> int:
    """How many earlier runs of its series ``run`` follows (0 for a run of no series):
    the step MLflow draws its metrics at, so a series reads over time there too."""
    if not store.run_events(run.run_id, INCREMENTAL):
        return 0
    incremental = [r for r in store.runs() if store.run_events(r.run_id, INCREMENTAL)]
    return len(_members(incremental, run)[1]) - 1


def _members(incremental: list[RunInfo], last: RunInfo) -> tuple[str, list[RunInfo], list[str]]:
    """The fingerprint of ``last``, its series' runs up to it and their metrics."""
    fingerprint = config_fingerprint(last.config)
    # the store's order (runs started in the same second too), up to ``last``
    ids = [run.run_id for run in incremental]
    upto = incremental[: ids.index(last.run_id) + 1] if last.run_id in ids else incremental
    members = [run for run in upto if config_fingerprint(run.config) == fingerprint]
    metrics = list(dict.fromkeys(m for run in members for m in (run.meanings or {})))
    return fingerprint, members, metrics


def _series(
    store: Store, incremental: list[RunInfo], last: RunInfo, metric: str | None
) -> RunSeries:
    fingerprint, members, metrics = _members(incremental, last)
    chosen = _chosen_metric(metric, metrics)
    points = [_point(run, _summaries(store, run).get(chosen)) for run in members]
    return RunSeries(fingerprint, chosen, metrics, points)


def _chosen_metric(metric: str | None, metrics: list[str]) -> str:
    if metric is None:
        if not metrics:
            raise AnalysisError("the series' runs scored no metric")
        return metrics[0]
    if metric not in metrics:
        raise AnalysisError(
            f"--metric {metric!r}: the series' runs scored no such metric; "
            f"they scored {', '.join(metrics) or 'none'}"
        )
    return metric


def _summaries(store: Store, run: RunInfo) -> dict[str, MetricSummary]:
    return {s.metric: s for s in summarize_run(store, run.run_id).summaries}


def _point(run: RunInfo, summary: MetricSummary | None) -> SeriesPoint:
    ci = None if summary is None else summary.ci
    return SeriesPoint(
        run_id=run.run_id,
        created_at=run.created_at,
        name=run.name,
        new_rows=run.n_samples,
        mean=None if summary is None else summary.mean,
        low=None if ci is None else ci.low,
        high=None if ci is None else ci.high,
    )
