"""What repeated trials of one judge on one sample say: the distribution of its values,
how often the trials agree with the commonest value, their spread; for yes/no verdicts
(rubric items) how often the trials agree with the majority; and whether two samples'
trial values are told apart (the difference of their means with a bootstrap interval
over groups and trials)."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragjudge.stats._bootstrap import FloatArray, Interval, check_bootstrap_settings

__all__ = [
    "TrialValues",
    "VerdictAgreement",
    "group_difference",
    "trial_values",
    "verdict_agreement",
]

_DECIMALS = 9
"""Values are counted as equal when they agree to this many decimals (a rate such as
75/90 computed twice)."""


@dataclass(frozen=True)
class TrialValues:
    """One sample's values over its trials.

    ``distribution``: value → number of trials, by value; ``mode``: the commonest value
    (the smallest of tied ones); ``mode_share``: the share of trials equal to it;
    ``sd``: the standard deviation (ddof=1; None with one value).
    """

    n: int
    mean: float
    distribution: dict[float, int]
    mode: float
    mode_share: float
    sd: float | None


def trial_values(values: Sequence[float]) -> TrialValues:
    """The distribution of ``values`` (at least one)."""
    if not values:
        raise ValueError("trial_values needs at least one value")
    counts = Counter(round(float(v), _DECIMALS) for v in values)
    distribution = dict(sorted(counts.items()))
    top = max(counts.values())
    mode = min(v for v, c in counts.items() if c == top)
    return TrialValues(
        n=len(values),
        mean=float(statistics.fmean(values)),
        distribution=distribution,
        mode=mode,
        mode_share=top / len(values),
        sd=statistics.stdev(values) if len(values) > 1 else None,
    )


@dataclass(frozen=True)
class VerdictAgreement:
    """One yes/no verdict over trials: the majority (None on a tie) and the share of
    trials that agree with it (0.5 on a tie)."""

    n: int
    yes: int
    majority: bool | None
    agreement: float

    @property
    def all_agree(self) -> bool:
        """Every trial gave the same verdict."""
        return self.yes in (0, self.n)


def verdict_agreement(verdicts: Sequence[bool]) -> VerdictAgreement:
    """How the trials' ``verdicts`` (at least one) agree."""
    if not verdicts:
        raise ValueError("verdict_agreement needs at least one verdict")
    n, yes = len(verdicts), sum(bool(v) for v in verdicts)
    majority = None if 2 * yes == n else 2 * yes > n
    return VerdictAgreement(n=n, yes=yes, majority=majority, agreement=max(yes, n - yes) / n)


def group_difference(
    pairs: Sequence[tuple[Sequence[float], Sequence[float]]],
    *,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, Interval | None]:
    """The mean over groups of (mean of the first sample's trials − mean of the
    second's), with a percentile bootstrap interval that resamples groups and, within
    each group, each sample's trials. None for the interval when no resampling varies
    (one group with one trial each)."""
    check_bootstrap_settings(confidence, n_resamples)
    usable = [
        (np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
        for a, b in pairs
        if len(a) and len(b)
    ]
    if not usable:
        raise ValueError("group_difference needs a pair of non-empty samples")
    point = float(np.mean([a.mean() - b.mean() for a, b in usable]))
    if len(usable) == 1 and len(usable[0][0]) < 2 and len(usable[0][1]) < 2:
        return point, None
    rng = np.random.default_rng(seed)
    # each group's difference under n_resamples resamplings of its trials ...
    within = np.stack([_resampled_differences(rng, a, b, n_resamples) for a, b in usable])
    # ... then, per resample, a resample of the groups
    chosen = rng.integers(0, len(usable), size=(n_resamples, len(usable)))
    estimates = within[chosen, np.arange(n_resamples)[:, None]].mean(axis=1)
    tail = (1 - confidence) / 2
    low, high = np.quantile(estimates, [tail, 1 - tail])
    return point, Interval(float(low), float(high))


def _resampled_differences(
    rng: np.random.Generator, first: FloatArray, second: FloatArray, n_resamples: int
) -> FloatArray:
    """``n_resamples`` bootstrap differences of the two samples' trial means."""
    means_first = rng.choice(first, size=(n_resamples, len(first))).mean(axis=1)
    means_second = rng.choice(second, size=(n_resamples, len(second))).mean(axis=1)
    return np.asarray(means_first - means_second, dtype=np.float64)
