"""``tool_steps``: the number of tool calls the agent made, or whether it stayed within
``max_steps``."""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from ragjudge.metrics._base import MetricContext, MetricOptions, Result
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.tools._calls import ToolMetric, actual_calls
from ragjudge.schema import Output, Sample, ScoreMeaning


class StepsOptions(MetricOptions):
    """The most calls a pass may take; none: the number of calls is the score."""

    max_steps: int | None = Field(default=None, ge=0)


@register_metric("tool_steps")
class ToolSteps(ToolMetric):
    """The number of tool calls made (lower is better); with ``max_steps``, 1 when
    within it."""

    Options: ClassVar[type[MetricOptions]] = StepsOptions
    options: StepsOptions
    requires: tuple[str, ...] = ()
    meaning = ScoreMeaning(
        direction="lower", low=0, high=None, description="number of tool calls made"
    )

    def meanings(self) -> dict[str, ScoreMeaning]:
        """The count, or the pass of ``max_steps``."""
        if self.options.max_steps is None:
            return {self._single_name(): self.meaning}
        within = ScoreMeaning(
            binary=True, threshold=1.0, description="share of samples within the most tool calls"
        )
        return {self._single_name(): within}

    def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        """The count, or 1/0 against ``max_steps``, with the names called."""
        calls = actual_calls(output)
        limit = self.options.max_steps
        details = {"steps": len(calls), "names": [c.name for c in calls], "max_steps": limit}
        rationale = f"{len(calls)} tool calls"
        if limit is None:
            return Result(float(len(calls)), rationale=rationale, details=details)
        rationale += f" (at most {limit} allowed)"
        return Result(float(len(calls) <= limit), rationale=rationale, details=details)
