"""The comparison of two runs as one HTML page: ``compare``'s paired differences per
metric (and per subset) with their intervals and p-values, and the samples whose value
changed most, side by side."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from ragjudge.analysis._compare import Comparison, MetricComparison, compare_runs
from ragjudge.analysis._meanings import exclusions, merged_meanings
from ragjudge.errors import AnalysisError
from ragjudge.report._page import render_page
from ragjudge.report._text import preview
from ragjudge.schema import Output, Sample, Score
from ragjudge.stats import sample_means
from ragjudge.store._store import RunInfo, Store

__all__ = ["Change", "comparison_report_html"]

_CHANGED = 10
"""Samples listed per metric under "changed most"."""


@dataclass(frozen=True)
class Change:
    """One sample's value of one metric in both runs."""

    request_id: str
    query: str
    value_a: float
    value_b: float
    difference: float
    better: bool
    """Whether B is better on this sample (the metric's direction decides)."""
    response_a: str | None
    response_b: str | None
    rationale_a: str | None
    rationale_b: str | None


@dataclass(frozen=True)
class _Side:
    """One run's values and texts."""

    info: RunInfo
    means: dict[str, pd.Series[float]]
    samples: dict[str, Sample]
    outputs: dict[str, Output]
    rationales: dict[tuple[str, str], str | None]


def _side(store: Store, run_id: str, exclude: Mapping[str, Sequence[float]]) -> _Side:
    info = store.run(run_id)
    rationales: dict[tuple[str, str], str | None] = {}
    for request_id, _, score in store.scores(run_id):
        rationales.setdefault((request_id, score.metric), _why(score))
    return _Side(
        info=info,
        means=sample_means(store.score_frame(run_id, metadata=False), exclude),
        samples={s.request_id: s for s in store.samples(run_id)},
        outputs=store.outputs(run_id),
        rationales=rationales,
    )


def _why(score: Score) -> str | None:
    return score.rationale or score.error


def _response(side: _Side, request_id: str) -> str | None:
    output = side.outputs.get(request_id)
    if output is not None and output.response is not None:
        return output.response
    sample = side.samples.get(request_id)
    return None if sample is None else sample.response


def changed_most(row: MetricComparison, a: _Side, b: _Side, limit: int = _CHANGED) -> list[Change]:
    """The samples whose value of ``row.metric`` moved most between the runs (the same
    per-sample values the comparison pairs: trials averaged, excluded values out)."""
    values_a, values_b = a.means.get(row.metric), b.means.get(row.metric)
    if values_a is None or values_b is None:
        return []
    shared = [sid for sid in values_a.index if sid in values_b.index]
    moved = [(sid, float(values_b[sid]) - float(values_a[sid])) for sid in shared]
    moved = [m for m in moved if m[1] != 0]
    moved.sort(key=lambda m: -abs(m[1]))
    lower = row.paired.lower_is_better
    changes = []
    for sid, difference in moved[:limit]:
        sample = a.samples.get(sid) or b.samples.get(sid)
        changes.append(
            Change(
                request_id=str(sid),
                query=preview(sample.request.query, 200) if sample else "",
                value_a=float(values_a[sid]),
                value_b=float(values_b[sid]),
                difference=difference,
                better=difference < 0 if lower else difference > 0,
                response_a=_response(a, sid),
                response_b=_response(b, sid),
                rationale_a=a.rationales.get((sid, row.metric)),
                rationale_b=b.rationales.get((sid, row.metric)),
            )
        )
    return changes


def _compare(store_a: Store, run_a: str, store_b: Store, run_b: str, by: str | None) -> Comparison:
    """The comparison; without ``by`` the breakdown of run A's config, when both runs'
    samples carry it."""
    if by is not None:
        return compare_runs(store_a, run_a, store_b, run_b, by=by)
    default = store_a.run(run_a).config.get("by")
    if default:
        try:
            return compare_runs(store_a, run_a, store_b, run_b, by=default)
        except AnalysisError:
            pass  # the other run's samples lack the key: compare without a breakdown
    return compare_runs(store_a, run_a, store_b, run_b)


def comparison_report_html(
    store_a: Store,
    run_a: str,
    store_b: Store,
    run_b: str,
    *,
    by: str | None = None,
    home: str | None = None,
) -> str:
    """The HTML page comparing run B with run A (each a unique id prefix in its store).
    Raises ``KeyError`` for an unknown run and ``ValueError`` when the runs share no
    sample or metric (see :func:`ragjudge.analysis._compare.compare_runs`)."""
    comparison = _compare(store_a, run_a, store_b, run_b, by)
    info_a, info_b = store_a.run(run_a), store_b.run(run_b)
    exclude = exclusions(merged_meanings(info_a, info_b))
    a, b = _side(store_a, info_a.run_id, exclude), _side(store_b, info_b.run_id, exclude)
    changes = {row.metric: changed_most(row, a, b) for row in comparison.rows}
    return render_page(
        "compare.html.jinja",
        title=f"{info_b.name or info_b.run_id} vs {info_a.name or info_a.run_id}",
        comparison=comparison,
        a=info_a,
        b=info_b,
        changes=changes,
        home=home,
    )
