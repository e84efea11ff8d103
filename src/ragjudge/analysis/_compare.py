"""Paired comparison of two runs: B − A per metric, with bootstrap intervals and tests.

Two runs of the same evaluation set (say a single-turn RAG "QA" and a history-aware
"MQA") are paired by ``request_id``. Each sample's trials are averaged first, exactly
as the run summary does: error results are left out, and so are the values a metric
excludes from its mean (answer accuracy's "not sure" 0). A sample enters a metric's
comparison only when both runs have a usable value for it; the others are counted by
reason — missing in A, missing in B, only errors, only excluded values.

For every metric present in both runs the table gives the means of A and B over the
paired samples, the mean difference B − A with a bootstrap interval over resampled
pairs, a paired sign-flip permutation p-value (and the Wilcoxon signed-rank p-value),
and the shares of samples where B is better, equal or worse. Whether higher or lower
is better, and which values the means leave out, come from the score meanings stored
with the runs (``multiturn``'s ``lscore`` is lower-is-better). With ``by``, the same table
is repeated per subset of samples sharing a metadata value.

For scores with a per-sample pass in both runs (each run's own ``threshold``), the
paired pass rates come beside it (see :mod:`ragjudge.analysis._paired_passes`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from ragjudge.analysis._comparison import (
    DROP_REASONS,
    NO_CLEAR_DIFFERENCE,
    Comparison,
    MetricComparison,
    RunRef,
)
from ragjudge.analysis._judges import expand_to_judges, grouped_names, judge_labels
from ragjudge.analysis._meanings import exclusions, merged_meanings, run_meanings
from ragjudge.analysis._meanings import lower_is_better as lower_is_better_names
from ragjudge.analysis._paired_passes import PairedPassRate, paired_pass_counts
from ragjudge.analysis._run_values import (
    EXCLUDED,
    FAILED,
    NO_PASS,
    MetricValues,
    metric_values,
)
from ragjudge.errors import AnalysisError
from ragjudge.schema import ScoreMeaning
from ragjudge.stats import NO_GROUP, group_label, group_names, paired_difference
from ragjudge.store._frames import metadata_columns
from ragjudge.store._store import RunInfo, Store

__all__ = [
    "DROP_REASONS",
    "NO_CLEAR_DIFFERENCE",
    "Comparison",
    "MetricComparison",
    "RunRef",
    "RunValues",
    "compare_runs",
    "compare_values",
    "stored_run_values",
    "unique_ids",
]

# --------------------------------------------------------------------------- per-sample values


@dataclass(frozen=True)
class RunValues:
    """One run's per-sample results, compact: what the paired comparison reads."""

    ids: pd.Index
    """The request id of each sample (by the sample's number)."""
    metrics: dict[str, MetricValues]
    """Each metric's results, in order of the metric's first row."""
    labels: npt.NDArray[np.object_] | None
    """Each sample's subset under ``by`` (None without ``by``)."""
    keys: frozenset[str]
    """The metadata keys the samples have (read only with ``by``)."""
    column: str | None = None
    """The ``metadata.KEY`` column ``by`` named in this run (None without ``by``)."""

    @property
    def scored(self) -> npt.NDArray[np.bool_]:
        """Whether each sample has any result."""
        mask = np.zeros(len(self.ids), dtype=bool)
        for values in self.metrics.values():
            mask[values.samples] = True
        return mask


