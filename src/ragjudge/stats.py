"""Aggregate scores: means, bootstrap confidence intervals, per-subset breakdowns and
trial reproducibility.

The unit of analysis is the sample. When a metric ran several trials per sample, each
sample's trials are averaged first and the interval is bootstrapped over samples, so
repeating a judge call never narrows the interval by itself. Everything random is
seeded: the same data always gives the same interval.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
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
    scored: int = 0
    """Results (sample × trial) that have a value, excluded ones included."""
    excludes: tuple[float, ...] = ()
    """The values this metric leaves out of its mean (e.g. ``(0.0,)``)."""

    @property
    def excluded_share(self) -> float | None:
        """Share of the scored results left out of the mean (e.g. answer accuracy's 0)."""
        return self.excluded / self.scored if self.scored else None


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
    _check_bootstrap_settings(confidence, n_resamples)
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


def _check_bootstrap_settings(confidence: float, n_resamples: int) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be positive, got {n_resamples}")


def _batch_sizes(n_resamples: int, width: int) -> Iterator[int]:
    """Sizes of the batches that draw ``n_resamples`` rows of ``width`` cells each while
    keeping every batch within :data:`_BOOTSTRAP_BATCH_CELLS`."""
    batch = max(1, _BOOTSTRAP_BATCH_CELLS // width)
    for start in range(0, n_resamples, batch):
        yield min(batch, n_resamples - start)


def _resampled_means(data: FloatArray, *, n_resamples: int, seed: int) -> FloatArray:
    """Means of ``n_resamples`` resamples with replacement, drawn in memory-bounded batches."""
    rng = np.random.default_rng(seed)
    n = data.size
    parts = [
        data[rng.integers(0, n, size=(size, n))].mean(axis=1)
        for size in _batch_sizes(n_resamples, n)
    ]
    return np.concatenate(parts)


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
    labels = scores[key].map(group_label)
    return {
        name: summarize_scores(
            scores[labels == name], exclude=exclude, seed=seed, confidence=confidence
        )
        for name in group_names(labels)
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


def group_label(value: Any) -> str:
    """The group name a subset-key value gives: missing values and empty lists are
    ``"(none)"``, a list's items are joined with commas, and a whole float is written
    as an integer.

    A store's score frame keeps a list as JSON text and an integer column with gaps as
    floats; both get the label of the original value.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return NO_GROUP
    if isinstance(value, str) and value.startswith("["):
        value = _json_list_or_text(value)
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value)) if value else NO_GROUP
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _json_list_or_text(text: str) -> Any:
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        return text
    return parsed if isinstance(parsed, list) else text


def group_names(labels: Iterable[str]) -> list[str]:
    """The distinct group labels sorted by name, with ``"(none)"`` last."""
    distinct = set(labels)
    return sorted(distinct - {NO_GROUP}) + ([NO_GROUP] if NO_GROUP in distinct else [])


def metadata_column(scores: pd.DataFrame, key: str) -> str:
    """The column of a score frame that holds metadata ``key``: ``metadata.KEY``, or
    ``key`` itself when it names a column. Raises ``ValueError`` naming the metadata
    keys the frame has when neither exists."""
    for column in (f"metadata.{key}", key):
        if column in scores.columns:
            return column
    known = sorted(
        str(c).removeprefix("metadata.") for c in scores.columns if str(c).startswith("metadata.")
    )
    raise ValueError(
        f"no sample has metadata key {key!r}; keys present: {', '.join(known) or '(none)'}"
    )


def error_mask(scores: pd.DataFrame) -> pd.Series[bool]:
    """Rows of a score frame that failed: an error message, or no finite value."""
    has_error = scores["error"].map(lambda e: e is not None and not pd.isna(e) and e != "")
    values = pd.to_numeric(scores["value"], errors="coerce")
    no_value = ~np.isfinite(values.to_numpy(dtype=np.float64, na_value=np.nan))
    return has_error.astype(bool) | pd.Series(no_value, index=scores.index)


def sample_means(
    scores: pd.DataFrame, exclude: Mapping[str, Sequence[float]] | None = None
) -> dict[str, pd.Series[float]]:
    """Each metric's mean per sample over its trials, keyed by metric.

    Failed results and the values ``exclude[metric]`` lists are left out first; a
    sample with no value left is absent from its metric's series (indexed by
    ``sample_id``). Metrics and samples keep their order of first appearance.
    """
    _check_columns(scores)
    exclude = exclude or {}
    usable = scores.loc[~error_mask(scores), ["sample_id", "metric", "value"]]
    usable = usable.assign(value=pd.to_numeric(usable["value"]).astype(np.float64))
    result: dict[str, pd.Series[float]] = {}
    for metric in scores["metric"].drop_duplicates():
        rows = usable[usable["metric"] == metric]
        rows = rows[~rows["value"].isin(list(exclude.get(str(metric), ())))]
        result[str(metric)] = rows.groupby("sample_id", sort=False)["value"].mean()
    return result


def _summarize_metric(
    metric: str,
    rows: pd.DataFrame,
    *,
    exclude: Sequence[float],
    seed: int,
    confidence: float,
) -> MetricSummary:
    failed = error_mask(rows)
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
        scored=len(valid),
        excludes=tuple(float(v) for v in exclude),
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


# --------------------------------------------------------------------------- correlation

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
    x, y = _paired_arrays(
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


def _paired_arrays(
    a: Sequence[float] | npt.NDArray[np.floating[Any]],
    b: Sequence[float] | npt.NDArray[np.floating[Any]],
    *,
    confidence: float,
    n_resamples: int,
    not_finite: str,
) -> tuple[FloatArray, FloatArray]:
    """``a`` and ``b`` as float arrays, once the bootstrap settings and the pairs are
    checked: equally long 1-d sequences of finite values (else ``not_finite`` is raised)."""
    _check_bootstrap_settings(confidence, n_resamples)
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"need two equally long 1-d sequences, got shapes {x.shape}, {y.shape}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError(not_finite)
    return x, y


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
    parts: dict[str, list[FloatArray]] = {m: [] for m in CORRELATION_METHODS}
    for size in _batch_sizes(n_resamples, n):
        indices = rng.integers(0, n, size=(size, n))
        for method, values in _replicate_correlations(x, y, indices).items():
            parts[method].append(values)
    return {m: np.concatenate(parts[m]) for m in CORRELATION_METHODS}


def _replicate_correlations(
    x: FloatArray, y: FloatArray, indices: npt.NDArray[np.int64]
) -> dict[str, FloatArray]:
    """Coefficients of the resamples ``x[indices[b]], y[indices[b]]``.

    A resample is represented by how often it draws each original pair (its weight),
    so every coefficient comes from a few matrix products over the ``n`` original
    pairs instead of a loop over resamples. The results equal the coefficients of the
    expanded resamples (ties get average ranks, Kendall is tau-b).
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
        "kendall": _weighted_kendall(w, x, y, per_value_x, per_value_y),
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


# Columns of the pair-sign matrices built at once in Kendall's tau (n × block floats).
_KENDALL_BLOCK_CELLS = 4_000_000


def _weighted_kendall(
    w: FloatArray, x: FloatArray, y: FloatArray, per_value_x: FloatArray, per_value_y: FloatArray
) -> FloatArray:
    """Kendall's tau-b per row of weights.

    With pair signs ``s_ij = sign(x_i - x_j)·sign(y_i - y_j)``, a resample's
    concordant-minus-discordant count (over ordered pairs) is ``wᵀSw``; copies of one
    pair are tied on both sides and add nothing, as in the expanded resample. Its
    ordered pairs untied in x number ``N² - Σ c²`` over the counts ``c`` of each
    distinct x value (likewise for y).
    """
    n = x.size
    block = max(1, _KENDALL_BLOCK_CELLS // n)
    score = np.zeros(w.shape[0])
    for start in range(0, n, block):
        cols = slice(start, min(start + block, n))
        signs = np.sign(x[:, None] - x[None, cols]) * np.sign(y[:, None] - y[None, cols])
        score += ((w @ signs) * w[:, cols]).sum(axis=1)
    total = w.sum(axis=1) ** 2
    untied_x = total - (per_value_x**2).sum(axis=1)
    untied_y = total - (per_value_y**2).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        result: FloatArray = score / np.sqrt(untied_x * untied_y)
    return result


# --------------------------------------------------------------------------- paired difference

PERMUTATION_TEST = "paired sign-flip permutation test of the mean difference (two-sided)"
"""What :attr:`PairedDifference.p_value` is."""

# Up to this many pairs the permutation test enumerates every sign pattern (2**n).
_EXACT_PERMUTATION_MAX_PAIRS = 15


@dataclass(frozen=True)
class PairedDifference:
    """The difference B − A over paired samples.

    ``mean_a``, ``mean_b`` and ``difference`` (the mean of ``b - a``) are over the
    ``n`` pairs; ``ci`` is the percentile bootstrap interval of ``difference`` from
    resampled pairs. ``p_value`` is a two-sided sign-flip permutation test of the mean
    difference (exact up to 15 pairs, seeded Monte Carlo beyond); ``wilcoxon_p`` is the
    Wilcoxon signed-rank test (zero differences dropped). Both are 1.0 when every
    difference is 0. ``better``, ``equal`` and ``worse`` are the shares of pairs where
    B is better than, equal to or worse than A; "better" means higher unless
    ``lower_is_better``. With no pairs every statistic is None.
    """

    n: int
    mean_a: float | None
    mean_b: float | None
    difference: float | None
    ci: Interval | None
    p_value: float | None
    wilcoxon_p: float | None
    better: float | None
    equal: float | None
    worse: float | None
    lower_is_better: bool = False

    @property
    def ci_excludes_zero(self) -> bool:
        """Whether the interval lies entirely above or entirely below 0."""
        return self.ci is not None and (self.ci.low > 0 or self.ci.high < 0)


def paired_difference(
    a: Sequence[float] | FloatArray,
    b: Sequence[float] | FloatArray,
    *,
    n_resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
    lower_is_better: bool = False,
) -> PairedDifference:
    """Compare paired values ``a[i]``, ``b[i]`` (the same sample under two systems).

    See :class:`PairedDifference` for what is computed. The same values, settings and
    seed always give the same interval and p-values.
    """
    x, y = _paired_arrays(
        a,
        b,
        confidence=confidence,
        n_resamples=n_resamples,
        not_finite="paired_difference needs finite values; drop unpaired samples first",
    )
    n = int(x.size)
    if n == 0:
        return PairedDifference(0, None, None, None, None, None, None, None, None, None)
    diff = y - x
    gain = -diff if lower_is_better else diff
    return PairedDifference(
        n=n,
        mean_a=float(x.mean()),
        mean_b=float(y.mean()),
        difference=float(diff.mean()),
        ci=bootstrap_ci(diff, confidence=confidence, n_resamples=n_resamples, seed=seed),
        p_value=sign_flip_p_value(diff, n_resamples=n_resamples, seed=seed),
        wilcoxon_p=_wilcoxon_p_value(diff),
        better=float(np.mean(gain > 0)),
        equal=float(np.mean(gain == 0)),
        worse=float(np.mean(gain < 0)),
        lower_is_better=lower_is_better,
    )


def sign_flip_p_value(
    differences: Sequence[float] | FloatArray, *, n_resamples: int = 2000, seed: int = 0
) -> float | None:
    """Two-sided p-value of a paired sign-flip permutation test of the mean difference.

    Under the null hypothesis each difference is as likely to have the opposite sign,
    so the p-value is the share of sign patterns whose mean is at least as far from 0
    as the observed one. Up to 15 differences every pattern is enumerated (exact);
    beyond, ``n_resamples`` seeded random patterns are drawn and the observed one is
    counted in (``(k + 1) / (n_resamples + 1)``). All-zero differences give 1.0; no
    differences give None.
    """
    d = np.asarray(differences, dtype=np.float64)
    if d.size == 0:
        return None
    if not np.any(d):
        return 1.0
    observed = abs(float(d.sum()))
    # Sums that equal the observed one up to rounding count as "at least as extreme".
    threshold = observed - 1e-9 * max(1.0, float(np.abs(d).sum()))
    if d.size <= _EXACT_PERMUTATION_MAX_PAIRS:
        patterns = (np.arange(2**d.size)[:, None] >> np.arange(d.size)) & 1
        sums = (1 - 2 * patterns) @ d
        return float(np.mean(np.abs(sums) >= threshold))
    extreme = _random_sign_flip_count(d, threshold, n_resamples=n_resamples, seed=seed)
    return (extreme + 1) / (n_resamples + 1)


def _random_sign_flip_count(d: FloatArray, threshold: float, *, n_resamples: int, seed: int) -> int:
    """How many of ``n_resamples`` random sign patterns give ``|sum| >= threshold``."""
    rng = np.random.default_rng(seed)
    extreme = 0
    for size in _batch_sizes(n_resamples, d.size):
        signs = rng.integers(0, 2, size=(size, d.size)) * 2 - 1
        extreme += int(np.count_nonzero(np.abs(signs @ d) >= threshold))
    return extreme


def _wilcoxon_p_value(d: FloatArray) -> float | None:
    """Two-sided Wilcoxon signed-rank p-value; zero differences are dropped."""
    if d.size == 0:
        return None
    if not np.any(d):
        return 1.0
    from scipy import stats as scipy_stats  # scipy is slow to import; only needed here

    with warnings.catch_warnings():
        # scipy warns when ties or few pairs force the normal approximation.
        warnings.simplefilter("ignore")
        result = scipy_stats.wilcoxon(d, zero_method="wilcox")
    p_value = float(result.pvalue)
    return p_value if math.isfinite(p_value) else None
