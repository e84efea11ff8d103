"""How one sample's trial values become the one value the summary averages over samples:
the mean (the default), the commonest value, the median, the best value, pass@k or
at-least-k.

pass@k is the unbiased estimator of the chance that at least one of ``k`` trials drawn
without replacement from a sample's ``n`` passes, ``c`` of them passing:
``1 − C(n − c, k) / C(n, k)`` (Chen et al., 2021). at-least-k is 1 when at least ``k``
of the sample's trials pass, else 0. A trial passes when its value reaches the
threshold (a yes/no score passes on yes).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

__all__ = [
    "COUNTING_REDUCERS",
    "TRIAL_REDUCERS",
    "TrialReducer",
    "TrialReducerName",
    "pass_at_k",
    "reduce_samples",
]

TrialReducerName = Literal["mean", "mode", "median", "max", "pass_at_k", "at_least_k"]
TRIAL_REDUCERS: tuple[TrialReducerName, ...] = get_args(TrialReducerName)
COUNTING_REDUCERS: tuple[TrialReducerName, ...] = ("pass_at_k", "at_least_k")
"""The reducers that count passing trials: they need ``k`` and a pass threshold."""

_DECIMALS = 9
"""Values equal to this many decimals count as one value for the mode."""


@dataclass(frozen=True)
class TrialReducer:
    """How a sample's trial values are reduced: ``name``, and for the counting reducers
    ``k`` and ``threshold`` (a trial passes when its value is at least the threshold)."""

    name: TrialReducerName = "mean"
    k: int | None = None
    threshold: float | None = None

    def __post_init__(self) -> None:
        if self.name not in TRIAL_REDUCERS:
            raise ValueError(
                f"unknown trial reducer {self.name!r}; known: {', '.join(TRIAL_REDUCERS)}"
            )
        if self.name in COUNTING_REDUCERS and (self.k is None or self.k < 1):
            raise ValueError(f"{self.name} needs a whole number k of at least 1, not {self.k!r}")
        if self.name in COUNTING_REDUCERS and self.threshold is None:
            raise ValueError(f"{self.name} needs a pass threshold")

    @property
    def label(self) -> str:
        """The reducer in words for tables: ``mean``, ``pass@3 (≥ 0.5)``, ``at least 2 of n (≥ 1)``."""
        if self.name == "pass_at_k":
            return f"pass@{self.k} (≥ {self.threshold:g})"
        if self.name == "at_least_k":
            return f"at least {self.k} pass (≥ {self.threshold:g})"
        return self.name

    def needed_trials(self) -> int:
        """The fewest valid trial values a sample needs to be reduced."""
        return self.k if self.k is not None and self.name in COUNTING_REDUCERS else 1

    def reduce(self, values: Sequence[float]) -> float | None:
        """The sample's value from its trial values; None when it has fewer than
        :meth:`needed_trials` (pass@k is not defined for fewer than ``k`` trials)."""
        if len(values) < self.needed_trials():
            return None
        if self.name == "mean":
            return statistics.fmean(values)
        if self.name == "median":
            return float(statistics.median(values))
        if self.name == "max":
            return float(max(values))
        if self.name == "mode":
            return _mode(values)
        assert self.k is not None and self.threshold is not None  # checked on creation
        passed = sum(value >= self.threshold for value in values)
        if self.name == "pass_at_k":
            return pass_at_k(len(values), passed, self.k)
        return 1.0 if passed >= self.k else 0.0


def reduce_samples(
    sample: Sequence[object], value: Sequence[float], reducer: TrialReducer
) -> list[float]:
    """Each sample's reduced value, samples in order of first appearance (``sample[i]``
    is the sample of ``value[i]``); a sample with too few trials for the reducer is
    left out."""
    grouped: dict[object, list[float]] = {}
    for key, item in zip(sample, value, strict=True):
        grouped.setdefault(key, []).append(float(item))
    reduced = (reducer.reduce(values) for values in grouped.values())
    return [item for item in reduced if item is not None]


def _mode(values: Sequence[float]) -> float:
    """The commonest value; the smallest of tied ones (as the trial tables show it)."""
    counts = Counter(round(float(value), _DECIMALS) for value in values)
    top = max(counts.values())
    return min(value for value, count in counts.items() if count == top)


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimate of ``n`` trials of which ``c`` pass:
    ``1 − C(n − c, k) / C(n, k)``, computed as a product so large ``n`` stays exact
    enough (``n ≥ k``)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass_at_k needs 0 ≤ c ≤ n and 1 ≤ k ≤ n; got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    # C(n-c, k) / C(n, k) = prod_{i=n-c+1}^{n} (1 - k / i)
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))