def stored_run_values(
    store: Store,
    info: RunInfo,
    exclude: Mapping[str, Sequence[float]],
    by: str | None = None,
) -> RunValues:
    """:class:`RunValues` of a stored run, read in chunks of compact columns (and,
    with ``by``, the samples' metadata a page at a time, keeping only that key)."""
    metrics = metric_values(store.score_columns(info.run_id), exclude, run_meanings(info))
    if not metrics:
        raise AnalysisError(f"run {info.run_id} in {store.path} has no scores")
    ids = unique_ids(store.request_ids(info.run_id))
    if by is None:
        return RunValues(ids, metrics, None, frozenset(), None)
    # ``by`` names a key, or its column (``metadata.KEY``) as a score frame has it.
    columns = list(dict.fromkeys([f"metadata.{by}", by]))
    labels = {column: np.full(len(ids), NO_GROUP, dtype=object) for column in columns}
    keys: set[str] = set()
    for page in store.metadata_pages(info.run_id):
        for position, metadata in page:
            keys.update(metadata)
            found = metadata_columns(metadata)
            for column in columns:
                labels[column][position] = group_label(found.get(column))
    chosen = next((c for c in columns if c.removeprefix("metadata.") in keys), columns[0])
    return RunValues(ids, metrics, labels[chosen], frozenset(keys), chosen)


def unique_ids(ids: Sequence[str | None]) -> pd.Index:
    """The ids as an index; a gap in the positions gets a name no request id has."""
    return pd.Index(
        [f"\0gap {i}" if rid is None else rid for i, rid in enumerate(ids)], dtype=object
    )


@dataclass(frozen=True)
class _Pairing:
    """Run B's samples matched to run A's, and the subset each sample falls in."""

    b_in_a: npt.NDArray[np.intp]
    """Run A's number of each of run B's samples (-1: not in run A)."""
    labels_a: npt.NDArray[np.object_] | None
    """The subset of each of run A's samples (its metadata in run A)."""
    labels_b: npt.NDArray[np.object_] | None
    """The subset of each of run B's samples (run A's when A scored it, else B's)."""


def _pairing(a: RunValues, b: RunValues, by: str | None) -> _Pairing:
    b_in_a = a.ids.get_indexer(b.ids)
    scored_a = a.scored
    scored_b = b.scored
    in_a = b_in_a >= 0
    shared = np.zeros(len(b.ids), dtype=bool)
    shared[in_a] = scored_a[b_in_a[in_a]]
    if not np.any(shared & scored_b):
        raise _NoSharedSample
    if by is None or a.labels is None or b.labels is None:
        return _Pairing(b_in_a, None, None)
    if not {column.removeprefix("metadata.") for column in (a.column, b.column) if column} & (
        a.keys | b.keys
    ):
        known = ", ".join(sorted(a.keys | b.keys)) or "(none)"
        raise AnalysisError(f"no sample has metadata key {by!r}; keys present: {known}")
    labels_b = b.labels.copy()
    labels_b[shared] = a.labels[b_in_a[shared]]
    return _Pairing(b_in_a, a.labels, labels_b)


class _NoSharedSample(Exception):
    """The runs have no scored sample in common."""


def _compare_metric(
    metric: str,
    a: MetricValues,
    b: MetricValues,
    pairing: _Pairing,
    keep: str | None,
    *,
    size_a: int,
    lower_is_better: bool,
    seed: int,
    confidence: float,
    n_resamples: int,
) -> MetricComparison:
    state_b, means_b = _b_at_a(b, pairing.b_in_a, size_a)
    chosen = _in_subset(a.samples, pairing.labels_a, keep)
    samples = a.samples[chosen]
    state_a, means_a, other = a.state[chosen], a.means[chosen], state_b[samples]
    missing_b = other == 0
    errors = ~missing_b & ((state_a == FAILED) | (other == FAILED))
    excluded = ~missing_b & ~errors & ((state_a == EXCLUDED) | (other == EXCLUDED))
    paired = ~missing_b & ~errors & ~excluded
    paired_difference_ = paired_difference(
        means_a[paired],
        means_b[samples[paired]],
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
        lower_is_better=lower_is_better,
    )
    counts = {
        "missing_a": _missing_in_a(a, b, pairing, keep, size_a),
        "missing_b": int(np.count_nonzero(missing_b)),
        "errors": int(np.count_nonzero(errors)),
        "excluded": int(np.count_nonzero(excluded)),
    }
    return MetricComparison(metric, paired_difference_, **{r: counts[r] for r in DROP_REASONS})


