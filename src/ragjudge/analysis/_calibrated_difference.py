"""The difference of two runs' calibrated estimates of one score.

The two runs' labels are separate random draws from separate sets of outputs, so the
two estimates are independent: the difference's variance is the sum of theirs and its
interval the normal one (``d ± z·√(se_a² + se_b²)``). Unlike the paired comparison of
judge scores, nothing is paired here: each run's estimate is calibrated to its own
labels.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ragjudge.analysis._calibrated import CalibratedEstimate
from ragjudge.stats import Interval

__all__ = ["CalibratedDifference", "calibrated_differences"]


@dataclass(frozen=True)
class CalibratedDifference:
    """One score's calibrated estimate in run A and in run B (None where the run has
    no labels of it) and, when both have one, B − A with its interval."""

    score: str
    a: CalibratedEstimate | None
    b: CalibratedEstimate | None
    difference: float | None
    ci: Interval | None

    @property
    def note(self) -> str:
        """Why there is no difference, in a few words ("" when there is one)."""
        if self.a is None and self.b is None:
            return "neither run has labels of it"
        if self.a is None or self.b is None:
            return f"only run {'B' if self.a is None else 'A'} has labels of it"
        if self.difference is None:
            return "too few labels for an interval (two or more per run)"
        return ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form."""
        return {
            "score": self.score,
            "a": None if self.a is None else self.a.to_dict(),
            "b": None if self.b is None else self.b.to_dict(),
            "difference": self.difference,
            "ci_low": None if self.ci is None else self.ci.low,
            "ci_high": None if self.ci is None else self.ci.high,
            "note": self.note,
        }


def _z(confidence: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(0.5 + confidence / 2)


def calibrated_difference(
    score: str,
    a: CalibratedEstimate | None,
    b: CalibratedEstimate | None,
    *,
    confidence: float = 0.95,
) -> CalibratedDifference:
    """B − A of ``score``'s best calibrated estimates, variances added."""
    first, second = (None if e is None else e.best for e in (a, b))
    if first is None or second is None:
        return CalibratedDifference(score, a, b, None, None)
    if first.value is None or second.value is None:
        return CalibratedDifference(score, a, b, None, None)
    if first.std_error is None or second.std_error is None:
        return CalibratedDifference(score, a, b, None, None)
    difference = second.value - first.value
    half = _z(confidence) * math.sqrt(first.std_error**2 + second.std_error**2)
    return CalibratedDifference(
        score, a, b, difference, Interval(difference - half, difference + half)
    )


def calibrated_differences(
    a: Mapping[str, CalibratedEstimate],
    b: Mapping[str, CalibratedEstimate],
    scores: list[str],
    *,
    confidence: float = 0.95,
) -> list[CalibratedDifference]:
    """For each of ``scores`` that either run has labels of, the difference B − A."""
    return [
        calibrated_difference(score, a.get(score), b.get(score), confidence=confidence)
        for score in scores
        if score in a or score in b
    ]
