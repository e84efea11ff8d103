"""Paired comparison of two systems on the same samples: mean difference with a
bootstrap interval, a sign-flip permutation test and the Wilcoxon signed-rank test."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragjudge.stats._bootstrap import (
    FloatArray,
    Interval,
    batch_sizes,
    bootstrap_ci,
    paired_arrays,
)

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
    x, y = paired_arrays(
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
    for size in batch_sizes(n_resamples, d.size):
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
