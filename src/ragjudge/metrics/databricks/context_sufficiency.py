"""``retrieval/llm_judged/context_sufficiency/rating``: does the retrieved context
hold what a correct answer needs (every expected fact, or the information of the
expected response)? A yes/no judge of Databricks Agent Evaluation."""

from __future__ import annotations

from typing import Any

from ragjudge.metrics._base import MetricContext
from ragjudge.metrics._judged import conversation
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics._yesno import yes_no_meaning
from ragjudge.metrics.databricks._shared import CONTEXTS, EXPECTED, DatabricksJudge
from ragjudge.schema import Output, Sample


@register_metric("context_sufficiency")
class ContextSufficiency(DatabricksJudge):
    """Yes when the retrieved context is enough to give the expected answer; needs the
    retrieved context (or a trace) and expected facts or an expected response."""

    pipeline_parts = ("retrieval",)

    requires: tuple[str, ...] = (CONTEXTS, EXPECTED)
    fixed_score_name = "retrieval/llm_judged/context_sufficiency/rating"
    meaning = yes_no_meaning("share of requests whose retrieved context suffices to answer")
    template = "context_sufficiency.jinja"

    async def prompt_values(
        self, sample: Sample, output: Output, ctx: MetricContext
    ) -> dict[str, Any]:
        """The conversation, the retrieved chunks and the expected facts or response."""
        contexts = self.contexts(output)
        expected = self.expected(sample)
        return {**conversation(sample), "contexts": contexts, **expected.template_values}
