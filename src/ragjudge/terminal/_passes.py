"""The terminal table of per-sample thresholds: per score with a declared threshold,
how many samples passed, failed or were not scored, and the pass rate with its CI."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich import box
from rich.table import Table

if TYPE_CHECKING:
    from ragjudge.analysis._passes import PassRate

__all__ = ["pass_table"]


def pass_table(rates: Sequence[PassRate]) -> Table | None:
    """The table of the scores with a declared threshold (None when no score has one);
    yes/no scores without one pass at yes, which their mean already counts."""
    declared = [rate for rate in rates if rate.threshold is not None]
    if not declared:
        return None
    table = Table(
        title="per-sample thresholds",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
    )
    for header in ("metric", "passes at", "passed", "failed", "not scored", "pass rate", "95% CI"):
        table.add_column(header, justify="left" if header == "metric" else "right")
    for rate in declared:
        share = "–" if rate.rate is None else f"{rate.rate:.1%}"
        ci = "–" if rate.ci is None else f"[{rate.ci.low:.1%}, {rate.ci.high:.1%}]"
        table.add_row(
            rate.metric,
            rate.condition,
            str(rate.passed),
            str(rate.failed),
            str(rate.unscored),
            share,
            ci,
        )
    return table
