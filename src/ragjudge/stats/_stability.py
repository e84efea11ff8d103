"""How stable a metric is across repeated trials of the same samples: the spread of each
sample's values, the share of samples whose value jumps, the intraclass correlation,
and whether small samples (few statements, chunks or sentences) are the unstable ones."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ragjudge.stats._bootstrap import FloatArray, Interval, check_bootstrap_settings
from ragjudge.stats._groups import error_mask

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FLIP", "Stability", "icc_one_way", "stability_of"]

FLIP = 0.5
"""A sample "flips" when its values across trials span at least this much."""


@dataclass(frozen=True)
class Stability:
    """One metric's stability over trials.

    ``within_sd``: the mean over samples of the standard deviation (ddof=1) of the
    sample's trial values; ``within_var``: the mean of those variances (for a 0/1
    value flipping with probability p it estimates p·(1 − p)); ``flips``: the share of
    samples whose values span at least :data:`FLIP`; ``icc``: ICC(1,1), the share of
    the variance that lies between samples rather than between trials of one sample
    (1: perfectly reproducible; around 0: the trials are as different as the samples),
    with a bootstrap ``icc_ci`` over samples; ``size_spearman``: the rank correlation
    of a sample's spread with its size (statements, chunks, sentences) — negative when
    small texts are the unstable ones — over ``size_n`` samples. ``samples`` counts the
    samples with at least two valid trials; ``trials`` the most trials a sample has.
    """

    metric: str
    samples: int
    trials: int
    within_sd: float | None
    within_var: float | None
    flips: float | None
    icc: float | None
    icc_ci: Interval | None
    size_spearman: float | None
    size_n: int


def icc_one_way(values: FloatArray) -> float | None:
    """ICC(1,1) of an ``n × k`` array (samples × trials), one-way random effects,
    single measurement: ``(MSB − MSW) / (MSB + (k − 1)·MSW)``. None when it is undefined
    (fewer than 2 samples or trials, or no variance at all)."""
    n, k = values.shape
    if n < 2 or k < 2:
        return None
    row_means = values.mean(axis=1)
    msb = k * float(((row_means - values.mean()) ** 2).sum()) / (n - 1)
    msw = float(((values - row_means[:, None]) ** 2).sum()) / (n * (k - 1))
    denominator = msb + (k - 1) * msw
    return None if denominator == 0 else (msb - msw) / denominator


def stability_of(
    scores: pd.DataFrame,
    sizes: Mapping[tuple[str, str], float] | None = None,
    *,
    seed: int = 0,
    n_resamples: int = 1000,
    confidence: float = 0.95,
) -> list[Stability]:
    """The stability of every metric of a long score frame (``sample_id``, ``trial``,
    ``metric``, ``value``, ``error``). ``sizes[(metric, sample_id)]`` is a sample's
    size for the spread–size correlation. Errors are left out."""
    import pandas as pd

    check_bootstrap_settings(confidence, n_resamples)
    valid = scores.loc[~error_mask(scores)].copy()
    valid["value"] = pd.to_numeric(valid["value"]).astype(np.float64)
    found = []
    for metric in scores["metric"].drop_duplicates():
        rows = valid[valid["metric"] == metric]
        found.append(
            _metric_stability(str(metric), rows, sizes or {}, seed, n_resamples, confidence)
        )
    return found


def _metric_stability(
    metric: str,
    rows: pd.DataFrame,
    sizes: Mapping[tuple[str, str], float],
    seed: int,
    n_resamples: int,
    confidence: float,
) -> Stability:
    per_sample = rows.groupby("sample_id", sort=False)["value"]
    counts = per_sample.count()
    repeated = counts[counts >= 2].index
    trials = int(counts.max()) if len(counts) else 0
    if repeated.empty:
        return Stability(metric, 0, trials, None, None, None, None, None, None, 0)
    sds = per_sample.std(ddof=1)[repeated]
    spans = (per_sample.max() - per_sample.min())[repeated]
    matrix = _complete_matrix(rows, repeated, trials)
    icc = icc_one_way(matrix) if matrix is not None else None
    icc_ci = _icc_interval(matrix, seed, n_resamples, confidence) if matrix is not None else None
    spearman, size_n = _size_correlation(metric, sds, sizes)
    return Stability(
        metric=metric,
        samples=len(repeated),
        trials=trials,
        within_sd=float(sds.mean()),
        within_var=float((sds**2).mean()),
        flips=float((spans >= FLIP - 1e-12).mean()),
        icc=icc,
        icc_ci=icc_ci,
        size_spearman=spearman,
        size_n=size_n,
    )


def _complete_matrix(rows: pd.DataFrame, repeated: pd.Index, trials: int) -> FloatArray | None:
    """Samples × trials for the samples with every trial (ICC needs a balanced design)."""
    table = rows[rows["sample_id"].isin(repeated)].pivot_table(
        index="sample_id", columns="trial", values="value", aggfunc="mean"
    )
    complete = table.dropna()
    if len(complete) < 2 or complete.shape[1] < 2:
        return None
    return complete.to_numpy(dtype=np.float64)


def _icc_interval(
    matrix: FloatArray, seed: int, n_resamples: int, confidence: float
) -> Interval | None:
    rng = np.random.default_rng(seed)
    n = matrix.shape[0]
    replicates = [
        value
        for _ in range(n_resamples)
        if (value := icc_one_way(matrix[rng.integers(0, n, size=n)])) is not None
    ]
    if len(replicates) < n_resamples // 2:
        return None
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(replicates, [tail, 100 - tail])
    return Interval(float(low), float(high))


def _size_correlation(
    metric: str, sds: pd.Series[float], sizes: Mapping[tuple[str, str], float]
) -> tuple[float | None, int]:
    pairs = [
        (float(sd), sizes[(metric, str(sid))])
        for sid, sd in sds.items()
        if (metric, str(sid)) in sizes
    ]
    if len(pairs) < 3:
        return None, len(pairs)
    spreads, lengths = zip(*pairs, strict=True)
    if len(set(spreads)) < 2 or len(set(lengths)) < 2:
        return None, len(pairs)
    from scipy import stats as scipy_stats  # scipy is slow to import; only needed here

    result = scipy_stats.spearmanr(spreads, lengths)
    return float(result.statistic), len(pairs)
