"""The table of a run read from a results table (``ragjudge show --table``)."""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.table import Table

from ragjudge.analysis._table_summary import ScoreSummary

__all__ = ["score_summary_table"]


def score_summary_table(run_id: str, summaries: Sequence[ScoreSummary]) -> Table:
    """One row per score: results, not applicable, errors, mean, lowest and highest."""
    table = Table(title=f"run {run_id}", box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column("score")
    for column in ("results", "not applicable", "errors", "mean", "lowest", "highest"):
        table.add_column(column, justify="right")
    for s in summaries:
        table.add_row(
            s.score,
            str(s.results),
            str(s.not_applicable),
            str(s.errors),
            _number(s.mean),
            _number(s.lowest),
            _number(s.highest),
        )
    return table


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"
