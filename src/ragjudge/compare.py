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
and the shares of samples where B is better, equal or worse. Higher is better except
for metrics named in ``lower_is_better`` (matched on the last dotted part of the
name: ``multiturn.lscore`` is lower-is-better by default). With ``by``, the same table
is repeated per subset of samples sharing a metadata value.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import pandas as pd
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ragjudge.runner import run_exclusions
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
from ragjudge.store import RunInfo, Store

__all__ = [
    "LOWER_IS_BETTER",
    "Comparison",
    "MetricComparison",
    "RunRef",
    "compare_command",
    "compare_runs",
    "render_comparison",
]

LOWER_IS_BETTER: frozenset[str] = frozenset({"lscore"})
"""Score names (last dotted part of a metric name) where a lower value is better."""

Direction = Literal["higher", "lower"]
Side = Literal["A", "B"]

_DROP_REASONS = ("missing_a", "missing_b", "errors", "excluded")
_COUNT_COLUMNS = ("n", *_DROP_REASONS)
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
    *_DROP_REASONS,
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
    return MetricComparison(metric, paired, **{r: dropped[r] for r in _DROP_REASONS})


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
    lower_is_better: Collection[str] = LOWER_IS_BETTER,
    seed: int = 0,
    confidence: float = 0.95,
    n_resamples: int = 2000,
) -> Comparison:
    """Compare run B with run A (each a unique id prefix in its own store; the two
    stores may be the same object).

    ``metrics`` restricts the comparison to these metrics (each must be in both
    runs); by default every metric both runs have is compared, in run A's order.
    ``exclude[metric]`` lists values left out before trials are averaged; by default
    they are the values the runs' metrics leave out of their means, read from the two
    runs' configs as the run summary does (answer accuracy's 0); ``{}`` keeps every
    value. ``by`` names a metadata key; each sample's subset comes from its metadata
    in run A (in run B for samples run A has no score for). Raises ``KeyError`` for an
    unknown or ambiguous run and ``ValueError`` when a run has no scores, the runs
    share no sample or metric, a named metric is missing or no sample carries ``by``.
    """
    info_a, info_b = store_a.run(run_a), store_b.run(run_b)
    frame_a = _scores_of(store_a, info_a.run_id)
    frame_b = _scores_of(store_b, info_b.run_id)
    if not set(frame_a["sample_id"]) & set(frame_b["sample_id"]):
        raise ValueError(
            f"runs {info_a.run_id} and {info_b.run_id} share no request_id; "
            "a paired comparison needs the same evaluation set"
        )
    if exclude is None:
        exclude = run_exclusions(info_a.config, info_b.config)
    results_a = _metric_results(frame_a, exclude)
    results_b = _metric_results(frame_b, exclude)
    names = _metrics_to_compare(results_a, results_b, metrics)
    labels = _subset_labels(frame_a, frame_b, by)
    lower = frozenset(lower_is_better)

    def compare(metric: str, keep: str | None) -> MetricComparison:
        a, b = results_a[metric], results_b[metric]
        ids = dict.fromkeys([*a.order, *b.order])
        return _compare_metric(
            metric,
            (i for i in ids if keep is None or labels.get(i, NO_GROUP) == keep),
            a,
            b,
            lower_is_better=_score_name(metric) in lower,
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
    )


def _scores_of(store: Store, run_id: str) -> pd.DataFrame:
    frame = store.score_frame(run_id)
    if frame.empty:
        raise ValueError(f"run {run_id} in {store.path} has no scores")
    return frame


def _run_ref(store: Store, info: RunInfo) -> RunRef:
    return RunRef(run_id=info.run_id, name=info.name, status=info.status, store=str(store.path))


def _score_name(metric: str) -> str:
    """The last dotted part of a metric name (``multiturn.lscore`` → ``lscore``)."""
    return metric.rsplit(".", 1)[-1]


