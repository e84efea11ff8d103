"""``response/llm_judged/relevance_to_query/rating``: does the response address the
request? A yes/no judge of Databricks Agent Evaluation (seed 001); stored as 1 (yes)
or 0 (no), so the mean is the share of relevant responses."""

from __future__ import annotations

from typing import Any

from ragjudge.metrics._base import MetricContext, Result, require_response
from ragjudge.metrics._judged import JudgedMetric
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.replies import YesNo, YesNoVerdict
from ragjudge.schema import Output, Sample, ScoreMeaning


@register_metric("relevance_to_query")
class RelevanceToQuery(JudgedMetric):
    """Yes when the response addresses the request (the whole conversation is shown),
    whether or not it is correct; the judge's rationale is kept."""

    requires: tuple[str, ...] = ("response",)
    fixed_score_name = "response/llm_judged/relevance_to_query/rating"
    meaning = ScoreMeaning(binary=True, description="share of responses relevant to the request")
    template = "relevance_to_query.jinja"
    reply = YesNo()

    async def prompt_values(
        self, sample: Sample, output: Output, ctx: MetricContext
    ) -> dict[str, Any]:
        """The conversation before the request, the request and the response."""
        return {
            "history": [m.model_dump() for m in sample.request.history],
            "request": sample.request.query,
            "response": require_response(output),
        }

    def value(self, reply: YesNoVerdict) -> Result:
        """1 for yes, 0 for no, with the judge's rationale and the label."""
        return Result(float(reply.yes), rationale=reply.rationale, details={"label": reply.label})
