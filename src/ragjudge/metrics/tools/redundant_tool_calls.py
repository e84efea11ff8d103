"""``redundant_tool_calls``: the calls that repeat an earlier identical call (same name
and equal arguments)."""

from __future__ import annotations

import json
from typing import ClassVar

from ragjudge.metrics._base import MetricContext, MetricOptions, Result
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.tools._calls import ToolMetric, actual_calls
from ragjudge.schema import Output, Sample, ScoreMeaning, ToolCall


class RedundantOptions(MetricOptions):
    """Whether the score is the number of repeats or their share of the calls."""

    share: bool = False
    """The repeats / the calls made (0 when none were made) instead of their number."""


@register_metric("redundant_tool_calls")
class RedundantToolCalls(ToolMetric):
    """The number of calls repeating an earlier call with the same name and equal
    arguments (lower is better); with ``share``, their share of the calls made."""

    Options: ClassVar[type[MetricOptions]] = RedundantOptions
    options: RedundantOptions
    requires: tuple[str, ...] = ()
    meaning = ScoreMeaning(
        direction="lower", low=0, high=None, description="tool calls repeating an earlier one"
    )

    def meanings(self) -> dict[str, ScoreMeaning]:
        """The number, or the share (0 to 1), of repeated calls."""
        if not self.options.share:
            return {self._single_name(): self.meaning}
        share = ScoreMeaning(
            direction="lower", description="share of the tool calls repeating an earlier one"
        )
        return {self._single_name(): share}

    def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        """The repeats, each with the earlier call it repeats."""
        calls = actual_calls(output)
        first_seen: dict[str, int] = {}
        repeats: list[dict[str, int | str]] = []
        for position, call in enumerate(calls):
            key = _identity(call)
            if key in first_seen:
                repeats.append({"call": position, "repeats": first_seen[key], "name": call.name})
            else:
                first_seen[key] = position
        rationale = f"{len(repeats)} of {len(calls)} tool calls repeat an earlier one"
        details = {"repeats": repeats, "calls": len(calls)}
        count = float(len(repeats))
        value = (count / len(calls) if calls else 0.0) if self.options.share else count
        return Result(value, rationale=rationale, details=details)


def _identity(call: ToolCall) -> str:
    """The call's name and arguments as one comparable text (keys sorted)."""
    return json.dumps([call.name, call.arguments], sort_keys=True, default=str)
