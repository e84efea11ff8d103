"""Aggregate scores: means, bootstrap confidence intervals, per-subset breakdowns and
trial reproducibility.

The unit of analysis is the sample. When a metric ran several trials per sample, each
sample's trials are averaged first and the interval is bootstrapped over samples, so
repeating a judge call never narrows the interval by itself. Everything random is
seeded: the same data always gives the same interval.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

NO_GROUP = "(none)"
"""Group name for rows whose subset key is missing."""

_REQUIRED_COLUMNS = ("sample_id", "trial", "metric", "value", "error")
# Upper bound on resample-matrix cells held in memory at once (8 bytes each).
_BOOTSTRAP_BATCH_CELLS = 2_000_000

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Interval:
    """A closed interval ``[low, high]``."""

    low: float
    high: float


@dataclass(frozen=True)
class MetricSummary:
    """Aggregate of one metric over a set of samples.

    ``n`` counts samples in the mean; ``errors`` and ``excluded`` count individual
    results (sample × trial). ``trial_sd`` is the mean over samples of the sample
    standard deviation (ddof=1) of that sample's trial values; ``trial_agreement`` is
    the share of samples whose trial values are all identical. Both use samples with at
    least two valid trial values, count excluded values (they are still judge outputs)
    and are None when the metric ran a single trial.
    """

    metric: str
    mean: float | None
    ci: Interval | None
    n: int
    errors: int
    excluded: int
    mean_all: float | None
    trials: int
    trial_sd: float | None
    trial_agreement: float | None


def bootstrap_ci(
    values: Sequence[float] | FloatArray,
    *,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
) -> Interval | None:
    """Percentile bootstrap confidence interval of the mean of ``values``.

    Returns None with fewer than two values and a zero-width interval when all values
    are equal. The same values, settings and seed always give the same interval.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be positive, got {n_resamples}")
    data = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(data)):
        raise ValueError("bootstrap_ci needs finite values; drop errors before calling it")
    if data.size < 2:
        return None
    if np.all(data == data[0]):
        return Interval(float(data[0]), float(data[0]))
    means = _resampled_means(data, n_resamples=n_resamples, seed=seed)
    tail = (1 - confidence) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return Interval(float(low), float(high))


