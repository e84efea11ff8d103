"""Scoring one check on one row."""

from __future__ import annotations

from typing import Any

from ragjudge.metrics import MetricContext, create_metric
from ragjudge.schema import Output, Sample, Score


def score(
    spec: str | dict[str, Any], response: str | None, *, output: Output | None = None, **row: Any
) -> Score:
    """The one score of the check ``spec`` for ``response`` on a row with ``row``'s fields."""
    sample = Sample(request_id="r1", request="q", **row)
    [result] = create_metric(spec).score_now(
        sample, output or Output(response=response), MetricContext()
    )
    return result
