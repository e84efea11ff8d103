"""``tool_call_precision``: the share of the calls made that were expected (by name)."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.tools._overlap import OverlapMetric
from ragjudge.schema import ScoreMeaning


@register_metric("tool_call_precision")
class ToolCallPrecision(OverlapMetric):
    """Calls made that pair with an expected call of the same name / calls made (1 when
    none were made)."""

    meaning = ScoreMeaning(description="share of the tool calls made that were expected")

    def value(self, matched: int, expected: int, actual: int) -> float:
        """Precision; no calls made claims nothing wrong."""
        return matched / actual if actual else 1.0
