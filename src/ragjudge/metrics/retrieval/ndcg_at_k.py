"""``ndcg_at_k``: normalised discounted cumulative gain of the top ``k`` retrieved, with
the expected documents' grades as gains (1 each without grades)."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.retrieval._documents import RankInputs
from ragjudge.metrics.retrieval._ranks import CutoffOptions, RankMetric, ndcg
from ragjudge.schema import ScoreMeaning


@register_metric("ndcg_at_k")
class NdcgAtK(RankMetric):
    """Σ gain / log2(rank + 1) over the top ``k`` retrieved chunks, divided by the same
    sum for the ideal ranking; a chunk's gain is its document's grade (``grade`` in
    ``expected_retrieved_context``, 1 when absent; 0 for a document not expected or a
    repeat)."""

    options: CutoffOptions
    meaning = ScoreMeaning(description="ranking quality of the top k retrieved (graded)")

    def value(self, inputs: RankInputs) -> float:
        """NDCG@k."""
        k = self.options.k
        return ndcg(inputs.gains(k), list(inputs.relevant.values()), k)
