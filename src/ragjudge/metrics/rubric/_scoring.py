"""Rubric scoring, pure functions (as HealthBench scores).

Each item met adds its points (a negative item met subtracts); ``total_score`` is the
sum of these signed scores, ``theoretical_score`` the sum of the positive points, and
``score_rate = total_score / theoretical_score``. The rate may fall below 0 (penalties)
and is undefined when no item has positive points. HealthBench's aggregate clips each
sample's rate to [0, 1] before the mean. A tag's rate is the same computation over the
items carrying the tag.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragjudge.schema import RubricItem

__all__ = ["ItemResult", "RubricOutcome", "clipped", "outcome_of", "tag_rates"]


@dataclass(frozen=True)
class ItemResult:
    """One rubric item with its verdict."""

    item: RubricItem
    criteria_met: bool
    explanation: str

    @property
    def signed_score(self) -> float:
        """The item's points when met, else 0."""
        return self.item.points if self.criteria_met else 0.0

    def to_dict(self) -> dict[str, object]:
        """The ``result_by_rubrics`` entry (HealthBench's form)."""
        return {
            "criterion": self.item.criterion,
            "points": self.item.points,
            "tags": list(self.item.tags),
            "criteria_met": self.criteria_met,
            "explanation": self.explanation,
            "signed_score": self.signed_score,
        }


@dataclass(frozen=True)
class RubricOutcome:
    """A sample's rubric result."""

    results: tuple[ItemResult, ...]
    total_score: float
    theoretical_score: float

    @property
    def score_rate(self) -> float | None:
        """total / theoretical, or None when no item has positive points."""
        if self.theoretical_score <= 0:
            return None
        return self.total_score / self.theoretical_score

    def to_dict(self) -> dict[str, object]:
        """``result_by_rubrics``, ``total_score``, ``theoretical_score``, ``score_rate``."""
        return {
            "result_by_rubrics": [r.to_dict() for r in self.results],
            "total_score": self.total_score,
            "theoretical_score": self.theoretical_score,
            "score_rate": self.score_rate,
        }


def outcome_of(results: Sequence[ItemResult]) -> RubricOutcome:
    """Sum the signed scores and the positive points of ``results``."""
    total = sum(r.signed_score for r in results)
    theoretical = sum(r.item.points for r in results if r.item.points > 0)
    return RubricOutcome(tuple(results), float(total), float(theoretical))


def tag_rates(results: Sequence[ItemResult], prefixes: Sequence[str]) -> dict[str, float | None]:
    """The score rate over the items of each tag that starts with one of ``prefixes``
    (None when the tag's items have no positive points)."""
    tags = sorted({t for r in results for t in r.item.tags if t.startswith(tuple(prefixes))})
    return {tag: outcome_of([r for r in results if tag in r.item.tags]).score_rate for tag in tags}


def clipped(rate: float) -> float:
    """HealthBench's per-sample clipping to [0, 1]."""
    return min(1.0, max(0.0, rate))
