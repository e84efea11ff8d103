"""A metric's per-sample pass threshold (``threshold`` on its entry or instance),
checked when the metrics are built and carried into the meanings of its scores, where
the summary, the exports, the report and the test helpers read whether each sample
passed (see :mod:`ragjudge.metrics._thresholds`)."""

from __future__ import annotations

from collections.abc import Sequence

from ragjudge.metrics import Metric
from ragjudge.metrics._thresholds import check_threshold, thresholded_meanings
from ragjudge.run._wrapping import wrapped_copy
from ragjudge.schema import Sample, ScoreMeaning

__all__ = ["with_threshold"]


class _Thresholded(Metric):
    """Mixed into a copy of a metric's class: the meanings of its scores carry its pass
    threshold."""

    def meanings(self) -> dict[str, ScoreMeaning]:
        return thresholded_meanings(self, super().meanings())

    def meanings_for(self, samples: Sequence[Sample]) -> dict[str, ScoreMeaning]:
        return thresholded_meanings(self, super().meanings_for(samples))


def with_threshold(metric: Metric) -> Metric:
    """A copy of ``metric`` whose scores' meanings carry its pass threshold (checked: a
    ``ValueError`` naming the metric when it cannot apply); ``metric`` itself when it
    has none."""
    if metric.threshold is None:
        return metric
    check_threshold(metric)
    return wrapped_copy(metric, _Thresholded)
