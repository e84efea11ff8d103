"""What ``latency`` and ``cost`` share: a measured amount of the system under test,
scored as it is (lower is better) or, with a limit, as a pass (1) when within it."""

from __future__ import annotations

from ragjudge.metrics._base import MetricContext, Result, require_response
from ragjudge.metrics.checks._shared import CheckMetric, passed
from ragjudge.schema import Output, Sample, ScoreMeaning

__all__ = ["MeasuredMetric"]


class MeasuredMetric(CheckMetric):
    """Base of the checks of an amount the system under test spends per sample."""

    unit = ""
    """The amount's unit in words (``seconds``, ``dollars``)."""
    raw_meaning = ScoreMeaning()
    within_meaning = ScoreMeaning()

    def limit(self) -> float | None:
        """The most the amount may be for a pass, or None to score the amount itself."""
        raise NotImplementedError

    def amount(self, output: Output) -> float:
        """The amount the system under test spent on this sample."""
        raise NotImplementedError

    def meanings(self) -> dict[str, ScoreMeaning]:
        """The amount (lower is better), or the pass of a limit (higher is better, a
        sample passes when within it)."""
        if self.limit() is None:
            return {self._single_name(): self.raw_meaning}
        return {self._single_name(): self.within_meaning.model_copy(update={"threshold": 1.0})}

    def compute_now(self, sample: Sample, output: Output, ctx: MetricContext) -> Result:
        """The amount, or the pass against the limit with the amount in the details."""
        require_response(output)
        spent = self.amount(output)
        details = {self.unit: spent}
        limit = self.limit()
        if limit is None:
            return Result(spent, details=details)
        return Result(passed(spent <= limit), details={**details, "limit": limit})
