"""The plots of a run's report, from what the summaries, ``stability`` and ``meta``
compute: each metric's distribution with its mean and interval, the means per subset,
the spread of repeated trials, and each metric against human scores."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from markupsafe import Markup

from ragjudge.meta._evaluation import MetaTable, human_score
from ragjudge.report._svg import Bar, IntervalRow, Point, bar_chart, interval_chart, scatter_chart
from ragjudge.report._text import fmt
from ragjudge.schema import ScoreMeaning
from ragjudge.stats import FLIP, MetricSummary, error_mask, metadata_column, sample_means

__all__ = [
    "Figure",
    "HumanPlots",
    "SpreadPlot",
    "distribution_figures",
    "human_plots",
    "spread_plots",
    "subset_figures",
]

_BINS = 10
_DISCRETE = 11
"""Integer-valued scores with at most this many distinct values get one bar per value."""


@dataclass(frozen=True)
class Figure:
    """One chart with its caption."""

    metric: str
    svg: Markup
    caption: str


@dataclass(frozen=True)
class SpreadPlot:
    """The spread of one metric's repeated trials: per sample, the range of its
    values; the samples with the widest ranges are listed (request id, low, high)."""

    figure: Figure
    widest: list[tuple[str, float, float]]


@dataclass(frozen=True)
class HumanPlots:
    """The meta-evaluation table and one scatter per (human score, metric)."""

    table: MetaTable
    figures: list[Figure] = field(default_factory=list)


def _valid_values(frame: pd.DataFrame, metric: str) -> pd.DataFrame:
    rows = frame[frame["metric"] == metric]
    rows = rows.loc[~error_mask(rows), ["sample_id", "trial", "value"]]
    return rows.assign(value=pd.to_numeric(rows["value"]).astype(np.float64))


def distribution_figures(
    frame: pd.DataFrame,
    summaries: Sequence[MetricSummary],
    meanings: Mapping[str, ScoreMeaning],
) -> list[Figure]:
    """One distribution per metric with a value: every result (sample × trial), the
    values the mean leaves out drawn apart, the mean and its 95% CI over them."""
    figures = []
    for summary in summaries:
        values = _valid_values(frame, summary.metric)["value"].tolist() if len(frame) else []
        if not values:
            continue
        meaning = meanings.get(summary.metric, ScoreMeaning(low=None, high=None))
        bars, marks, edges = _bars(values, meaning, set(summary.excludes))
        interval = None if summary.ci is None else (summary.ci.low, summary.ci.high)
        label = f"distribution of {summary.metric}"
        svg = bar_chart(
            bars, label=label, mean=summary.mean, interval=interval, marks=marks, edges=edges
        )
        left_out = sum(v in summary.excludes for v in values)
        caption = f"{len(values)} results" + (
            f"; {left_out} left out of the mean (grey)" if left_out else ""
        )
        if summary.mean is not None:
            caption += f"; mean {summary.mean:.3f}" + (
                "" if interval is None else f", 95% CI [{interval[0]:.3f}, {interval[1]:.3f}]"
            )
        figures.append(Figure(summary.metric, svg, caption))
    return figures


def _bars(
    values: list[float], meaning: ScoreMeaning, excluded: set[float]
) -> tuple[list[Bar], tuple[float, float], list[str]]:
    """Bars for the values, the value range (first bar centre, last bar centre) and,
    for binned values, the labels of the bins' edges."""
    distinct = sorted(set(values))
    n = len(values)
    if meaning.binary or set(distinct) <= {0.0, 1.0}:
        names = ("no (0)", "yes (1)") if meaning.binary else ("0", "1")
        counts = (values.count(0.0), values.count(1.0))
        bars = [
            Bar(name, count, f"{name}: {count} of {n}", "excluded" if v in excluded else "")
            for v, name, count in zip((0.0, 1.0), names, counts, strict=True)
        ]
        return bars, (0.0, 1.0), []
    if len(distinct) <= _DISCRETE and all(float(v).is_integer() for v in distinct):
        first, last = _discrete_range(distinct, meaning)
        bars = []
        for k in range(first, last + 1):
            count = values.count(float(k))
            kind = "excluded" if float(k) in excluded else ""
            bars.append(Bar(str(k), count, f"{k}: {count} of {n}", kind))
        return bars, (float(first), float(last)), []
    low, high = _continuous_range(values, meaning)
    width = (high - low) / _BINS
    binned = np.histogram(values, bins=_BINS, range=(low, high))[0]
    bars = [
        Bar(
            f"{low + i * width:.2g}",
            int(count),
            f"{low + i * width:.3g} – {low + (i + 1) * width:.3g}: {int(count)} of {n}",
        )
        for i, count in enumerate(binned)
    ]
    edges = [f"{low + i * width:.3g}" for i in range(_BINS + 1)]
    return bars, (low + width / 2, high - width / 2), edges


def _discrete_range(distinct: list[float], meaning: ScoreMeaning) -> tuple[int, int]:
    first, last = int(min(distinct)), int(max(distinct))
    if meaning.low is not None and float(meaning.low).is_integer():
        first = min(first, int(meaning.low))
    if meaning.high is not None and float(meaning.high).is_integer():
        last = max(last, int(meaning.high))
    if last - first + 1 > _DISCRETE:
        first, last = int(min(distinct)), int(max(distinct))
    return first, last


