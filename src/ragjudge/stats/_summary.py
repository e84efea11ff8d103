"""Summaries of a score frame: each metric's mean and bootstrap interval over samples,
error and exclusion counts, and the spread of repeated trials."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from ragjudge.stats._bootstrap import FloatArray, Interval, bootstrap_cis
from ragjudge.stats._groups import check_columns, error_mask, group_label, group_names
from ragjudge.stats._reducers import TrialReducer, reduce_samples

if TYPE_CHECKING:
    import pandas as pd


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
    scored: int = 0
    """Results (sample × trial) that have a value, excluded ones included."""
    excludes: tuple[float, ...] = ()
    """The values this metric leaves out of its mean (e.g. ``(0.0,)``)."""
    skipped: int = 0
    """Results (sample × trial) where the metric did not apply (not errors)."""
    reduce: str = "mean"
    """How each sample's trials became its value (:attr:`TrialReducer.label`): the
    mean, interval and ``n`` are over those per-sample values."""

    @property
    def excluded_share(self) -> float | None:
        """Share of the scored results left out of the mean (e.g. answer accuracy's 0)."""
        return self.excluded / self.scored if self.scored else None


def summarize_scores(
    scores: pd.DataFrame,
    *,
    exclude: Mapping[str, Sequence[float]] | None = None,
    seed: int = 0,
    confidence: float = 0.95,
    reducers: Mapping[str, TrialReducer] | None = None,
) -> list[MetricSummary]:
    """Summarise every metric in a long score frame, in the order metrics first appear.

    ``scores`` has one row per (sample, trial, metric) with columns ``sample_id``,
    ``trial``, ``metric``, ``value`` (NaN on error) and ``error``. Error rows are
    counted, never averaged. ``exclude[metric]`` lists values left out of the mean and
    interval (such as the "not sure" score 0 of answer accuracy); ``mean_all`` keeps
    them. ``reducers[metric]`` says how a sample's trials become its value (the mean
    when the metric has none).
    """
    check_columns(scores)
    exclude = exclude or {}
    reducers = reducers or {}
    summaries = [
        _summarize_metric(
            str(metric),
            scores[scores["metric"] == metric],
            exclude=exclude.get(str(metric), ()),
            reducer=reducers.get(str(metric)),
        )
        for metric in scores["metric"].drop_duplicates()
    ]
    intervals = bootstrap_cis(
        [kept_means for _, kept_means in summaries], confidence=confidence, seed=seed
    )
    return [replace(s, ci=ci) for (s, _), ci in zip(summaries, intervals, strict=True)]


def summarize_by(
    scores: pd.DataFrame,
    key: str,
    *,
    exclude: Mapping[str, Sequence[float]] | None = None,
    seed: int = 0,
    confidence: float = 0.95,
    reducers: Mapping[str, TrialReducer] | None = None,
) -> dict[str, list[MetricSummary]]:
    """Summarise each subset of samples that shares a value of column ``key``.

    ``key`` is a column of the frame such as ``metadata.product``. Rows with no value
    fall into the group ``"(none)"``, which comes last; other groups are sorted by name.
    """
    check_columns(scores)
    if key not in scores.columns:
        raise ValueError(
            f"no column {key!r} to group by; columns are: {', '.join(map(str, scores.columns))}"
        )
    labels = scores[key].map(group_label)
    return {
        name: summarize_scores(
            scores[labels == name],
            exclude=exclude,
            seed=seed,
            confidence=confidence,
            reducers=reducers,
        )
        for name in group_names(labels)
    }


def summary_frame(summaries: Sequence[MetricSummary]) -> pd.DataFrame:
    """One row per metric summary, with the interval split into ``ci_low``/``ci_high``.

    Missing values (no mean, no interval, no trial spread) are NaN.
    """
    import pandas as pd

    rows = [
        {
            "metric": s.metric,
            "mean": s.mean,
            "ci_low": s.ci.low if s.ci else None,
            "ci_high": s.ci.high if s.ci else None,
            "n": s.n,
            "errors": s.errors,
            "skipped": s.skipped,
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
        "skipped",
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
    counts = ("n", "errors", "skipped", "excluded", "trials")
    return frame.astype(dict.fromkeys(counts, "int64"))


def _summarize_metric(
    metric: str, rows: pd.DataFrame, *, exclude: Sequence[float], reducer: TrialReducer | None
) -> tuple[MetricSummary, FloatArray]:
    """The metric's summary without its interval, and the per-sample means the
    interval is drawn from."""
    import pandas as pd

    failed = error_mask(rows)
    valid = rows.loc[~failed, ["sample_id", "trial"]].copy()
    valid["value"] = pd.to_numeric(rows.loc[~failed, "value"]).astype(np.float64)
    is_excluded = valid["value"].isin(list(exclude))
    kept_means = _per_sample_values(valid[~is_excluded], reducer)
    all_means = _per_sample_values(valid, reducer)
    trial_sd, agreement = _trial_spread(valid)
    summary = MetricSummary(
        metric=metric,
        mean=_mean_or_none(kept_means),
        ci=None,
        n=int(kept_means.size),
        errors=int(failed.sum()),
        excluded=int(is_excluded.sum()),
        mean_all=_mean_or_none(all_means),
        trials=int(rows["trial"].nunique()),
        trial_sd=trial_sd,
        trial_agreement=agreement,
        scored=len(valid),
        excludes=tuple(float(v) for v in exclude),
        reduce=reducer.label if reducer is not None else "mean",
    )
    return summary, kept_means


def _per_sample_values(valid: pd.DataFrame, reducer: TrialReducer | None) -> FloatArray:
    """Each sample's value from its trials, ordered by first appearance."""
    if reducer is None or reducer.name == "mean":
        return _per_sample_means(valid)
    reduced = reduce_samples(valid["sample_id"].tolist(), valid["value"].tolist(), reducer)
    return np.asarray(reduced, dtype=np.float64)


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