def _b_at_a(
    b: MetricValues, b_in_a: npt.NDArray[np.intp], size_a: int
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]]:
    """Run B's state and mean of each of run A's samples (state 0: no result in B)."""
    state = np.zeros(size_a, dtype=np.int8)
    means = np.full(size_a, np.nan)
    at = b_in_a[b.samples]
    found = at >= 0
    state[at[found]] = b.state[found]
    means[at[found]] = b.means[found]
    return state, means


def _missing_in_a(
    a: MetricValues, b: MetricValues, pairing: _Pairing, keep: str | None, size_a: int
) -> int:
    """Run B's samples (in the subset) that run A has no result for."""
    has_a = np.zeros(size_a, dtype=bool)
    has_a[a.samples] = True
    samples = b.samples[_in_subset(b.samples, pairing.labels_b, keep)]
    at = pairing.b_in_a[samples]
    missing = at < 0
    missing[~missing] = ~has_a[at[~missing]]
    return int(np.count_nonzero(missing))


def _in_subset(
    samples: npt.NDArray[np.int64], labels: npt.NDArray[np.object_] | None, keep: str | None
) -> npt.NDArray[np.bool_]:
    if keep is None or labels is None:
        return np.ones(samples.size, dtype=bool)
    return np.asarray(labels[samples] == keep, dtype=bool)


def _paired_passes(
    names: Sequence[str], a: RunValues, b: RunValues, pairing: _Pairing
) -> list[PairedPassRate]:
    """The paired pass rates of the compared scores with a pass in both runs."""
    rates = []
    for metric in names:
        values_a, values_b = a.metrics[metric], b.metrics[metric]
        if values_a.passes is None or values_b.passes is None:
            continue
        passes_b = np.full(len(a.ids), NO_PASS, dtype=np.int8)
        at = pairing.b_in_a[values_b.samples]
        passes_b[at[at >= 0]] = values_b.passes[at >= 0]
        other = passes_b[values_a.samples]
        both = (values_a.passes != NO_PASS) & (other != NO_PASS)
        rates.append(paired_pass_counts(metric, values_a.passes[both] == 1, other[both] == 1))
    return rates


# --------------------------------------------------------------------------- comparison


def compare_runs(
    store_a: Store,
    run_a: str,
    store_b: Store,
    run_b: str,
    *,
    by: str | None = None,
    metrics: Sequence[str] | None = None,
    exclude: Mapping[str, Sequence[float]] | None = None,
    lower_is_better: Collection[str] | None = None,
    seed: int = 0,
    confidence: float = 0.95,
    n_resamples: int = 2000,
) -> Comparison:
    """Compare run B with run A (each a unique id prefix in its own store; the two
    stores may be the same object).

    ``metrics`` restricts the comparison to these metrics (each must be in both
    runs); by default every metric both runs have is compared, in run A's order.
    ``exclude[metric]`` lists values left out before trials are averaged; by default
    they are the values the runs' metrics leave out of their means, read from the
    meanings stored with the two runs as the run summary does (answer accuracy's 0);
    ``{}`` keeps every value. ``lower_is_better`` names the metrics where a lower value
    is better; by default those the stored meanings mark so. ``by`` names a metadata key; each sample's subset comes from its metadata
    in run A (in run B for samples run A has no score for). Raises
    :class:`~ragjudge.store.RunNotFound` (a ``KeyError``) for an unknown or ambiguous
    run and :class:`~ragjudge.errors.AnalysisError` (a ``ValueError``) when a run has no
    scores, the runs share no sample or metric, a named metric is missing or no sample
    carries ``by``.

    Each run is read as compact columns in chunks, so memory stays small per sample
    at any run size.
    """
    info_a, info_b = store_a.run(run_a), store_b.run(run_b)
    meanings = merged_meanings(info_a, info_b)
    if exclude is None:
        exclude = exclusions(meanings)
    values_a = stored_run_values(store_a, info_a, exclude, by)
    values_b = stored_run_values(store_b, info_b, exclude, by)
    return compare_values(
        values_a,
        values_b,
        refs=(_run_ref(store_a, info_a), _run_ref(store_b, info_b)),
        meanings=meanings,
        by=by,
        metrics=metrics,
        exclude=exclude,
        lower_is_better=lower_is_better,
        seed=seed,
        confidence=confidence,
        n_resamples=n_resamples,
    )


