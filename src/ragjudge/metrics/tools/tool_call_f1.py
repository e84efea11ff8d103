"""``tool_call_f1``: the harmonic mean of tool call precision and recall (by name)."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.tools._overlap import OverlapMetric
from ragjudge.schema import ScoreMeaning


@register_metric("tool_call_f1")
class ToolCallF1(OverlapMetric):
    """2 × matched / (expected + made): precision and recall of the calls by name."""

    meaning = ScoreMeaning(description="F1 of the tool calls made against the expected ones")

    def value(self, matched: int, expected: int, actual: int) -> float:
        """F1 from the counts."""
        return 2 * matched / (expected + actual)
