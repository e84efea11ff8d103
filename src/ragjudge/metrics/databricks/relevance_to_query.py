"""``response/llm_judged/relevance_to_query/rating``: does the response address the
request? A yes/no judge of Databricks Agent Evaluation; stored as 1 (yes)
or 0 (no), so the mean is the share of relevant responses."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics._yesno import yes_no_meaning
from ragjudge.metrics.databricks._shared import RESPONSE, DatabricksJudge


@register_metric("relevance_to_query")
class RelevanceToQuery(DatabricksJudge):
    """Yes when the response addresses the request (the whole conversation is shown),
    whether or not it is correct; the judge's rationale is kept."""

    pipeline_parts = ("retrieval", "generation")

    requires: tuple[str, ...] = (RESPONSE,)
    fixed_score_name = "response/llm_judged/relevance_to_query/rating"
    meaning = yes_no_meaning("share of responses relevant to the request")
    template = "relevance_to_query.jinja"
