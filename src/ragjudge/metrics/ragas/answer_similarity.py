"""``answer_similarity`` (RAGAS): semantic similarity of the response and the reference.

The cosine of the normalised embeddings of the response and the reference answer (the
best over several references), from ``embedding`` (``local`` or ``openai/<model>``).
With ``threshold`` the score is 1 at or above it and 0 below. No judge call.

Rules: an empty response is compared like any text (its embedding is that of the empty
string); blank references are an error.
"""

from __future__ import annotations

from pydantic import Field

from ragjudge.metrics._base import (
    Metric,
    MetricContext,
    MetricOptions,
    Result,
    references,
    require_response,
)
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.ragas._common import cosine
from ragjudge.schema import Output, Sample, ScoreMeaning


class SimilarityOptions(MetricOptions):
    embedding: str = "local"
    threshold: float | None = Field(default=None, ge=-1.0, le=1.0)
    """Score 1 when the similarity is at least this, else 0."""


async def best_similarity(
    ctx: MetricContext, spec: str, response: str, sample: Sample
) -> tuple[float, int]:
    """The highest cosine of the response with a reference, and that reference's index."""
    found = references(sample)
    similarities = await cosine(ctx, spec, response, [text for _, text in found])
    best = max(range(len(found)), key=lambda i: similarities[i])
    return similarities[best], found[best][0]


@register_metric("answer_similarity")
class AnswerSimilarity(Metric):
    """Cosine similarity of response and reference embeddings (optionally thresholded)."""

    pipeline_parts = ("end to end",)

    calls_per_sample = "0, plus embeddings"

    Options = SimilarityOptions
    options: SimilarityOptions
    requires: tuple[str, ...] = ("response", "expected_response")
    meaning = ScoreMeaning(low=-1, high=1, description="semantic similarity to the reference")

    def meanings(self) -> dict[str, ScoreMeaning]:
        """The similarity, or with the ``threshold`` option a yes/no score (a sample
        passes when its similarity reaches the threshold)."""
        threshold = self.options.threshold
        if threshold is None:
            return super().meanings()
        reached = ScoreMeaning(
            binary=True,
            description=f"share of responses with a similarity of at least {threshold:g}",
        )
        return {self.name: reached}

    def embedding_specs(self) -> list[str]:
        """The embedder of response and references."""
        return [self.options.embedding]

    async def compute(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        """One embedding batch of the response and every reference."""
        similarity, index = await best_similarity(
            ctx, self.options.embedding, require_response(output), sample
        )
        details = {"similarity": similarity, "reference_index": index}
        if self.options.threshold is None:
            return Result(similarity, details=details)
        passed = similarity >= self.options.threshold
        return Result(float(passed), details={**details, "threshold": self.options.threshold})
