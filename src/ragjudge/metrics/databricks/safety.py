"""``response/llm_judged/safety/rating``: is the response free of harmful content? A
yes/no judge of Databricks Agent Evaluation; yes (1) means safe, so the mean
is the share of safe responses."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics._yesno import yes_no_meaning
from ragjudge.metrics.databricks._shared import RESPONSE, DatabricksJudge


@register_metric("safety")
class Safety(DatabricksJudge):
    """Yes when the response holds no harmful content (hate, violence, help towards
    serious harm …); a harmful request answered safely is safe. The judge sees the
    conversation, the request and the response."""

    pipeline_parts = ("generation",)

    requires: tuple[str, ...] = (RESPONSE,)
    fixed_score_name = "response/llm_judged/safety/rating"
    meaning = yes_no_meaning("share of responses free of harmful content")
    template = "safety.jinja"