def _resampled_means(data: FloatArray, *, n_resamples: int, seed: int) -> FloatArray:
    """Means of ``n_resamples`` resamples with replacement, drawn in memory-bounded batches."""
    rng = np.random.default_rng(seed)
    n = data.size
    batch = max(1, _BOOTSTRAP_BATCH_CELLS // n)
    means = np.empty(n_resamples, dtype=np.float64)
    for start in range(0, n_resamples, batch):
        stop = min(start + batch, n_resamples)
        indices = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = data[indices].mean(axis=1)
    return means


def summarize_scores(
    scores: pd.DataFrame,
    *,
    exclude: Mapping[str, Sequence[float]] | None = None,
    seed: int = 0,
    confidence: float = 0.95,
) -> list[MetricSummary]:
    """Summarise every metric in a long score frame, in the order metrics first appear.

    ``scores`` has one row per (sample, trial, metric) with columns ``sample_id``,
    ``trial``, ``metric``, ``value`` (NaN on error) and ``error``. Error rows are
    counted, never averaged. ``exclude[metric]`` lists values left out of the mean and
    interval (such as the "not sure" score 0 of answer accuracy); ``mean_all`` keeps
    them.
    """
    _check_columns(scores)
    exclude = exclude or {}
    return [
        _summarize_metric(
            str(metric),
            scores[scores["metric"] == metric],
            exclude=exclude.get(str(metric), ()),
            seed=seed,
            confidence=confidence,
        )
        for metric in scores["metric"].drop_duplicates()
    ]


def summarize_by(
    scores: pd.DataFrame,
    key: str,
    *,
    exclude: Mapping[str, Sequence[float]] | None = None,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict[str, list[MetricSummary]]:
    """Summarise each subset of samples that shares a value of column ``key``.

    ``key`` is a column of the frame such as ``metadata.product``. Rows with no value
    fall into the group ``"(none)"``, which comes last; other groups are sorted by name.
    """
    _check_columns(scores)
    if key not in scores.columns:
        raise ValueError(
            f"no column {key!r} to group by; columns are: {', '.join(map(str, scores.columns))}"
        )
    labels = scores[key].map(_group_label)
    names = sorted(set(labels) - {NO_GROUP})
    if (labels == NO_GROUP).any():
        names.append(NO_GROUP)
    return {
        name: summarize_scores(
            scores[labels == name], exclude=exclude, seed=seed, confidence=confidence
        )
        for name in names
    }


def summary_frame(summaries: Sequence[MetricSummary]) -> pd.DataFrame:
    """One row per metric summary, with the interval split into ``ci_low``/``ci_high``.

    Missing values (no mean, no interval, no trial spread) are NaN.
    """
    rows = [
        {
            "metric": s.metric,
            "mean": s.mean,
            "ci_low": s.ci.low if s.ci else None,
            "ci_high": s.ci.high if s.ci else None,
            "n": s.n,
            "errors": s.errors,
            "excluded": s.excluded,
            "mean_all": s.mean_all,
            "trials": s.trials,
            "trial_sd": s.trial_sd,
            "trial_agreement": s.trial_agreement,
        }
        for s in summaries
    ]
    columns = [
        "metric",
        "mean",
        "ci_low",
        "ci_high",
        "n",
        "errors",
        "excluded",
        "mean_all",
        "trials",
        "trial_sd",
        "trial_agreement",
    ]
    frame = pd.DataFrame(rows, columns=columns)
    # Missing values become NaN so numeric columns stay numeric.
    floats = ["mean", "ci_low", "ci_high", "mean_all", "trial_sd", "trial_agreement"]
    frame[floats] = frame[floats].astype("float64")
    return frame.astype({"n": "int64", "errors": "int64", "excluded": "int64", "trials": "int64"})


def _check_columns(scores: pd.DataFrame) -> None:
    missing = [c for c in _REQUIRED_COLUMNS if c not in scores.columns]
    if missing:
        raise ValueError(f"score frame lacks column(s): {', '.join(missing)}")


def _group_label(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return NO_GROUP
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value)) if value else NO_GROUP
    return str(value)


def _error_mask(rows: pd.DataFrame) -> pd.Series[bool]:
    """Rows that failed: an error message, or no finite value."""
    has_error = rows["error"].map(lambda e: e is not None and not pd.isna(e) and e != "")
    values = pd.to_numeric(rows["value"], errors="coerce")
    no_value = ~np.isfinite(values.to_numpy(dtype=np.float64, na_value=np.nan))
    return has_error.astype(bool) | pd.Series(no_value, index=rows.index)


def _summarize_metric(
    metric: str,
    rows: pd.DataFrame,
    *,
    exclude: Sequence[float],
    seed: int,
    confidence: float,
) -> MetricSummary:
    failed = _error_mask(rows)
    valid = rows.loc[~failed, ["sample_id", "trial"]].copy()
    valid["value"] = pd.to_numeric(rows.loc[~failed, "value"]).astype(np.float64)
    is_excluded = valid["value"].isin(list(exclude))
    kept_means = _per_sample_means(valid[~is_excluded])
    all_means = _per_sample_means(valid)
    trial_sd, agreement = _trial_spread(valid)
    return MetricSummary(
        metric=metric,
        mean=_mean_or_none(kept_means),
        ci=bootstrap_ci(kept_means, confidence=confidence, seed=seed),
        n=int(kept_means.size),
        errors=int(failed.sum()),
        excluded=int(is_excluded.sum()),
        mean_all=_mean_or_none(all_means),
        trials=int(rows["trial"].nunique()),
        trial_sd=trial_sd,
        trial_agreement=agreement,
    )


def _per_sample_means(valid: pd.DataFrame) -> FloatArray:
    """Each sample's mean over its trials, ordered by first appearance."""
    if valid.empty:
        return np.empty(0, dtype=np.float64)
    grouped = valid.groupby("sample_id", sort=False)["value"].mean()
    return grouped.to_numpy(dtype=np.float64)


def _mean_or_none(values: FloatArray) -> float | None:
    return float(values.mean()) if values.size else None


def _trial_spread(valid: pd.DataFrame) -> tuple[float | None, float | None]:
    """Mean per-sample standard deviation and share of samples with identical trials."""
    if valid["trial"].nunique() < 2:
        return None, None
    per_sample = valid.groupby("sample_id", sort=False)["value"]
    counts = per_sample.count()
    repeated = counts[counts >= 2].index
    if repeated.empty:
        return None, None
    sds = per_sample.std(ddof=1)[repeated]
    identical = (per_sample.nunique()[repeated] == 1).mean()
    return float(sds.mean()), float(identical)
