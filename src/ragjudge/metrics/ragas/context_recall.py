"""``context_recall`` (RAGAS): how much of the reference the retrieved contexts cover.

Each sentence of the reference answer (split language-aware; with ``expected_facts``
instead, each fact is one statement) is judged attributable to the contexts or not, all
in one call: ``attributable / all``. Several reference answers: the first non-blank one.

Rules: a target that retrieved nothing (an empty list) scores 0 without a call (nothing
can be attributed), contexts missing from both the target and the row are an error; a reference with
no sentence is an error; a verdict count that differs from the sentence count is
re-asked, then an error.
"""

from __future__ import annotations

from ragjudge.metrics._base import MetricFailure, Produced, Result, references
from ragjudge.metrics._judged import JudgedMetric, Judging
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.ragas._common import CountedVerdicts, retrieved_contexts, verdicts_result
from ragjudge.schema import Output, Sample, ScoreMeaning
from ragjudge.text._normalise import split_sentences


def reference_statements(sample: Sample) -> list[str]:
    """The facts, or the sentences of the first reference answer."""
    if sample.expected_facts:
        return [fact.strip() for fact in sample.expected_facts if fact.strip()]
    return [s for s in split_sentences(references(sample)[0][1]) if s.strip()]


@register_metric("context_recall")
class ContextRecall(JudgedMetric):
    """Share of the reference's sentences (or facts) the contexts support."""

    pipeline_parts = ("retrieval",)

    calls_per_sample = "1"

    requires: tuple[str, ...] = ("retrieved_context", "expected_response|expected_facts")
    meaning = ScoreMeaning(description="share of the reference the contexts support")

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """One verdict call over every reference sentence."""
        sentences = reference_statements(sample)
        if not sentences:
            raise MetricFailure("the reference has no sentence to attribute")
        contexts = retrieved_contexts(sample, output)
        if not contexts:
            return Result(0.0, rationale="no contexts", details={"size": len(sentences)})
        verdicts = (
            await j.ask(
                CountedVerdicts(len(sentences)),
                "context_recall.jinja",
                question=sample.request.query,
                contexts=contexts,
                sentences=sentences,
            )
        ).value
        return verdicts_result(
            sentences, verdicts, item="sentence", said_yes="reference sentences attributable"
        )
