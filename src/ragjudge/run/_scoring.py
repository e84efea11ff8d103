"""How one metric scores one sample: awaited (:func:`score_one`) or on the spot
(:func:`score_now`, for a metric whose :attr:`~ragjudge.metrics.Metric.scored_inline`
is set), with the same rules either way — a row the metric does not apply to is
scored not applicable, a failed target and a metric that raises give an explicit error
for each of its scores."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Sequence
from typing import Any

from ragjudge.metrics import Metric, MetricContext
from ragjudge.schema import Output, Sample, Score

__all__ = [
    "by_trial",
    "end_shared_work",
    "fresh_context",
    "not_applicable",
    "score_now",
    "score_one",
]


async def score_one(
    metric: Metric, sample: Sample, output: Output, ctx: MetricContext
) -> list[Score]:
    """The metric's scores for one sample; a failed target or a metric that raises
    gives an explicit error for each of its scores."""
    if (skipped := not_applicable(metric, sample)) is not None:
        return skipped
    if output.error is not None and output.response is None:
        return _target_failed(metric, sample, output)
    try:
        result = await metric.score(sample, output, ctx)
    except Exception as exc:  # a metric bug or bad row becomes this score's error
        return _raised(metric, sample, exc)
    return result if isinstance(result, list) else [result]


def score_now(metric: Metric, sample: Sample, output: Output, ctx: MetricContext) -> list[Score]:
    """:func:`score_one` for an inline metric, through :meth:`Metric.score_now`."""
    if (skipped := not_applicable(metric, sample)) is not None:
        return skipped
    if output.error is not None and output.response is None:
        return _target_failed(metric, sample, output)
    try:
        return metric.score_now(sample, output, ctx)
    except Exception as exc:  # a metric bug or bad row becomes this score's error
        return _raised(metric, sample, exc)


def not_applicable(metric: Metric, sample: Sample) -> list[Score] | None:
    """The not-applicable scores of a row the metric does not apply to
    (:attr:`Metric.rows_not_applicable`), else None."""
    reason = metric.rows_not_applicable.get(sample.request_id)
    return None if reason is None else metric.not_applicable(reason, sample)


def _target_failed(metric: Metric, sample: Sample, output: Output) -> list[Score]:
    error = f"target failed: {output.error}"
    return [Score.failed(n, error) for n in metric.score_names_for(sample)]


def _raised(metric: Metric, sample: Sample, exc: Exception) -> list[Score]:
    error = f"{type(exc).__name__}: {exc}"
    return [Score.failed(n, error) for n in metric.score_names_for(sample)]


def by_trial(pending: Sequence[tuple[int, Metric]]) -> list[tuple[int, list[Metric]]]:
    """The trials with work left, each with its pending metrics, from
    :meth:`Execution._pending`."""
    return [
        (trial, [m for t, m in pending if t == trial]) for trial in sorted({t for t, _ in pending})
    ]


def fresh_context(context: MetricContext, trial: int, **changes: Any) -> MetricContext:
    """A copy of ``context`` for one sample and trial: no agent models, fresh shared
    work, no judges' contexts; ``changes`` set further fields."""
    fresh = copy.copy(context)  # shallow, as dataclasses.replace
    fresh.trial = trial
    fresh.models = {}
    fresh.shared = {}
    fresh.computed = {}
    fresh.judges = {}
    for name, value in changes.items():
        setattr(fresh, name, value)
    return fresh


async def end_shared_work(contexts: Sequence[MetricContext]) -> None:
    """Cancel and await the work the metrics of one sample and trial shared
    (:meth:`MetricContext.once`) that is still running once they ended — when the run
    is interrupted — so none of it outlives the sample (and the store); the judges'
    own contexts included."""
    every = [*contexts, *(j for c in contexts for j in c.judges.values())]
    left = {id(f): f for c in every for f in c.shared.values() if not f.done()}
    for work in left.values():
        work.cancel()
    if left:
        await asyncio.wait(left.values())
