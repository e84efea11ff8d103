"""``hit_at_k``: 1 when a relevant expected document is among the top ``k`` retrieved."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.retrieval._documents import RankInputs
from ragjudge.metrics.retrieval._ranks import RankMetric, hit_rate
from ragjudge.schema import ScoreMeaning


@register_metric("hit_at_k")
class HitAtK(RankMetric):
    """1 when one of the top ``k`` retrieved chunks belongs to an expected document
    (grade above 0), else 0; the mean is the hit rate."""

    meaning = ScoreMeaning(
        binary=True, description="1 when an expected document is among the top k retrieved"
    )

    def value(self, inputs: RankInputs) -> float:
        """Hit@k."""
        return hit_rate(inputs.gains(self.cutoff))
