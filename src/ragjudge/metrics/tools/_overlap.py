"""What ``tool_call_precision``, ``tool_call_recall`` and ``tool_call_f1`` share: the
expected and actual calls paired by name, as multisets."""

from __future__ import annotations

from ragjudge.metrics._base import MetricContext, Result
from ragjudge.metrics.tools._calls import (
    ToolMetric,
    actual_calls,
    expected_calls,
    pairing,
    pairs_detail,
    unpaired_names,
)
from ragjudge.schema import Output, Sample

__all__ = ["OverlapMetric"]


class OverlapMetric(ToolMetric):
    """A share of the calls matched by name; :meth:`value` picks which."""

    def value(self, matched: int, expected: int, actual: int) -> float:
        """The metric's share from the counts."""
        raise NotImplementedError

    def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        """The share, with the pairing and the missing and extra calls."""
        expected = expected_calls(sample)
        actual = actual_calls(output)
        pairs = pairing(expected, actual, None)
        missing = unpaired_names(expected, {i for i, _ in pairs})
        extra = unpaired_names(actual, {j for _, j in pairs})
        rationale = f"{len(pairs)} of {len(expected)} expected calls made, {len(actual)} made"
        if missing:
            rationale += f"; missing: {', '.join(missing)}"
        if extra:
            rationale += f"; not expected: {', '.join(extra)}"
        details = {"pairs": pairs_detail(pairs), "missing": missing, "extra": extra}
        value = self.value(len(pairs), len(expected), len(actual))
        return Result(value, rationale=rationale, details=details)
