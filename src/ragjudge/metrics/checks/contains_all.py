"""``contains_all``: 1 when the response contains every one of the given values."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.checks._values import ContainsMetric
from ragjudge.schema import ScoreMeaning


@register_metric("contains_all")
class ContainsAll(ContainsMetric):
    """1 when the response contains every one of ``values`` (and of the row's
    ``values_from`` field)."""

    meaning = ScoreMeaning(binary=True, description="share of responses containing every value")

    def decide(self, found: int, wanted: int) -> bool:
        """Every value found."""
        return found == wanted