def _metrics_to_compare(
    a: Mapping[str, _MetricResults], b: Mapping[str, _MetricResults], wanted: Sequence[str] | None
) -> list[str]:
    shared = [m for m in a if m in b]
    if not shared:
        raise ValueError(
            f"the runs share no metric; A has {', '.join(a) or '(none)'}, "
            f"B has {', '.join(b) or '(none)'}"
        )
    if wanted is None:
        return shared
    unknown = [m for m in wanted if m not in shared]
    if unknown:
        raise ValueError(
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


# --------------------------------------------------------------------------- rendering


def render_comparison(comparison: Comparison, *, title: str | None = None) -> Table:
    """A terminal table of B − A per metric: the overall rows first, then (with
    ``by``) one section per subset. The "better" column names the run the difference
    favours, starred when the interval excludes 0."""
    percent = f"{comparison.confidence:.0%}"
    default = f"B − A, paired by request_id ({percent} bootstrap CI; p: sign-flip permutation)"
    out = Table(title=title or default, title_justify="left")
    if comparison.by is not None:
        out.add_column(comparison.by)
    out.add_column("metric")
    out.add_column("A", justify="right")
    out.add_column("B", justify="right")
    out.add_column("B − A", justify="right")
    out.add_column(f"{percent} CI", justify="right")
    out.add_column("p", justify="right")
    out.add_column("n", justify="right")
    out.add_column("B better / equal / worse", justify="right")
    out.add_column("better", justify="center")
    out.add_column("left out")
    sections = [("(all)", comparison.rows), *comparison.subsets.items()]
    for group, rows in sections:
        for i, row in enumerate(rows):
            lead = [Text(group if i == 0 else "")] if comparison.by is not None else []
            out.add_row(*lead, *_row_cells(row), end_section=i == len(rows) - 1)
    out.caption = Text(_caption(comparison))  # names and statuses are not markup
    out.caption_justify = "left"
    return out


def _row_cells(row: MetricComparison) -> list[Text]:
    p = row.paired
    metric = row.metric + (" ↓" if row.direction == "lower" else "")
    ci = "–" if p.ci is None else f"[{p.ci.low:+.3f}, {p.ci.high:+.3f}]"
    return [
        Text(metric),
        Text(_number(p.mean_a)),
        Text(_number(p.mean_b)),
        Text(_number(p.difference, signed=True)),
        Text(ci),
        Text(_p_value(p.p_value)),
        Text(str(p.n)),
        Text(_shares(p)),
        _winner_cell(row),
        Text(_left_out(row)),
    ]


def _winner_cell(row: MetricComparison) -> Text:
    if row.winner is None:
        return Text("=" if row.paired.n else "–")
    if row.significant:
        return Text(f"{row.winner} *", style="bold green")
    return Text(row.winner)


def _caption(comparison: Comparison) -> str:
    lines = [
        f"{side} = {_describe(ref)}"
        for side, ref in (("A", comparison.run_a), ("B", comparison.run_b))
    ]
    lines.append("* the interval of B − A excludes 0; ↓ lower is better")
    if comparison.excluded_values:
        shown = "; ".join(
            f"{m}: {', '.join(f'{v:g}' for v in vs)}"
            for m, vs in comparison.excluded_values.items()
        )
        lines.append(f"values left out of the means: {shown}")
    if comparison.only_a:
        lines.append(f"only in A (not compared): {', '.join(comparison.only_a)}")
    if comparison.only_b:
        lines.append(f"only in B (not compared): {', '.join(comparison.only_b)}")
    return "\n".join(lines)


def _describe(ref: RunRef) -> str:
    name = f" ({ref.name})" if ref.name else ""
    status = "" if ref.status == "completed" else f" [{ref.status}]"
    return f"{ref.run_id}{name}{status} in {ref.store}"


def _number(value: float | None, *, signed: bool = False) -> str:
    if value is None:
        return "–"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def _p_value(value: float | None) -> str:
    if value is None:
        return "–"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _shares(p: PairedDifference) -> str:
    if p.better is None or p.equal is None or p.worse is None:
        return "–"
    return f"{p.better:.0%} / {p.equal:.0%} / {p.worse:.0%}"


def _left_out(row: MetricComparison) -> str:
    labels = {
        "missing_a": "missing in A",
        "missing_b": "missing in B",
        "errors": "errors",
        "excluded": "excluded",
    }
    parts = [f"{labels[r]} {getattr(row, r)}" for r in _DROP_REASONS if getattr(row, r)]
    return ", ".join(parts) or "–"


# --------------------------------------------------------------------------- command


def compare_command(
    run_a: str,
    run_b: str,
    *,
    store: Path,
    store_b: Path | None,
    by: str | None,
    metric: list[str] | None,
    as_json: bool,
    console: Console,
) -> None:
    """``ragjudge compare RUN_A RUN_B``: compare two stored runs and print the table
    (or JSON). RUN_B is looked up in ``store_b`` when given, else in ``store``.

    Values the runs' metrics exclude from their means are left out (see
    :func:`compare_runs`). Raises ``FileNotFoundError`` for a missing store file,
    ``KeyError`` for an unknown run and ``ValueError`` for anything :func:`compare_runs`
    rejects.
    """
    with ExitStack() as stack:
        first = stack.enter_context(_open_existing(store))
        second = first
        if store_b is not None and store_b.resolve() != store.resolve():
            second = stack.enter_context(_open_existing(store_b))
        comparison = compare_runs(first, run_a, second, run_b, by=by, metrics=metric or None)
    if as_json:
        console.out(json.dumps(comparison.to_dict(), ensure_ascii=False, indent=2), highlight=False)
    else:
        console.print(render_comparison(comparison))


def _open_existing(path: Path) -> Store:
    # Store() would create an empty database at a mistyped path.
    if not path.exists():
        raise FileNotFoundError(f"no store at {path}; pass --store PATH")
    return Store(path)
