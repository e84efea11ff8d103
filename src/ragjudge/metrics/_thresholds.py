"""A metric's per-sample pass threshold (``threshold``): read from a metric entry or a
keyword argument, and checked against the range of every score the metric gives.

The threshold lands in the meaning of each score (:attr:`ScoreMeaning.threshold`), so a
stored run knows whether each sample passed without the metric registry. A metric whose
own options take a ``threshold`` (a similarity's match threshold) keeps it as its
option."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ragjudge.metrics._threshold_value import THRESHOLD as THRESHOLD
from ragjudge.metrics._threshold_value import pass_threshold as pass_threshold
from ragjudge.schema import ScoreMeaning

if TYPE_CHECKING:
    from ragjudge.metrics._base import Metric

__all__ = [
    "THRESHOLD",
    "check_threshold",
    "pass_threshold",
    "takes_pass_threshold",
    "thresholded_meanings",
]


def takes_pass_threshold(cls: type[Metric]) -> bool:
    """Whether ``threshold`` given to ``cls`` is the kit's pass threshold: neither the
    class's options nor its own keyword arguments take one of their own."""
    if THRESHOLD in cls.Options.model_fields:
        return False
    own = cls.__init__
    parameters = inspect.signature(own).parameters
    return THRESHOLD not in parameters


def check_threshold(metric: Metric) -> None:
    """Refuse (``ValueError`` naming the metric) a threshold on a metric whose scores are
    choices, or one outside the range of any of its scores."""
    threshold = metric.threshold
    if threshold is None:
        return
    who = f"metric {metric.name!r}"
    if metric.threshold_refused is not None:
        raise ValueError(f"{who}: takes no 'threshold': {metric.threshold_refused}")
    for name, meaning in metric.meanings().items():
        if not meaning.contains(threshold):
            raise ValueError(
                f"{who}: 'threshold' {threshold:g} is outside the range of the score "
                f"{name!r} ({_range(meaning.low, meaning.high)})"
            )


def thresholded_meanings(
    metric: Metric, meanings: Mapping[str, ScoreMeaning]
) -> dict[str, ScoreMeaning]:
    """``meanings`` of ``metric``'s scores, each with the metric's pass threshold when it
    has one."""
    if metric.threshold is None:
        return dict(meanings)
    update = {"threshold": metric.threshold}
    return {name: meaning.model_copy(update=update) for name, meaning in meanings.items()}


def _range(low: float | None, high: float | None) -> str:
    shown_low = "-inf" if low is None else f"{low:g}"
    shown_high = "inf" if high is None else f"{high:g}"
    return f"{shown_low} to {shown_high}"
