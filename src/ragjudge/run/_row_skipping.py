"""``skip_invalid_rows``: a metric does not apply to the rows that lack its inputs (a
NaN cell, an empty column in some rows) — they are stored as not applicable and
reported — instead of the whole run being refused. A metric whose input no row has at
all is still refused: that is a misnamed column, not a gap."""

from __future__ import annotations

from collections.abc import Sequence

from ragjudge.metrics import Metric
from ragjudge.schema import Sample

__all__ = ["lacking_rows", "missing_everywhere", "skip_rows_lacking_inputs"]

TARGET_FIELDS = ("response", "retrieved_context", "trace")
"""Fields a target that answers supplies for every row."""


def lacking_rows(
    samples: Sequence[Sample], metric: Metric, *, supplies_response: bool
) -> dict[str, str]:
    """Request id → why ``metric`` does not apply to that row (the inputs it lacks)."""
    lacking: dict[str, list[str]] = {}
    for requirement in metric.requires:
        alternatives = requirement.split("|")
        if supplies_response and any(a in TARGET_FIELDS for a in alternatives):
            continue
        wanted = " or ".join(repr(a) for a in alternatives)
        for sample in samples:
            if not any(sample.has_field(a) for a in alternatives):
                lacking.setdefault(sample.request_id, []).append(wanted)
    return {rid: f"the row has no {', '.join(fields)}" for rid, fields in lacking.items()}


def missing_everywhere(
    samples: Sequence[Sample], metric: Metric, *, supplies_response: bool
) -> list[str]:
    """The requirements of ``metric`` (``'a' or 'b'``) that no row meets."""
    missing = []
    for requirement in metric.requires:
        alternatives = requirement.split("|")
        if supplies_response and any(a in TARGET_FIELDS for a in alternatives):
            continue
        if not any(s.has_field(a) for s in samples for a in alternatives):
            missing.append(" or ".join(repr(a) for a in alternatives))
    return missing


def skip_rows_lacking_inputs(metric: Metric, lacking: dict[str, str]) -> None:
    """Make ``metric`` not applicable to the rows in ``lacking`` (request id → reason):
    the runner gives them not-applicable scores and scores the others as before."""
    if lacking:
        metric.rows_not_applicable = {**metric.rows_not_applicable, **lacking}
