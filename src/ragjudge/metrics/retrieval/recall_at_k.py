"""``recall_at_k``: the share of the relevant expected documents among the top ``k``
retrieved."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.retrieval._documents import RankInputs
from ragjudge.metrics.retrieval._ranks import RankMetric, recall
from ragjudge.schema import ScoreMeaning


@register_metric("recall_at_k")
class RecallAtK(RankMetric):
    """Relevant expected documents found in the top ``k`` retrieved chunks / relevant
    expected documents (grade above 0)."""

    meaning = ScoreMeaning(
        description="share of the expected documents found among the top k retrieved"
    )

    def value(self, inputs: RankInputs) -> float:
        """Recall@k."""
        return recall(inputs.gains(self.cutoff), len(inputs.relevant))
