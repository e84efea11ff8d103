"""``is_json``: 1 when the response is one JSON document."""

from __future__ import annotations

from ragjudge.metrics._base import MetricContext, Result, require_response
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.checks._json import FenceOptions, NotJson, parse_response
from ragjudge.metrics.checks._shared import CheckMetric
from ragjudge.schema import Output, Sample, ScoreMeaning


@register_metric("is_json")
class IsJson(CheckMetric):
    """1 when the response parses as JSON (with ``strip_fence``, after taking off a
    Markdown code fence around it); a fail says where the text breaks."""

    Options = FenceOptions
    options: FenceOptions
    meaning = ScoreMeaning(binary=True, description="share of responses that are valid JSON")

    def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        """Pass, or fail with the parser's complaint as the rationale."""
        try:
            parse_response(require_response(output), self.options)
        except NotJson as exc:
            return Result(0.0, rationale=str(exc))
        return Result(1.0)
