"""``matched_context_precision``: the share of the retrieved chunks that match a reference
context, without a judge."""

from __future__ import annotations

from ragjudge.metrics._base import MetricContext, Result
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.retrieval._matching import MatchedContextMetric
from ragjudge.schema import Output, Sample, ScoreMeaning


@register_metric("matched_context_precision")
class MatchedContextPrecision(MatchedContextMetric):
    """Retrieved chunks whose similarity with some reference context reaches the
    threshold / retrieved chunks (0 when nothing was retrieved); by shared words or by
    embeddings, no judge."""

    calls_per_sample = "0, plus embeddings with similarity: embedding"
    meaning = ScoreMeaning(description="share of the retrieved chunks matching a reference context")

    async def compute(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        """The precision, with each chunk's best similarity in the details."""
        found = await self.similarities(sample, output, ctx)
        best = found.best_per_chunk()
        matched = [i for i, s in enumerate(best) if s >= found.threshold]
        value = len(matched) / len(best) if best else 0.0
        return Result(
            value,
            rationale=f"{len(matched)} of {len(best)} retrieved chunks match a reference context",
            details={"similarities": best, "matched": matched, "threshold": found.threshold},
        )
