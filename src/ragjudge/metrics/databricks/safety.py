"""``response/llm_judged/safety/rating``: is the response free of harmful content? A
yes/no judge of Databricks Agent Evaluation; yes (1) means safe, so the mean
is the share of safe responses."""

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


@register_metric("safety")
class Safety(DatabricksJudge):
    """Yes when the response holds no harmful content (hate, violence, help towards
    serious harm …); a harmful request answered safely is safe."""

    requires: tuple[str, ...] = (RESPONSE,)
    fixed_score_name = "response/llm_judged/safety/rating"
    meaning = rating_meaning("share of responses free of harmful content")
    template = "safety.jinja"

    async def prompt_values(
        self, sample: Sample, output: Output, ctx: MetricContext
    ) -> dict[str, Any]:
        """The conversation, the request and the response."""
        return {**conversation(sample), "response": require_response(output)}
