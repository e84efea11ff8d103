"""How a run's result shows in a notebook: a small HTML table of each metric's mean
with its confidence interval, n, errors and not-applicable count, under the run's id,
state and the reasons it did not deliver. Every piece of text is escaped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Protocol

from ragjudge.analysis._outcome import Verdict
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
    rows = "".join(_row(s, result) for s in result.summaries)
    table = (
        "<table><thead><tr><th style='text-align:left'>metric</th><th>mean</th>"
        "<th>95% CI</th><th>n</th><th>errors</th><th>n/a</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )
    report = f"<p>report: {escape(str(result.report_path))}</p>" if result.report_path else ""
    return f"<div>{head}{f'<ul>{reasons}</ul>' if reasons else ''}{table}{report}</div>"


def _row(summary: MetricSummary, result: EvaluationResult) -> str:
    ci = "–" if summary.ci is None else f"[{_number(summary.ci.low)}, {_number(summary.ci.high)}]"
    meaning = result.meanings.get(summary.metric)
    title = f' title="{escape(meaning.description)}"' if meaning and meaning.description else ""
    failed = ' style="color:#b3261e"' if summary.errors else ""
    return (
        f"<tr><td style='text-align:left'{title}>{escape(summary.metric)}</td>"
        f"<td><b>{_number(summary.mean)}</b></td><td>{ci}</td><td>{summary.n}</td>"
        f"<td{failed}>{summary.errors}</td><td>{summary.skipped}</td></tr>"
    )


def _number(value: float | None) -> str:
    return "–" if value is None else f"{value:.4g}"
