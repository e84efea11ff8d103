"""``contains_any``: 1 when the response contains at least one of the given values."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.checks._values import ContainsMetric
from ragjudge.schema import ScoreMeaning


@register_metric("contains_any")
class ContainsAny(ContainsMetric):
    """1 when the response contains at least one of ``values`` (and of the row's
    ``values_from`` field)."""

    meaning = ScoreMeaning(
        binary=True, description="share of responses containing at least one of the values"
    )

    def decide(self, found: int, wanted: int) -> bool:
        """At least one value found."""
        return found > 0
