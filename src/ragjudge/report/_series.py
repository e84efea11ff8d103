"""The run page's series charts: when the run is an incremental run continuing earlier
ones of its config, each score's mean and 95% CI over those runs, oldest first."""

from __future__ import annotations

from collections.abc import Mapping

from ragjudge.analysis._series import RunSeries, series_of_run
from ragjudge.report._plots import Figure
from ragjudge.report._svg import IntervalRow, interval_chart
from ragjudge.schema import ScoreMeaning
from ragjudge.store._store import RunInfo, Store

__all__ = ["series_figures"]


def series_figures(
    store: Store, run: RunInfo, meanings: Mapping[str, ScoreMeaning]
) -> list[Figure]:
    """One chart per score of the run's series (none when it belongs to no series)."""
    return [_figure(series, meanings.get(series.metric)) for series in series_of_run(store, run)]


def _figure(series: RunSeries, meaning: ScoreMeaning | None) -> Figure:
    rows = [
        IntervalRow(
            p.created_at[:10] + " " + p.run_id[-6:], p.mean, p.low, p.high, f"n={p.new_rows}"
        )
        for p in series.points
    ]
    low, high = _range(rows, meaning)
    svg = interval_chart(rows, label=f"{series.metric} over time", low=low, high=high)
    return Figure(series.metric, svg, "mean and 95% CI of each run's new rows; n at the right")


def _range(rows: list[IntervalRow], meaning: ScoreMeaning | None) -> tuple[float, float]:
    if meaning is not None and meaning.low is not None and meaning.high is not None:
        return meaning.low, meaning.high
    values = [v for r in rows for v in (r.mean, r.low, r.high) if v is not None] or [0.0, 1.0]
    low, high = min(values), max(values)
    return (low, high) if high > low else (low - 0.5, high + 0.5)
