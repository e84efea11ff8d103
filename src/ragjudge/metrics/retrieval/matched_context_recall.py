"""``matched_context_recall``: the share of the reference contexts that some retrieved
chunk matches, without a judge."""

from __future__ import annotations

from ragjudge.metrics._base import MetricContext, Result
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.retrieval._matching import MatchedContextMetric
from ragjudge.schema import Output, Sample, ScoreMeaning


@register_metric("matched_context_recall")
class MatchedContextRecall(MatchedContextMetric):
    """Reference contexts whose similarity with some retrieved chunk reaches the
    threshold / reference contexts; by shared words or by embeddings, no judge."""

    calls_per_sample = "0, plus embeddings with similarity: embedding"
    meaning = ScoreMeaning(description="share of the reference contexts a retrieved chunk matches")

    async def compute(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        """The recall, with each reference context's best similarity in the details."""
        found = await self.similarities(sample, output, ctx)
        best = found.best_per_reference()
        matched = [j for j, s in enumerate(best) if s >= found.threshold]
        return Result(
            len(matched) / len(best),
            rationale=f"{len(matched)} of {len(best)} reference contexts matched by a retrieved chunk",
            details={"similarities": best, "matched": matched, "threshold": found.threshold},
        )
