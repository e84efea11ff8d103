"""``response/llm_judged/relevance_to_query/rating``: does the response address the
request? A yes/no judge of Databricks Agent Evaluation; stored as 1 (yes)
or 0 (no), so the mean is the share of relevant responses."""

from __future__ import annotations

from typing import Any

from ragjudge.metrics._base import MetricContext, require_response
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.databricks._shared import (
    RESPONSE,
    DatabricksJudge,
    conversation,
    rating_meaning,
)
from ragjudge.schema import Output, Sample


@register_metric("relevance_to_query")
class RelevanceToQuery(DatabricksJudge):
    """Yes when the response addresses the request (the whole conversation is shown),
    whether or not it is correct; the judge's rationale is kept."""

    requires: tuple[str, ...] = (RESPONSE,)
    fixed_score_name = "response/llm_judged/relevance_to_query/rating"
    meaning = rating_meaning("share of responses relevant to the request")
    template = "relevance_to_query.jinja"

    async def prompt_values(
        self, sample: Sample, output: Output, ctx: MetricContext
    ) -> dict[str, Any]:
        """The conversation before the request, the request and the response."""
        return {**conversation(sample), "response": require_response(output)}
