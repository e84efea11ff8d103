"""``context_utilization`` (RAGAS): were the retrieved chunks used by the response?

The verdicts of ``context_precision``, judged against the response instead of the
reference (shared with ``context_precision`` when the row has no reference), scored
with the same rank-aware average precision (``ranked: false``: the plain share).
"""

from __future__ import annotations

from ragjudge.metrics._base import MetricFailure, Produced, require_response
from ragjudge.metrics._judged import JudgedMetric, Judging
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.ragas._common import retrieved_contexts
from ragjudge.metrics.ragas._usefulness import PrecisionOptions, usefulness, usefulness_result
from ragjudge.schema import Output, Sample, ScoreMeaning


@register_metric("context_utilization")
class ContextUtilization(JudgedMetric):
    """Rank-aware precision of the retrieved chunks judged against the response."""

    pipeline_parts = ("retrieval", "generation")

    calls_per_sample = "1 (shared with context_precision without a reference)"

    Options = PrecisionOptions
    options: PrecisionOptions
    requires: tuple[str, ...] = ("response", "retrieved_context")
    meaning = ScoreMeaning(description="chunks the response used, ranked first")

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """One call over the chunks (or one per chunk), shared with precision."""
        chunks = retrieved_contexts(sample, output)[: self.options.max_chunks]
        if not chunks:
            raise MetricFailure("no retrieved chunks (context utilization undefined)")
        verdicts = await usefulness(
            j, sample.request.query, require_response(output), chunks, self.options.per_chunk
        )
        return usefulness_result(chunks, verdicts, ranked=self.options.ranked)
