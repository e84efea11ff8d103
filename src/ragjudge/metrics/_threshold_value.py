"""The value of a metric's per-sample pass threshold, as a metric entry or a keyword
gives it (the checks against a metric's scores are in :mod:`ragjudge.metrics._thresholds`)."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["THRESHOLD", "pass_threshold"]

THRESHOLD = "threshold"
"""The key of a metric entry (and the keyword of a metric) naming its pass threshold."""


def pass_threshold(value: Any, who: str) -> float:
    """``value`` as a threshold; a ``ValueError`` naming ``who`` when it is not a finite
    number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{who}: 'threshold' must be a number, not {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{who}: 'threshold' must be a finite number, not {value!r}")
    return float(value)
