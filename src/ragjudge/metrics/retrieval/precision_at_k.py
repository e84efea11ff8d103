"""``precision_at_k``: the share of the top ``k`` retrieved places that hold a relevant
expected document."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.retrieval._documents import RankInputs
from ragjudge.metrics.retrieval._ranks import CutoffOptions, RankMetric, precision
from ragjudge.schema import ScoreMeaning


@register_metric("precision_at_k")
class PrecisionAtK(RankMetric):
    """Relevant expected documents in the top ``k`` retrieved chunks / ``k``; a repeat of
    a document, and a place the retrieval left empty, count as not relevant."""

    options: CutoffOptions
    meaning = ScoreMeaning(
        description="share of the top k retrieved places holding an expected document"
    )

    def value(self, inputs: RankInputs) -> float:
        """Precision@k."""
        return precision(inputs.gains(self.options.k), self.options.k)
