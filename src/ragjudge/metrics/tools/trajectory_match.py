"""``trajectory_match``: 1 when the calls made follow the expected trajectory in the
chosen mode, else 0."""

from __future__ import annotations

from typing import ClassVar, Literal

from ragjudge.metrics._base import MetricContext, MetricOptions, Result
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.tools._calls import (
    ArgumentOptions,
    ToolMetric,
    actual_calls,
    expected_calls,
    pairing,
    pairs_detail,
    unpaired_names,
)
from ragjudge.metrics.tools._trajectory import in_order, subsequence
from ragjudge.schema import ExpectedToolCall, Output, Sample, ScoreMeaning, ToolCall

Pairs = list[tuple[int, int]]


class TrajectoryOptions(ArgumentOptions):
    """The mode, and whether arguments count (names only by default)."""

    mode: Literal["strict", "unordered", "subset", "superset"] = "strict"
    """``strict``: the expected calls in their order and nothing else; ``unordered``:
    the same calls in any order; ``subset``: every call made was expected; ``superset``:
    every expected call was made (in order when some expected call has an ``order``)."""
    match_arguments: bool = False
    """Whether a call must also match the expected arguments."""


@register_metric("trajectory_match")
class TrajectoryMatch(ToolMetric):
    """1 when the agent's calls follow the expected trajectory in the ``mode`` chosen,
    else 0."""

    Options: ClassVar[type[MetricOptions]] = TrajectoryOptions
    options: TrajectoryOptions
    meaning = ScoreMeaning(
        binary=True, description="share of samples whose tool calls follow the expected ones"
    )

    def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        """1 or 0, with the pairing and the calls missing or not expected."""
        expected = expected_calls(sample)
        actual = actual_calls(output)
        pairs = self._pairs(expected, actual)
        found = pairs is not None
        shown = pairs if pairs is not None else pairing(expected, actual, self._arguments())
        missing = unpaired_names(expected, {i for i, _ in shown})
        extra = unpaired_names(actual, {j for _, j in shown})
        verdict = "follow" if found else "do not follow"
        rationale = f"the calls {verdict} the expected trajectory ({self.options.mode})"
        if missing:
            rationale += f"; missing: {', '.join(missing)}"
        if extra:
            rationale += f"; not expected: {', '.join(extra)}"
        details = {
            "mode": self.options.mode,
            "pairs": pairs_detail(shown),
            "missing": missing,
            "extra": extra,
        }
        return Result(float(found), rationale=rationale, details=details)

    def _arguments(self) -> ArgumentOptions | None:
        return self.options if self.options.match_arguments else None

    def _pairs(self, expected: list[ExpectedToolCall], actual: list[ToolCall]) -> Pairs | None:
        """The pairs that make the calls follow the trajectory, or None."""
        mode, arguments = self.options.mode, self._arguments()
        if mode == "strict":
            return in_order(expected, actual, arguments)
        if mode == "superset" and any(c.order is not None for c in expected):
            return subsequence(expected, actual, arguments)
        pairs = pairing(expected, actual, arguments)
        complete = {
            "unordered": len(pairs) == len(expected) == len(actual),
            "subset": len(pairs) == len(actual),
            "superset": len(pairs) == len(expected),
        }[mode]
        return pairs if complete else None
