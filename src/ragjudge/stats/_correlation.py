"""Correlation of metric values with human scores: Pearson, Spearman and Kendall
with p-values and paired bootstrap intervals computed from resample weights."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ragjudge.stats._bootstrap import FloatArray, Interval, batch_sizes, paired_arrays
from ragjudge.stats._kendall import KendallPlan, kendall_plan, weighted_kendall

CORRELATION_METHODS: tuple[str, ...] = ("pearson", "spearman", "kendall")
"""The correlation coefficients :func:`correlations` computes."""


@dataclass(frozen=True)
class Correlation:
    """One correlation coefficient between a metric and a human score.

    ``estimate`` is None when it is undefined: fewer than two pairs, or one side
    constant. ``ci`` is the paired percentile bootstrap interval; it is None when the
    estimate is, or when fewer than half of the resamples were usable (a resample that
    makes either side constant is skipped). ``resamples`` counts the usable ones.
    """

    method: str
    estimate: float | None
    ci: Interval | None
    p_value: float | None
    n: int
    resamples: int


def correlations(
    metric_values: Sequence[float] | npt.NDArray[np.floating[Any]],
    human_values: Sequence[float] | npt.NDArray[np.floating[Any]],
    *,
    n_resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict[str, Correlation]:
    """Pearson, Spearman and Kendall (tau-b) correlation of paired values, each with
    its p-value and a paired bootstrap confidence interval.

    The bootstrap resamples the pairs jointly: every resample draws sample indices
    with replacement and all three coefficients are computed on that same draw. The
    same values, settings and seed always give the same intervals. Returns a dict
    keyed by method name (see :data:`CORRELATION_METHODS`).
    """
    x, y = paired_arrays(
        metric_values,
        human_values,
        confidence=confidence,
        n_resamples=n_resamples,
        not_finite="correlations needs finite values; drop missing pairs before calling it",
    )
    n = int(x.size)
    if n < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return {m: Correlation(m, None, None, None, n, 0) for m in CORRELATION_METHODS}
    point = _point_correlations(x, y)
    replicates = _bootstrap_correlations(x, y, n_resamples=n_resamples, seed=seed)
    tail = (1 - confidence) / 2
    result: dict[str, Correlation] = {}
    for method in CORRELATION_METHODS:
        values = replicates[method]
        usable = values[np.isfinite(values)]
        ci = None
        if usable.size * 2 >= n_resamples:
            low, high = np.quantile(usable, [tail, 1 - tail])
            ci = Interval(float(low), float(high))
        estimate, p_value = point[method]
        result[method] = Correlation(method, estimate, ci, p_value, n, int(usable.size))
    return result


def _point_correlations(x: FloatArray, y: FloatArray) -> dict[str, tuple[float, float | None]]:
    """(coefficient, p-value) of each method on the full data; both sides vary."""
    from scipy import stats as scipy_stats  # scipy is slow to import; only needed here

    found = {
        "pearson": scipy_stats.pearsonr(x, y),
        "spearman": scipy_stats.spearmanr(x, y),
        "kendall": scipy_stats.kendalltau(x, y),
    }
    result: dict[str, tuple[float, float | None]] = {}
    for method, res in found.items():
        p_value = float(res.pvalue)
        result[method] = (float(res.statistic), p_value if math.isfinite(p_value) else None)
    return result


def _bootstrap_correlations(
    x: FloatArray, y: FloatArray, *, n_resamples: int, seed: int
) -> dict[str, FloatArray]:
    """Each method's coefficient on ``n_resamples`` paired resamples (NaN when a
    resample leaves one side constant), drawn in memory-bounded batches."""
    rng = np.random.default_rng(seed)
    n = x.size
    plan = kendall_plan(x, y)
    parts: dict[str, list[FloatArray]] = {m: [] for m in CORRELATION_METHODS}
    for size in batch_sizes(n_resamples, n):
        indices = rng.integers(0, n, size=(size, n))
        for method, values in _replicate_correlations(x, y, indices, plan).items():
            parts[method].append(values)
    return {m: np.concatenate(parts[m]) for m in CORRELATION_METHODS}


def _replicate_correlations(
    x: FloatArray,
    y: FloatArray,
    indices: npt.NDArray[np.int64],
    plan: KendallPlan | None = None,
) -> dict[str, FloatArray]:
    """Coefficients of the resamples ``x[indices[b]], y[indices[b]]``.

    A resample is represented by how often it draws each original pair (its weight),
    so every coefficient comes from weighted sums over the ``n`` original pairs
    instead of a loop over resamples (Kendall's from ``plan``, worked out from the
    data when not given: :mod:`ragjudge.stats._kendall`). The results equal the
    coefficients of the expanded resamples (ties get average ranks, Kendall is tau-b).
    """
    n = x.size
    rows = np.arange(indices.shape[0])[:, None]
    counts = np.bincount((indices + rows * n).ravel(), minlength=indices.size)
    w = counts.reshape(indices.shape).astype(np.float64)
    group_x, per_value_x = _value_weights(x, w)
    group_y, per_value_y = _value_weights(y, w)
    result = {
        "pearson": _weighted_pearson(w, x - x.mean(), y - y.mean()),
        "spearman": _weighted_pearson(
            w, _midranks(per_value_x)[:, group_x], _midranks(per_value_y)[:, group_y]
        ),
        "kendall": weighted_kendall(plan or kendall_plan(x, y), w),
    }
    degenerate = (np.count_nonzero(per_value_x, axis=1) < 2) | (
        np.count_nonzero(per_value_y, axis=1) < 2
    )
    for values in result.values():
        values[degenerate] = np.nan
    return result


def _value_weights(values: FloatArray, w: FloatArray) -> tuple[npt.NDArray[np.intp], FloatArray]:
    """Each value's index among the distinct values, and how often every resample
    draws each distinct value (one row per resample, distinct values ascending)."""
    unique, group = np.unique(values, return_inverse=True)
    k = unique.size
    offsets = group[None, :] + np.arange(w.shape[0])[:, None] * k
    per_value = np.bincount(offsets.ravel(), weights=w.ravel(), minlength=w.shape[0] * k)
    return group, np.asarray(per_value, dtype=np.float64).reshape(w.shape[0], k)


def _midranks(per_value: FloatArray) -> FloatArray:
    """The average rank (from 1) each distinct value takes in every resample."""
    below = np.cumsum(per_value, axis=1) - per_value
    midranks: FloatArray = below + (per_value + 1) / 2
    return midranks


def _weighted_pearson(w: FloatArray, x: FloatArray, y: FloatArray) -> FloatArray:
    """Pearson coefficient per row of weights; ``x``/``y`` are 1-d or one row per
    resample. Rows with zero variance give NaN."""
    total = w.sum(axis=1)
    mean_x = (w * x).sum(axis=1) / total
    mean_y = (w * y).sum(axis=1) / total
    dx = x - mean_x[:, None]
    dy = y - mean_y[:, None]
    cov = (w * dx * dy).sum(axis=1)
    var = (w * dx * dx).sum(axis=1) * (w * dy * dy).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        result: FloatArray = cov / np.sqrt(var)
    return result
