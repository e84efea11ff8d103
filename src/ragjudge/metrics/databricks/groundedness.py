"""``response/llm_judged/groundedness/rating``: is every claim of the response
supported by the context the application retrieved? A yes/no judge of Databricks Agent
Evaluation; the mean is the share of grounded responses."""

from __future__ import annotations

from typing import Any

from ragjudge.metrics._base import MetricContext, require_response
from ragjudge.metrics._judged import conversation
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics._yesno import yes_no_meaning
from ragjudge.metrics.databricks._shared import CONTEXTS, RESPONSE, DatabricksJudge
from ragjudge.schema import Output, Sample


@register_metric("groundedness")
class Groundedness(DatabricksJudge):
    """Yes when the retrieved context supports every factual claim of the response (an
    empty retrieval is shown as such); needs the retrieved context or a trace."""

    pipeline_parts = ("generation",)

    requires: tuple[str, ...] = (RESPONSE, CONTEXTS)
    fixed_score_name = "response/llm_judged/groundedness/rating"
    meaning = yes_no_meaning("share of responses supported by the retrieved context")
    template = "groundedness.jinja"

    async def prompt_values(
        self, sample: Sample, output: Output, ctx: MetricContext
    ) -> dict[str, Any]:
        """The conversation, the retrieved chunks and the response."""
        response = require_response(output)
        contexts = self.contexts(output)
        return {**conversation(sample), "contexts": contexts, "response": response}
