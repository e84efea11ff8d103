"""The report of one stored run: summary, plots, the samples table and every sample's
drill-down, as one self-contained HTML page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

from ragjudge._util.redact import mask_record
from ragjudge.analysis._calibrated import calibrated_estimates
from ragjudge.analysis._judges import grouped_names, judge_labels
from ragjudge.analysis._meanings import exclusions
from ragjudge.analysis._passes import PassRate
from ragjudge.analysis._results import EvaluationResult, summarize_run
from ragjudge.meta._evaluation import meta_for_run
from ragjudge.report._embedded import embedded_results
from ragjudge.report._page import pack_fragments, render_fragment, render_page
from ragjudge.report._plots import (
    HumanPlots,
    distribution_figures,
    human_plots,
    spread_plots,
    subset_figures,
)
from ragjudge.report._samples import (
    WIDE_TABLE,
    column_labels,
    drill_views,
    pass_words,
    sample_rows,
)
from ragjudge.report._series import series_figures
from ragjudge.report._svg import ci_cell
from ragjudge.schema import ScoreMeaning
from ragjudge.stats import MetricSummary, group_names
from ragjudge.store._store import Store

__all__ = ["run_report_html"]


def run_report_html(
    store: Store,
    run_id: str,
    *,
    by: str | None = None,
    human: Sequence[str] = (),
    home: str | None = None,
    refresh: int | None = None,
) -> str:
    """The HTML report of run ``run_id`` (a unique prefix will do).

    ``by`` breaks the means down by a metadata key (default: the run's own ``by``);
    ``human`` names metadata keys holding human scores, each plotted against every
    metric with the correlations of ``ragjudge meta``; ``home`` is the address of the
    page listing the runs (the viewer's), linked from the header; ``refresh`` makes
    the page reload itself every so many seconds (a running run's, in the viewer). Raises ``KeyError``
    for an unknown run and ``ValueError`` for an unknown ``by`` or ``human`` key.
    """
    run = store.run(run_id)
    by = by if by is not None else run.config.get("by")
    result = summarize_run(store, run.run_id, by=by)
    shown = embedded_results(store, run, whole_frame=bool(human))
    frame, samples, outputs, scores = shown.frame, shown.samples, shown.outputs, shown.scores
    metrics = [s.metric for s in result.summaries]
    rows = sample_rows(samples, outputs, scores, metrics, result.meanings, by)
    drills = drill_views(samples, outputs, scores, shown.calls, result.meanings)
    fragments = [render_fragment("drill.html.jinja", d=d) for d in drills]
    plots: dict[str, Any] = {
        "distributions": distribution_figures(frame, result.summaries, result.meanings),
        "subsets": subset_figures(result.summaries, result.subsets, result.meanings, by)
        if by and result.subsets
        else [],
        "spread": spread_plots(frame, metrics) if run.trials > 1 and len(frame) else [],
        "human": _human(store, run.run_id, human, frame, result),
        "series": series_figures(store, run, result.meanings),
    }
    return render_page(
        "run.html.jinja",
        title=f"{run.name or 'run'} · {run.run_id}",
        run=run,
        result=result,
        metrics=metrics,
        labels=column_labels(metrics),
        wide_table=WIDE_TABLE,
        rows=rows,
        embedded=shown,
        groups=group_names(r.group for r in rows),
        plots=plots,
        summary_bars={s.metric: _summary_bar(s, result.meanings) for s in result.summaries},
        summary_rows=_summary_rows(result),
        pass_rates=_declared_pass_rates(result),
        calibrated=list(calibrated_estimates(store, run.run_id, result.meanings).values()),
        pass_at={name: pass_words(m) for name, m in result.meanings.items()},
        judge_cells=_judge_cells(result),
        usage_total=_usage_total(result.judge_usage),
        errors_by_cause=_errors_by_cause(result),
        config=mask_record(run.config),
        packed=pack_fragments(fragments),
        home=home,
        refresh=refresh,
        by=by,
    )


def _human(
    store: Store, run_id: str, human: Sequence[str], frame: Any, result: EvaluationResult
) -> HumanPlots | None:
    if not human or not len(frame):
        return None
    table = meta_for_run(store, run_id, list(human))
    return human_plots(table, frame, exclusions(result.meanings))


def _summary_rows(result: EvaluationResult) -> list[MetricSummary]:
    """The summaries in table order: a run's judges' scores grouped by metric."""
    by_name = {s.metric: s for s in result.summaries}
    return [by_name[name] for name in grouped_names(list(by_name), result.meanings)]


def _declared_pass_rates(result: EvaluationResult) -> dict[str, PassRate]:
    """The pass rate of each score with a declared threshold, by score name."""
    return {rate.metric: rate for rate in result.pass_rates if rate.threshold is not None}


def _judge_cells(result: EvaluationResult) -> dict[str, tuple[str, str]]:
    """Per score of a named judge or an ensemble: the metric shown on its row (on the
    first row of its metric only) and the judge; empty for a run with one judge."""
    labels = judge_labels(result.meanings, [s.metric for s in result.summaries])
    if not labels:
        return {}
    cells: dict[str, tuple[str, str]] = {}
    previous = None
    for s in _summary_rows(result):
        metric, judge = labels.get(s.metric, (s.metric, ""))
        cells[s.metric] = ("" if metric == previous else metric, judge)
        previous = metric
    return cells


def _summary_bar(summary: MetricSummary, meanings: Mapping[str, ScoreMeaning]) -> Markup:
    """The mean and its interval drawn on the score's declared range (widened to the
    values when the range is open)."""
    if summary.mean is None:
        return Markup("")
    interval = None if summary.ci is None else (summary.ci.low, summary.ci.high)
    meaning = meanings.get(summary.metric)
    seen = [summary.mean, *(interval or ())]
    low = meaning.low if meaning is not None and meaning.low is not None else min(0.0, *seen)
    high = meaning.high if meaning is not None and meaning.high is not None else max(1.0, *seen)
    return ci_cell(summary.mean, interval, low, high)


def _errors_by_cause(result: EvaluationResult) -> dict[str, int]:
    """The run's failed results counted by cause over every metric, most first."""
    counts: dict[str, int] = {}
    for group in result.errors:
        counts[group.cause] = counts.get(group.cause, 0) + group.count
    return dict(sorted(counts.items(), key=lambda item: -item[1]))


def _usage_total(usage: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The judge usage summed over purposes (None with fewer than two purposes)."""
    if len(usage) < 2:
        return None
    costs = [u["cost"] for u in usage if u["cost"] is not None]
    total: dict[str, Any] = {
        key: sum(int(u[key] or 0) for u in usage)
        for key in ("calls", "cached", "input_tokens", "output_tokens", "errors", "attempts")
    }
    total["cost"] = sum(costs) if costs else None
    return total
