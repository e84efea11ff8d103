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

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

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
from ragjudge.analysis._paired_passes import paired_pass_rates
from ragjudge.analysis._passes import run_passes
from ragjudge.errors import AnalysisError
from ragjudge.stats import (
    NO_GROUP,
    group_label,
    group_names,
    metadata_column,
    paired_difference,
    sample_means,
)
from ragjudge.store._store import RunInfo, Store

__all__ = [
    "DROP_REASONS",
    "NO_CLEAR_DIFFERENCE",
    "Comparison",
    "MetricComparison",
    "RunRef",
    "compare_runs",
]

# --------------------------------------------------------------------------- per-sample values


@dataclass(frozen=True)
class _MetricResults:
    """One run's results for one metric, reduced to one entry per sample."""

    order: list[str]
    """Samples with any result, in order of first appearance."""
    values: dict[str, float]
    """Mean of each sample's usable, not-excluded trial values."""
    failed: frozenset[str]
    """Samples whose every trial failed."""
    excluded: frozenset[str]
    """Samples with usable trials that are all excluded values."""


def _metric_results(
    frame: pd.DataFrame, exclude: Mapping[str, Sequence[float]]
) -> dict[str, _MetricResults]:
    """Each metric's per-sample results in a long score frame, in order of first appearance."""
    kept = sample_means(frame, exclude)
    valid = sample_means(frame)
    results: dict[str, _MetricResults] = {}
    for metric, means in kept.items():
        order = list(frame.loc[frame["metric"] == metric, "sample_id"].drop_duplicates())
        with_valid = set(valid[metric].index)
        results[metric] = _MetricResults(
            order=order,
            values={str(k): float(v) for k, v in means.items()},
            failed=frozenset(set(order) - with_valid),
            excluded=frozenset(with_valid - set(means.index)),
        )
    return results


def _has_result(sample_id: str, results: _MetricResults) -> bool:
    return (
        sample_id in results.values or sample_id in results.failed or sample_id in results.excluded
    )


def _drop_reason(sample_id: str, a: _MetricResults, b: _MetricResults) -> str | None:
    """Why a sample cannot be paired for this metric (None when it can)."""
    if not _has_result(sample_id, a):
        return "missing_a"
    if not _has_result(sample_id, b):
        return "missing_b"
    if sample_id in a.failed or sample_id in b.failed:
        return "errors"
    if sample_id in a.excluded or sample_id in b.excluded:
        return "excluded"
    return None


def _compare_metric(
    metric: str,
    sample_ids: Iterable[str],
    a: _MetricResults,
    b: _MetricResults,
    *,
    lower_is_better: bool,
    seed: int,
    confidence: float,
    n_resamples: int,
) -> MetricComparison:
    dropped: Counter[str] = Counter()
    values_a: list[float] = []
    values_b: list[float] = []
    for sample_id in sample_ids:
        reason = _drop_reason(sample_id, a, b)
        if reason is None:
            values_a.append(a.values[sample_id])
            values_b.append(b.values[sample_id])
        else:
            dropped[reason] += 1
    paired = paired_difference(
        values_a,
        values_b,
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
        lower_is_better=lower_is_better,
    )
    return MetricComparison(metric, paired, **{r: dropped[r] for r in DROP_REASONS})


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
    """
    info_a, info_b = store_a.run(run_a), store_b.run(run_b)
    frame_a = _scores_of(store_a, info_a.run_id, by)
    frame_b = _scores_of(store_b, info_b.run_id, by)
    if not set(frame_a["sample_id"]) & set(frame_b["sample_id"]):
        raise AnalysisError(
            f"runs {info_a.run_id} and {info_b.run_id} share no request_id; "
            "a paired comparison needs the same evaluation set"
        )
    meanings = merged_meanings(info_a, info_b)
    if exclude is None:
        exclude = exclusions(meanings)
    results_a = _metric_results(frame_a, exclude)
    results_b = _metric_results(frame_b, exclude)
    names = _metrics_to_compare(results_a, results_b, expand_to_judges(metrics, meanings))
    names = grouped_names(names, meanings)
    labels = _subset_labels(frame_a, frame_b, by)
    lower = frozenset(
        lower_is_better_names(meanings) if lower_is_better is None else lower_is_better
    )

    def compare(metric: str, keep: str | None) -> MetricComparison:
        a, b = results_a[metric], results_b[metric]
        ids = dict.fromkeys([*a.order, *b.order])
        return _compare_metric(
            metric,
            (i for i in ids if keep is None or labels.get(i, NO_GROUP) == keep),
            a,
            b,
            lower_is_better=metric in lower,
            seed=seed,
            confidence=confidence,
            n_resamples=n_resamples,
        )

    return Comparison(
        run_a=_run_ref(store_a, info_a),
        run_b=_run_ref(store_b, info_b),
        rows=[compare(m, None) for m in names],
        by=by,
        subsets={
            group: [compare(m, group) for m in names] for group in group_names(labels.values())
        },
        only_a=[m for m in results_a if m not in results_b],
        only_b=[m for m in results_b if m not in results_a],
        excluded_values={m: [float(v) for v in vs] for m, vs in exclude.items() if vs},
        lower_is_better=sorted(lower),
        confidence=confidence,
        n_resamples=n_resamples,
        seed=seed,
        judges=judge_labels(meanings, names),
        pass_rates=paired_pass_rates(
            run_passes(store_a, info_a.run_id, run_meanings(info_a)),
            run_passes(store_b, info_b.run_id, run_meanings(info_b)),
            names,
        ),
    )


def _scores_of(store: Store, run_id: str, by: str | None) -> pd.DataFrame:
    """The run's scores, with the samples' metadata only when subsets are asked for."""
    frame = store.score_frame(run_id, metadata=by is not None)
    if frame.empty:
        raise AnalysisError(f"run {run_id} in {store.path} has no scores")
    return frame


def _run_ref(store: Store, info: RunInfo) -> RunRef:
    return RunRef(run_id=info.run_id, name=info.name, status=info.status, store=str(store.path))


def _metrics_to_compare(
    a: Mapping[str, _MetricResults], b: Mapping[str, _MetricResults], wanted: Sequence[str] | None
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


def _subset_labels(frame_a: pd.DataFrame, frame_b: pd.DataFrame, by: str | None) -> dict[str, str]:
    """Each sample's subset under metadata key ``by`` (empty without ``by``), from its
    first row in run A's score frame, else in run B's."""
    if by is None:
        return {}
    firsts = pd.concat([f.drop_duplicates("sample_id") for f in (frame_a, frame_b)])
    firsts = firsts.drop_duplicates("sample_id")
    labels = firsts[metadata_column(firsts, by)].map(group_label)
    return dict(zip(firsts["sample_id"], labels, strict=True))
