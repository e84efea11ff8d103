"""A stored run's summary read from its score columns a page at a time: per metric
(and per subset of ``by``) the figures of :mod:`ragjudge.stats`, and the errors grouped
by cause — never a frame row or a Python object per score.

Memory on top of one page of rows (:data:`~ragjudge.store._scores.PAGE_ROWS`): per
metric 8 bytes per sample (the per-sample means the interval is drawn from; 16 when
the metric leaves values out of its mean, 24 with several trials), twice that while
an array grows, and as much again per subset with ``by``, plus 4 bytes per sample for
the subset codes. The bootstrap then draws its resamples in bounded batches
(:mod:`ragjudge.stats._bootstrap`)."""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ragjudge.analysis._outcome import ErrorGroup, error_cause
from ragjudge.errors import AnalysisError
from ragjudge.stats import MetricSummary, group_label, group_names
from ragjudge.stats._columns import RunningSummaries
from ragjudge.stats._reducers import TrialReducer
from ragjudge.store._frames import metadata_columns
from ragjudge.store._store import Store

__all__ = ["ColumnSummary", "summarize_columns"]


@dataclass
class ColumnSummary:
    """What the run's summary is built from: the per-metric summaries, those of each
    subset (by name, ``(none)`` last), and the errors grouped by cause."""

    summaries: list[MetricSummary]
    subsets: dict[str, list[MetricSummary]] = field(default_factory=dict)
    errors: list[ErrorGroup] = field(default_factory=list)


class UnknownKeyError(AnalysisError, LookupError):
    """No sample with an applicable score has the ``by`` metadata key."""


def summarize_columns(
    store: Store,
    run_id: str,
    *,
    exclude: Mapping[str, Sequence[float]],
    seed: int,
    by: str | None = None,
    reducers: Mapping[str, TrialReducer] | None = None,
) -> ColumnSummary:
    """The run's summary read in pages. ``by`` is a metadata key (``lang`` or
    ``metadata.lang``); :class:`UnknownKeyError` when no scored sample has it.
    ``reducers`` say how a score's trials become a sample's value (the mean by default)."""
    labels = _subset_labels(store, run_id, by) if by is not None else None
    if isinstance(labels, UnknownKeyError):
        unknown, labels = labels, None
    else:
        unknown = None
    names: list[str] = []
    overall = RunningSummaries(dict(exclude), dict(reducers or {}))
    subsets = RunningSummaries(dict(exclude), dict(reducers or {}))
    errors = False
    for page in store.score_pages(run_id, names):
        errors = errors or bool(page.noted.any())
        columns = (page.sample, page.trial, page.value, page.failed, page.rowid)
        overall.add(names, page.metric, columns)
        if labels is not None:
            subsets.add(names, page.metric, columns, labels.codes[page.sample])
    summaries = overall.summaries(seed=seed)
    if unknown is not None and summaries:
        raise unknown
    grouped: dict[str, list[MetricSummary]] = {}
    if labels is not None and summaries:
        by_name = {labels.names[code]: code for code in subsets.groups()}
        grouped = {
            name: subsets.summaries(by_name[name], seed=seed) for name in group_names(by_name)
        }
    order = [s.metric for s in summaries]
    return ColumnSummary(summaries, grouped, _error_groups(store, run_id, order) if errors else [])


@dataclass
class _Labels:
    codes: np.typing.NDArray[np.int32]
    """Each sample's subset code, by position."""
    names: list[str]
    """The subset name of each code."""


def _subset_labels(store: Store, run_id: str, by: str) -> _Labels | UnknownKeyError:
    """Each sample's subset for metadata key ``by``: the key itself when a scored
    sample has it as ``metadata.KEY``, else ``by`` as a whole (as a score frame's
    column ``metadata.<by>`` would be found); the error when no scored sample has either
    (raised only if the run has scores)."""
    keys = [by.removeprefix("metadata."), by] if by.startswith("metadata.") else [by]
    codes = [array("i") for _ in keys]
    found = [False for _ in keys]
    names: list[dict[str, int]] = [{} for _ in keys]
    for position, metadata, scored in store.scored_metadata(run_id):
        for i, key in enumerate(keys):
            if len(codes[i]) != position:
                codes[i].extend([0] * (position - len(codes[i])))
            found[i] = found[i] or (scored and key in metadata)
            label = group_label(metadata_columns({key: metadata.get(key)})[f"metadata.{key}"])
            codes[i].append(names[i].setdefault(label, len(names[i])))
    for i, _ in enumerate(keys):
        if found[i]:
            return _Labels(np.frombuffer(codes[i], dtype=np.int32), list(names[i]))
    return UnknownKeyError(by)


def _error_groups(store: Store, run_id: str, metrics: Sequence[str]) -> list[ErrorGroup]:
    """Each metric's errors grouped by cause, metrics in ``metrics`` order, the most
    frequent cause first (ties: the cause met first), with its first message."""
    counts: dict[tuple[str, str], int] = {}
    examples: dict[tuple[str, str], str] = {}
    for metric, message in store.score_errors(run_id):
        key = (metric, error_cause(str(message)))
        counts[key] = counts.get(key, 0) + 1
        examples.setdefault(key, str(message))
    groups: list[ErrorGroup] = []
    for metric in metrics:
        causes = [(key, n) for key, n in counts.items() if key[0] == metric]
        causes.sort(key=lambda item: -item[1])  # stable: ties keep the order met
        groups += [ErrorGroup(metric, key[1], n, examples[key]) for key, n in causes]
    return groups
