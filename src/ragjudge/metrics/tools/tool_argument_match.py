"""``tool_argument_match``: of the expected calls that name their arguments, the share
made with matching arguments."""

from __future__ import annotations

from typing import ClassVar

from ragjudge.metrics._base import MetricContext, MetricOptions, NotApplicable, Result
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.tools._calls import (
    ArgumentOptions,
    ToolMetric,
    actual_calls,
    expected_calls,
    pairing,
    pairs_detail,
)
from ragjudge.schema import Output, Sample, ScoreMeaning


@register_metric("tool_argument_match")
class ToolArgumentMatch(ToolMetric):
    """Expected calls with ``arguments`` paired with a call of the same name whose
    arguments match / expected calls with ``arguments``; each call made pairs with at
    most one expected call (a maximum matching)."""

    Options: ClassVar[type[MetricOptions]] = ArgumentOptions
    options: ArgumentOptions
    meaning = ScoreMeaning(
        description="share of the expected tool calls made with the expected arguments"
    )

    def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        """The share, with the pairing and the calls without a match."""
        positions = [k for k, c in enumerate(expected_calls(sample)) if c.arguments is not None]
        checked = [expected_calls(sample)[k] for k in positions]
        if not checked:
            raise NotApplicable("no expected tool call names its arguments")
        actual = actual_calls(output)
        pairs = pairing(checked, actual, self.options)
        paired = {i for i, _ in pairs}
        unmatched = [f"{c.name}({c.arguments})" for i, c in enumerate(checked) if i not in paired]
        rationale = f"{len(pairs)} of {len(checked)} expected calls made with matching arguments"
        if unmatched:
            rationale += f"; no match for: {'; '.join(unmatched)}"
        pairs = [(positions[i], j) for i, j in pairs]
        details = {"pairs": pairs_detail(pairs), "unmatched": unmatched}
        return Result(len(pairs) / len(checked), rationale=rationale, details=details)
