"""``faithfulness`` (RAGAS): how much of the response the retrieved contexts support.

The judge breaks the response into statements (question-aware; shared with
``answer_correctness``), then checks every statement against the contexts in one call,
with a reason and a yes/no verdict each: ``|supported| / |statements|``.

Rules: a response with no statement (empty, "I don't know") is an error — the share is
undefined; a target that retrieved nothing (an empty list) scores 0 without a verdict
call (nothing supports any statement), while contexts missing from both the target and
the row are an error; a verdict count that differs from the statement count is re-asked, then
an error.
"""

from __future__ import annotations

from ragjudge.metrics._base import MetricFailure, Produced, Result, require_response
from ragjudge.metrics._judged import JudgedMetric, Judging
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.ragas._common import (
    CountedVerdicts,
    retrieved_contexts,
    statements_of,
    verdicts_result,
)
from ragjudge.schema import Output, Sample, ScoreMeaning


@register_metric("faithfulness")
class Faithfulness(JudgedMetric):
    """Share of the response's statements that the retrieved contexts support."""

    pipeline_parts = ("generation",)

    calls_per_sample = "2 (statements, shared with answer_correctness; verdicts)"

    requires: tuple[str, ...] = ("response", "retrieved_context")
    meaning = ScoreMeaning(description="share of the response's statements the contexts support")

    async def judge(self, sample: Sample, output: Output, j: Judging) -> Produced:
        """Statements, then one verdict call over all of them."""
        response = require_response(output)
        statements = await statements_of(j, sample.request.query, response)
        if not statements:
            raise MetricFailure("the response makes no statement to check (faithfulness undefined)")
        contexts = retrieved_contexts(sample, output)
        if not contexts:
            details = {"statements": statements, "size": len(statements), "contexts": 0}
            return Result(
                0.0, rationale="no contexts: nothing supports the statements", details=details
            )
        verdicts = (
            await j.ask(
                CountedVerdicts(len(statements)),
                "faithfulness.jinja",
                purpose=f"{self.name}.verdicts",
                statements=statements,
                contexts=contexts,
            )
        ).value
        return verdicts_result(
            statements, verdicts, item="statement", said_yes="statements supported"
        )
