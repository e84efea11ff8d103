"""How a run's result shows in a notebook: a small HTML table of each metric's mean
with its confidence interval, n, errors, not-applicable count and (for a score with a
per-sample threshold) the share of samples passing it, under the run's id,
state and the reasons it did not deliver. Every piece of text is escaped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Protocol

from ragjudge.analysis._outcome import Verdict
from ragjudge.analysis._passes import PassRate
from ragjudge.schema import ScoreMeaning
from ragjudge.stats import MetricSummary


class EvaluationResult(Protocol):
    """What the table shows of :class:`ragjudge.analysis.EvaluationResult`."""

    @property
    def run_id(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def n_samples(self) -> int: ...
    @property
    def trials(self) -> int: ...
    @property
    def store_path(self) -> Path: ...
    @property
    def verdict(self) -> Verdict: ...
    @property
    def summaries(self) -> Sequence[MetricSummary]: ...
    @property
    def meanings(self) -> Mapping[str, ScoreMeaning]: ...
    @property
    def report_path(self) -> Path | None: ...
    @property
    def pass_rates(self) -> Sequence[PassRate]: ...


__all__ = ["result_html"]

_STYLE = {
    "completed": "color:#1d7a46",
    "failed": "color:#b3261e",
    "incomplete": "color:#b3261e",
    "interrupted": "color:#8a5a00",
}


def result_html(result: EvaluationResult) -> str:
    """The result as an HTML fragment (a notebook's ``_repr_html_``)."""
    state = result.status
    head = (
        f"<p><b>run {escape(result.run_id)}</b> "
        f'<span style="{_STYLE.get(state, "")}">{escape(state)}</span> · '
        f"{result.n_samples} samples"
        + (f" × {result.trials} trials" if result.trials > 1 else "")
        + f" · {escape(str(result.store_path))}</p>"
    )
    reasons = "".join(
        f'<li style="color:#b3261e">{escape(reason)}</li>' for reason in result.verdict.reasons
    )
    rates = {rate.metric: rate for rate in result.pass_rates}
    rows = "".join(
        _row(s, result, rates.get(s.metric) if rates else None) for s in result.summaries
    )
    pass_head = "<th>pass rate</th>" if rates else ""
    table = (
        "<table><thead><tr><th style='text-align:left'>metric</th><th>mean</th>"
        f"<th>95% CI</th><th>n</th><th>errors</th><th>n/a</th>{pass_head}</tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )
    report = f"<p>report: {escape(str(result.report_path))}</p>" if result.report_path else ""
    return f"<div>{head}{f'<ul>{reasons}</ul>' if reasons else ''}{table}{report}</div>"


def _row(summary: MetricSummary, result: EvaluationResult, rate: PassRate | None) -> str:
    ci = "–" if summary.ci is None else f"[{_number(summary.ci.low)}, {_number(summary.ci.high)}]"
    meaning = result.meanings.get(summary.metric)
    title = f' title="{escape(meaning.description)}"' if meaning and meaning.description else ""
    failed = ' style="color:#b3261e"' if summary.errors else ""
    return (
        f"<tr><td style='text-align:left'{title}>{escape(summary.metric)}</td>"
        f"<td><b>{_number(summary.mean)}</b></td><td>{ci}</td><td>{summary.n}</td>"
        f"<td{failed}>{summary.errors}</td><td>{summary.skipped}</td>"
        f"{_pass_cell(rate) if result.pass_rates else ''}</tr>"
    )


def _pass_cell(rate: PassRate | None) -> str:
    """The share passing with its interval and the pass condition, e.g.
    ``75% [50%, 100%] of 4 (≥ 0.8)``; a dash for a score without a pass."""
    if rate is None or rate.rate is None:
        return "<td>–</td>"
    ci = "" if rate.ci is None else f" [{rate.ci.low:.0%}, {rate.ci.high:.0%}]"
    judged = rate.passed + rate.failed
    return f"<td>{rate.rate:.0%}{ci} of {judged} ({escape(rate.condition)})</td>"


def _number(value: float | None) -> str:
    return "–" if value is None else f"{value:.4g}"