def compare_values(
    values_a: RunValues,
    values_b: RunValues,
    *,
    refs: tuple[RunRef, RunRef],
    meanings: Mapping[str, ScoreMeaning],
    by: str | None,
    metrics: Sequence[str] | None,
    exclude: Mapping[str, Sequence[float]],
    lower_is_better: Collection[str] | None,
    seed: int,
    confidence: float,
    n_resamples: int,
) -> Comparison:
    """The paired comparison of two runs' :class:`RunValues` (see :func:`compare_runs`)."""
    try:
        pairing = _pairing(values_a, values_b, by)
    except _NoSharedSample:
        raise AnalysisError(
            f"runs {refs[0].run_id} and {refs[1].run_id} share no request_id; "
            "a paired comparison needs the same evaluation set"
        ) from None
    results_a, results_b = values_a.metrics, values_b.metrics
    names = _metrics_to_compare(results_a, results_b, expand_to_judges(metrics, meanings))
    names = grouped_names(names, meanings)
    lower = frozenset(
        lower_is_better_names(meanings) if lower_is_better is None else lower_is_better
    )

    def compare(metric: str, keep: str | None) -> MetricComparison:
        return _compare_metric(
            metric,
            results_a[metric],
            results_b[metric],
            pairing,
            keep,
            size_a=len(values_a.ids),
            lower_is_better=metric in lower,
            seed=seed,
            confidence=confidence,
            n_resamples=n_resamples,
        )

    return Comparison(
        run_a=refs[0],
        run_b=refs[1],
        rows=[compare(m, None) for m in names],
        by=by,
        subsets={
            group: [compare(m, group) for m in names]
            for group in _groups(values_a, values_b, pairing)
        },
        only_a=[m for m in results_a if m not in results_b],
        only_b=[m for m in results_b if m not in results_a],
        excluded_values={m: [float(v) for v in vs] for m, vs in exclude.items() if vs},
        lower_is_better=sorted(lower),
        confidence=confidence,
        n_resamples=n_resamples,
        seed=seed,
        judges=judge_labels(meanings, names),
        pass_rates=_paired_passes(names, values_a, values_b, pairing),
    )


def _groups(a: RunValues, b: RunValues, pairing: _Pairing) -> list[str]:
    """The subsets of the scored samples of both runs, in :func:`group_names` order."""
    if pairing.labels_a is None or pairing.labels_b is None:
        return []
    found = set(pairing.labels_a[a.scored]) | set(pairing.labels_b[b.scored])
    return group_names(found)


def _run_ref(store: Store, info: RunInfo) -> RunRef:
    return RunRef(run_id=info.run_id, name=info.name, status=info.status, store=str(store.path))


def _metrics_to_compare(
    a: Mapping[str, MetricValues], b: Mapping[str, MetricValues], wanted: Sequence[str] | None
) -> list[str]:
    shared = [m for m in a if m in b]
    if not shared:
        raise AnalysisError(
            f"the runs share no metric; A has {', '.join(a) or '(none)'}, "
            f"B has {', '.join(b) or '(none)'}"
        )
    if wanted is None:
        return shared
    unknown = [m for m in wanted if m not in shared]
    if unknown:
        raise AnalysisError(
            f"metric(s) not in both runs: {', '.join(unknown)}; shared metrics: {', '.join(shared)}"
        )
    return list(dict.fromkeys(wanted))
