"""Paired pass rates of two runs: for each score both runs give a per-sample pass,
the share of samples passing in A and in B over the samples both runs judged, the
difference B − A, the samples passing only in A or only in B, and McNemar's exact test
on those discordant samples (a two-sided binomial test of the smaller count against
half of their total, :func:`scipy.stats.binomtest`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["PASS_TEST", "PairedPassRate", "paired_pass_counts", "paired_pass_rates"]

PASS_TEST = "McNemar exact test (two-sided binomial test on the discordant samples)"


@dataclass(frozen=True)
class PairedPassRate:
    """One score's pass rates in run A and run B over the samples both judged."""

    metric: str
    n: int
    """Samples that passed or failed in both runs."""
    passed_a: int
    passed_b: int
    only_a: int
    """Samples passing in A and failing in B."""
    only_b: int
    """Samples passing in B and failing in A."""
    p_value: float | None
    """McNemar's exact p-value (None with no sample judged in both runs)."""

    @property
    def rate_a(self) -> float | None:
        """The share of the paired samples passing in run A."""
        return self.passed_a / self.n if self.n else None

    @property
    def rate_b(self) -> float | None:
        """The share of the paired samples passing in run B."""
        return self.passed_b / self.n if self.n else None

    @property
    def difference(self) -> float | None:
        """Pass rate of B minus pass rate of A."""
        return (self.only_b - self.only_a) / self.n if self.n else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "metric": self.metric,
            "n": self.n,
            "pass_rate_a": self.rate_a,
            "pass_rate_b": self.rate_b,
            "difference": self.difference,
            "passed_a": self.passed_a,
            "passed_b": self.passed_b,
            "only_a": self.only_a,
            "only_b": self.only_b,
            "p_value": self.p_value,
        }


def paired_pass_rates(
    passes_a: Mapping[str, Mapping[str, bool | None]],
    passes_b: Mapping[str, Mapping[str, bool | None]],
    metrics: Sequence[str],
) -> list[PairedPassRate]:
    """For each of ``metrics`` with a per-sample pass in both runs (each run's
    :func:`~ragjudge.analysis._passes.run_passes`), in that order, its
    paired pass rates (samples unscored in either run are left out)."""
    return [
        _paired(metric, passes_a[metric], passes_b[metric])
        for metric in metrics
        if metric in passes_a and metric in passes_b
    ]


def _paired(
    metric: str, a: Mapping[str, bool | None], b: Mapping[str, bool | None]
) -> PairedPassRate:
    pairs = [
        (pass_a, b[i]) for i, pass_a in a.items() if pass_a is not None and b.get(i) is not None
    ]
    return paired_pass_counts(
        metric, np.array([pa for pa, _ in pairs], bool), np.array([pb for _, pb in pairs], bool)
    )


def paired_pass_counts(
    metric: str, passed_a: npt.NDArray[np.bool_], passed_b: npt.NDArray[np.bool_]
) -> PairedPassRate:
    """The paired pass rates of one score from whether each sample judged in both runs
    passed in A and in B (the same samples, in the same order, in both arrays)."""
    only_a = int(np.count_nonzero(passed_a & ~passed_b))
    only_b = int(np.count_nonzero(passed_b & ~passed_a))
    n = int(passed_a.size)
    return PairedPassRate(
        metric=metric,
        n=n,
        passed_a=int(np.count_nonzero(passed_a)),
        passed_b=int(np.count_nonzero(passed_b)),
        only_a=only_a,
        only_b=only_b,
        p_value=_mcnemar_exact(only_a, only_b) if n else None,
    )


def _mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact p-value of "A and B pass equally often" (1.0 without any
    discordant sample: nothing speaks against it)."""
    discordant = only_a + only_b
    if discordant == 0:
        return 1.0
    from scipy.stats import binomtest

    return float(binomtest(min(only_a, only_b), discordant, 0.5).pvalue)
