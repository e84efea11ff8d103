"""The anchors section of a run summary: each judge's agreement with the expected
verdicts on the anchor samples, now and in the reference run, and a flag naming the
anchors of a judge whose verdicts moved."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from ragjudge.analysis._drift import DriftReport, JudgeAnchors

__all__ = ["anchors_table", "print_anchors"]

_SHOWN_IDS = 10
"""Request ids named per flag line before the rest are counted."""


def anchors_table(report: DriftReport) -> Table:
    """One row per score on the anchors: the judge, anchors agreeing now and in the
    reference run, and the anchors whose verdict changed."""
    title = "anchors" + (f" vs run {report.reference_run}" if report.reference_run else "")
    table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left")
    for column in ("score", "judge", "agree now", "agree before", "changed"):
        table.add_column(column, justify="left" if column in ("score", "judge") else "right")
    for score in report.scores:
        table.add_row(
            score.score,
            score.judge or "(the run's judge)",
            f"{score.agreeing}/{len(score.verdicts)}",
            "–"
            if score.reference_agreeing is None
            else f"{score.reference_agreeing}/{len(score.verdicts)}",
            str(len(score.changed)) if score.reference_agreeing is not None else "–",
            style="bold red" if score.moved else None,
        )
    return table


def print_anchors(report: DriftReport, console: Console) -> None:
    """The anchors table, a flag per judge whose anchors moved, and what could not be
    compared."""
    console.print(anchors_table(report))
    for score in report.moved:
        console.print(Text(_moved_line(score), style="bold red"), soft_wrap=True)
    if report.reference_problem:
        console.print(Text(f"anchors: {report.reference_problem}", style="yellow"), soft_wrap=True)
    if report.unmatched:
        named = _ids([f"{rid} ({metric})" for rid, metric in report.unmatched])
        console.print(Text(f"anchors naming no score of the run: {named}"), soft_wrap=True)


def _moved_line(score: JudgeAnchors) -> str:
    judge = f"judge {score.judge}" if score.judge else "the judge"
    parts = [
        f"{judge} moved on {score.score}: {score.agreeing}/{len(score.verdicts)} anchors "
        f"as expected, {score.reference_agreeing}/{len(score.verdicts)} in the reference run"
    ]
    if score.changed:
        parts.append(f"verdict changed on {_ids(score.changed)}")
    return "; ".join(parts)


def _ids(ids: list[str]) -> str:
    shown = ", ".join(ids[:_SHOWN_IDS])
    return shown if len(ids) <= _SHOWN_IDS else f"{shown} and {len(ids) - _SHOWN_IDS} more"
