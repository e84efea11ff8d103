"""``latency``: the seconds the system under test took to answer a sample, or whether
they stayed within ``max_seconds``."""

from __future__ import annotations

from pydantic import Field

from ragjudge.metrics._base import MetricFailure, MetricOptions
from ragjudge.metrics._registry import register_metric
from ragjudge.metrics.checks._usage import MeasuredMetric
from ragjudge.schema import Output, ScoreMeaning


class LatencyOptions(MetricOptions):
    """The most seconds a pass may take; none: the seconds are the score."""

    max_seconds: float | None = Field(default=None, gt=0)


@register_metric("latency")
class Latency(MeasuredMetric):
    """The target's latency for the sample in seconds (lower is better), as the target
    measured it or its trace recorded it; with ``max_seconds``, 1 when within it."""

    Options = LatencyOptions
    options: LatencyOptions
    unit = "seconds"
    meaning = raw_meaning = ScoreMeaning(
        direction="lower", low=0, high=None, description="seconds the target took to answer"
    )
    within_meaning = ScoreMeaning(
        binary=True, description="share of answers within the latency limit"
    )

    def limit(self) -> float | None:
        """``max_seconds``."""
        return self.options.max_seconds

    def amount(self, output: Output) -> float:
        """The output's latency; :class:`MetricFailure` when it has none."""
        if output.latency is None:
            raise MetricFailure("the target reported no latency for this sample")
        return output.latency