def _continuous_range(values: list[float], meaning: ScoreMeaning) -> tuple[float, float]:
    low = min(values) if meaning.low is None else min(meaning.low, min(values))
    high = max(values) if meaning.high is None else max(meaning.high, max(values))
    return (low - 0.5, high + 0.5) if high <= low else (low, high)


def subset_figures(
    summaries: Sequence[MetricSummary],
    subsets: Mapping[str, Sequence[MetricSummary]],
    meanings: Mapping[str, ScoreMeaning],
    by: str,
) -> list[Figure]:
    """Per metric, the overall mean and each subset's mean with its 95% CI."""
    figures = []
    for overall in summaries:
        rows = [_interval_row("all", overall)]
        for group, group_summaries in subsets.items():
            found = next((s for s in group_summaries if s.metric == overall.metric), None)
            if found is not None:
                rows.append(_interval_row(group, found))
        if all(r.mean is None for r in rows):
            continue
        low, high = _axis_range(rows, meanings.get(overall.metric))
        svg = interval_chart(rows, label=f"{overall.metric} by {by}", low=low, high=high)
        figures.append(Figure(overall.metric, svg, f"mean and 95% CI per {by}; n at the right"))
    return figures


def _interval_row(label: str, summary: MetricSummary) -> IntervalRow:
    low = None if summary.ci is None else summary.ci.low
    high = None if summary.ci is None else summary.ci.high
    return IntervalRow(label, summary.mean, low, high, f"n={summary.n}")


def _axis_range(rows: Sequence[IntervalRow], meaning: ScoreMeaning | None) -> tuple[float, float]:
    if meaning is not None and meaning.low is not None and meaning.high is not None:
        return meaning.low, meaning.high
    seen = [v for r in rows for v in (r.mean, r.low, r.high) if v is not None]
    return min(seen), max(seen)


def spread_plots(frame: pd.DataFrame, metrics: Sequence[str]) -> list[SpreadPlot]:
    """Per metric run more than once per sample: a histogram of each sample's range
    over its trials (max − min), and the samples with the widest ranges."""
    plots = []
    for metric in metrics:
        rows = _valid_values(frame, metric)
        per_sample = rows.groupby("sample_id", sort=False)["value"]
        counts = per_sample.count()
        repeated = counts[counts >= 2].index
        if repeated.empty:
            continue
        lows, highs = per_sample.min()[repeated], per_sample.max()[repeated]
        ranges = (highs - lows).to_numpy(dtype=np.float64)
        bars = _range_bars(ranges)
        flips = int((ranges >= FLIP - 1e-12).sum())
        svg = bar_chart(bars, label=f"trial spread of {metric}")
        caption = (
            f"range over trials of {len(ranges)} samples; {int((ranges == 0).sum())} "
            f"identical, {flips} span ≥ {FLIP:g}"
        )
        order = np.argsort(-ranges, kind="stable")[:5]
        widest = [
            (str(repeated[i]), float(lows.iloc[i]), float(highs.iloc[i]))
            for i in order
            if ranges[i] > 0
        ]
        plots.append(SpreadPlot(Figure(metric, svg, caption), widest))
    return plots


def _range_bars(ranges: Any) -> list[Bar]:
    n = len(ranges)
    same = int((ranges == 0).sum())
    bars = [Bar("0", same, f"identical trials: {same} of {n}")]
    top = float(ranges.max())
    if top <= 0:
        return bars
    edges = np.linspace(0, top, 9)
    moving = ranges[ranges > 0]
    counts = np.histogram(moving, bins=edges)[0]
    for i, count in enumerate(counts):
        label = f"≤{edges[i + 1]:.2g}"
        bars.append(Bar(label, int(count), f"{edges[i]:.3g} < range ≤ {edges[i + 1]:.3g}: {count}"))
    return bars


def human_plots(
    table: MetaTable,
    frame: pd.DataFrame,
    exclude: Mapping[str, Sequence[float]],
) -> HumanPlots:
    """Each metric's per-sample value (trials averaged, errors and excluded values left
    out, as ``meta`` pairs them) against each human score, with the correlations."""
    values = sample_means(frame, exclude)
    firsts = frame.drop_duplicates("sample_id").set_index("sample_id")
    figures = []
    for block in table.blocks:
        if block.group is not None:
            continue
        column = metadata_column(firsts, block.human)
        humans = {
            str(sid): score
            for sid, raw in firsts[column].items()
            if (score := human_score(raw, combine=table.combine)) is not None
        }
        for row in block.rows:
            per_sample = values.get(row.metric)
            if per_sample is None:
                continue
            points = [
                Point(humans[sid], float(v), f"{sid}: {block.human} {fmt(humans[sid])}, {fmt(v)}")
                for sid, v in per_sample.items()
                if sid in humans and math.isfinite(float(v))
            ]
            if len(points) < 2:
                continue
            svg = scatter_chart(
                points,
                label=f"{row.metric} against {block.human}",
                x_label=f"human: {block.human}",
                y_label=row.metric,
            )
            caption = f"n={row.n}; " + ", ".join(
                f"{method} {fmt(corr.estimate)}" for method, corr in row.correlations.items()
            )
            figures.append(Figure(f"{row.metric} × {block.human}", svg, caption))
    return HumanPlots(table, figures)
