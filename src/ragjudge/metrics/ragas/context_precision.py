"""``context_precision`` (RAGAS): are the retrieved chunks useful, and ranked first?

Each chunk is judged useful (yes/no, with a reason) for arriving at the reference
answer — or at the response when the row has no reference — in one call. The score is
rank-aware average precision as RAGAS defines it: the mean of precision@k over the
positions k of the useful chunks; ``ranked: false`` gives the plain
``useful / all``. ``per_chunk: true`` judges each chunk in a call of its own.

Rules: no useful chunk scores 0; no chunk at all is an error (undefined); only the first
``max_chunks`` chunks are judged.
"""

from __future__ import annotations

from ragjudge.metrics._base import MetricFailure, Produced, references, require_response
from ragjudge.metrics._judged import JudgedMetric, Judging
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.ragas._common import retrieved_contexts
from ragjudge.metrics.ragas._usefulness import PrecisionOptions, usefulness, usefulness_result
from ragjudge.schema import Output, Sample, ScoreMeaning


@register_metric("context_precision")
class ContextPrecision(JudgedMetric):
    """Rank-aware precision of the retrieved chunks judged against the reference."""

    pipeline_parts = ("retrieval",)

    calls_per_sample = "1 (1 per chunk with per_chunk: true)"

    Options = PrecisionOptions
    options: PrecisionOptions
    requires: tuple[str, ...] = ("retrieved_context", "expected_response|response")
    meaning = ScoreMeaning(description="useful chunks, ranked first")

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """One call over the chunks (or one per chunk)."""
        chunks = retrieved_contexts(sample, output)[: self.options.max_chunks]
        if not chunks:
            raise MetricFailure("no retrieved chunks (context precision undefined)")
        answer = references(sample)[0][1] if sample.references else require_response(output)
        verdicts = await usefulness(j, sample.request.query, answer, chunks, self.options.per_chunk)
        result = usefulness_result(chunks, verdicts, ranked=self.options.ranked)
        result.details["judged_against"] = "reference" if sample.references else "response"
        return result
