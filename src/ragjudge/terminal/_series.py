"""The table of a run series: one row per incremental run of one config."""

from __future__ import annotations

from rich import box
from rich.table import Table

from ragjudge.analysis._series import RunSeries

__all__ = ["series_table"]


def series_table(series: RunSeries) -> Table:
    """Date, run id, new rows and the metric's mean with its 95% CI, oldest run first."""
    table = Table(title=f"{series.metric} over time", box=box.SIMPLE_HEAD, title_justify="left")
    for column in ("date", "run", "new rows", "mean", "95% CI"):
        table.add_column(column, justify="right" if column in ("new rows", "mean") else "left")
    for point in series.points:
        mean = "—" if point.mean is None else f"{point.mean:.3f}"
        ci = "—" if point.low is None or point.high is None else f"{point.low:.3f}–{point.high:.3f}"
        table.add_row(point.created_at[:19], point.run_id, str(point.new_rows), mean, ci)
    return table
