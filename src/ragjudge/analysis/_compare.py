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
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import pandas as pd

from ragjudge.analysis._judges import expand_to_judges, grouped_names, judge_labels
from ragjudge.analysis._meanings import exclusions, merged_meanings
from ragjudge.analysis._meanings import lower_is_better as lower_is_better_names
from ragjudge.errors import AnalysisError
from ragjudge.stats import (
    NO_GROUP,
    PERMUTATION_TEST,
    PairedDifference,
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

Direction = Literal["higher", "lower"]
Side = Literal["A", "B"]

DROP_REASONS = ("missing_a", "missing_b", "errors", "excluded")
NO_CLEAR_DIFFERENCE = "no clear difference"
_COUNT_COLUMNS = ("n", *DROP_REASONS)
_FLOAT_COLUMNS = (
    "mean_a",
    "mean_b",
    "difference",
    "ci_low",
    "ci_high",
    "p_value",
    "wilcoxon_p",
    "better",
    "equal",
    "worse",
)
_FRAME_COLUMNS = (
    "group",
    "metric",
    "direction",
    "mean_a",
    "mean_b",
    "difference",
    "ci_low",
    "ci_high",
    "ci_excludes_zero",
    "p_value",
    "wilcoxon_p",
    "n",
    "better",
    "equal",
    "worse",
    "winner",
    "verdict",
    *DROP_REASONS,
)


@dataclass(frozen=True)
class RunRef:
    """Which run a side of the comparison is."""

    run_id: str
    name: str | None
    status: str
    store: str


@dataclass(frozen=True)
class MetricComparison:
    """One metric of run B against run A over the samples both runs scored.

    ``paired`` holds the means, the difference B − A with its interval, the p-values
    and the better/equal/worse shares (see :class:`ragjudge.stats.PairedDifference`).
    The drop counts are samples left out: ``missing_a``/``missing_b`` (no result for
    the metric in that run), ``errors`` (every trial failed in either run) and
    ``excluded`` (every usable trial was an excluded value in either run). A sample
    is counted once, under the first reason in that order.
    """

    metric: str
    paired: PairedDifference
    missing_a: int = 0
    missing_b: int = 0
    errors: int = 0
    excluded: int = 0

    @property
    def direction(self) -> Direction:
        """Whether a higher or a lower value of the metric is better."""
        return "lower" if self.paired.lower_is_better else "higher"

    @property
    def dropped(self) -> int:
        """Samples left out of the comparison, for any reason."""
        return self.missing_a + self.missing_b + self.errors + self.excluded

    @property
    def winner(self) -> Side | None:
        """The run the mean difference favours; None when it is 0 or undefined."""
        diff = self.paired.difference
        if diff is None or diff == 0:
            return None
        b_ahead = diff < 0 if self.paired.lower_is_better else diff > 0
        return "B" if b_ahead else "A"

    @property
    def significant(self) -> bool:
        """Whether the interval of B − A excludes 0."""
        return self.paired.ci_excludes_zero

    @property
    def verdict(self) -> str | None:
        """B against A in words: ``better`` or ``worse`` only when the interval of
        B − A excludes 0, else ``no clear difference``; None with no paired sample.
        (:attr:`winner` is the side the mean difference favours, clear or not.)"""
        if not self.paired.n:
            return None
        if not self.significant or self.winner is None:
            return NO_CLEAR_DIFFERENCE
        return "better" if self.winner == "B" else "worse"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form: missing values are None, never NaN."""
        p = self.paired
        return {
            "metric": self.metric,
            "direction": self.direction,
            "mean_a": p.mean_a,
            "mean_b": p.mean_b,
            "difference": p.difference,
            "ci_low": p.ci.low if p.ci else None,
            "ci_high": p.ci.high if p.ci else None,
            "ci_excludes_zero": self.significant,
            "p_value": p.p_value,
            "wilcoxon_p": p.wilcoxon_p,
            "n": p.n,
            "better": p.better,
            "equal": p.equal,
            "worse": p.worse,
            "winner": self.winner,
            "verdict": self.verdict,
            "missing_a": self.missing_a,
            "missing_b": self.missing_b,
            "errors": self.errors,
            "excluded": self.excluded,
        }


@dataclass(frozen=True)
class Comparison:
    """Run B against run A: one row per metric, and per subset when ``by`` is set.

    ``only_a``/``only_b`` name metrics that only one run has (they are not compared);
    ``excluded_values`` are the values left out of each metric's means.
    """

    run_a: RunRef
    run_b: RunRef
    rows: list[MetricComparison]
    by: str | None
    subsets: dict[str, list[MetricComparison]]
    only_a: list[str]
    only_b: list[str]
    excluded_values: dict[str, list[float]]
    lower_is_better: list[str]
    confidence: float
    n_resamples: int
    seed: int
    judges: dict[str, tuple[str, str]] = field(default_factory=dict)
    """With several named judges: per compared score, its metric and its judge."""

    def to_frame(self) -> pd.DataFrame:
        """One row per (group, metric); the overall rows come first, with no group (NaN).

        The interval is split into ``ci_low``/``ci_high``; missing values are NaN.
        """
        records = [{"group": None, **row.to_dict()} for row in self.rows]
        records += [
            {"group": group, **row.to_dict()}
            for group, rows in self.subsets.items()
            for row in rows
        ]
        frame = pd.DataFrame(records, columns=list(_FRAME_COLUMNS))
        # None becomes NaN so the numeric columns stay numeric.
        frame[list(_FLOAT_COLUMNS)] = frame[list(_FLOAT_COLUMNS)].astype("float64")
        return frame.astype({c: "int64" for c in _COUNT_COLUMNS} | {"ci_excludes_zero": bool})

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form: missing values are None, never NaN."""
        return {
            "run_a": asdict(self.run_a),
            "run_b": asdict(self.run_b),
            "difference": "B - A",
            "confidence": self.confidence,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "test": PERMUTATION_TEST,
            "lower_is_better": self.lower_is_better,
            "excluded_values": self.excluded_values,
            "only_a": self.only_a,
            "only_b": self.only_b,
            "by": self.by,
            "metrics": [row.to_dict() for row in self.rows],
            "subsets": {
                group: [row.to_dict() for row in rows] for group, rows in self.subsets.items()
            },
            **({"judges": {k: list(v) for k, v in self.judges.items()}} if self.judges else {}),
        }


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
    frame_a = _scores_of(store_a, info_a.run_id)
    frame_b = _scores_of(store_b, info_b.run_id)
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
    )


def _scores_of(store: Store, run_id: str) -> pd.DataFrame:
    frame = store.score_frame(run_id)
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
