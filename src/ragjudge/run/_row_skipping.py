"""``skip_invalid_rows``: a metric does not apply to the rows that lack its inputs (a
NaN cell, an empty column in some rows) — they are stored as not applicable and
reported — instead of the whole run being refused. A metric whose input no row has at
all is still refused: that is a misnamed column, not a gap. So is, with or without
``skip_invalid_rows``, a metric that reads a field no row has
(:meth:`~ragjudge.metrics.Metric.needed_in_some_row`: a spec's slot that no metadata
key fills)."""

from __future__ import annotations

from collections.abc import Sequence

from ragjudge.errors import ConfigError
from ragjudge.metrics import Metric
from ragjudge.schema import Sample

__all__ = [
    "check_filled",
    "filled_fields",
    "lacking_rows",
    "missing_everywhere",
    "skip_rows_lacking_inputs",
]

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


def filled_fields(samples: Sequence[Sample], metrics: Sequence[Metric]) -> set[tuple[str, str]]:
    """The (metric name, field) pairs of :meth:`Metric.needed_in_some_row` that some of
    ``samples`` fills."""
    return {
        (metric.name, field)
        for metric in metrics
        for field in metric.needed_in_some_row()
        if any(sample.has_field(field) for sample in samples)
    }


def check_filled(metrics: Sequence[Metric], filled: set[tuple[str, str]]) -> None:
    """Refuse (:class:`ConfigError`) a metric that reads a field no row fills, given the
    pairs :func:`filled_fields` found over the whole set."""
    problems = [
        f"{reader} is filled by no row: no row has {field!r}"
        for metric in metrics
        for field, reader in metric.needed_in_some_row().items()
        if (metric.name, field) not in filled
    ]
    if problems:
        raise ConfigError("\n".join(problems))
