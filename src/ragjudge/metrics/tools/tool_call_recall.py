"""``tool_call_recall``: the share of the expected calls that were made (by name)."""

from __future__ import annotations

from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.tools._overlap import OverlapMetric
from ragjudge.schema import ScoreMeaning


@register_metric("tool_call_recall")
class ToolCallRecall(OverlapMetric):
    """Expected calls paired with a call of the same name / expected calls (two expected
    ``search`` calls and one made: 0.5)."""

    meaning = ScoreMeaning(description="share of the expected tool calls that were made")

    def value(self, matched: int, expected: int, actual: int) -> float:
        """Recall."""
        return matched / expected
