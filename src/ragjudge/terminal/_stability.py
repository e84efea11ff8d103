"""The terminal table of a run's stability over trials, beside the RAGAS-style stability
rating of each RAGAS metric."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from ragjudge.analysis._stability import StabilityTable
from ragjudge.terminal._tables import titled_table

__all__ = ["render_stability"]


def _number(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def render_stability(table: StabilityTable) -> Table:
    """Per metric: its RAGAS-style stability rating, the within-sample spread, the share
    of flipping samples, ICC(1,1) with its interval, and the spread–size correlation."""
    out = titled_table(
        f"stability over {table.trials} trials — run {table.run_id}",
        (
            ("metric", "left"),
            ("RAGAS-style stability rating", "center"),
            ("samples", "right"),
            ("within-sample sd", "right"),
            ("flips (≥ 0.5)", "right"),
            ("ICC(1,1) [95% CI]", "right"),
            ("spread ~ size (Spearman, n)", "right"),
        ),
    )
    for row in table.rows:
        s = row.stability
        icc = _number(s.icc)
        if s.icc_ci is not None:
            icc += f" [{s.icc_ci.low:.2f}, {s.icc_ci.high:.2f}]"
        size = "–" if s.size_spearman is None else f"{s.size_spearman:+.2f} ({s.size_n})"
        out.add_row(
            Text(s.metric),
            row.seed_rating or "–",
            str(s.samples),
            _number(s.within_sd),
            "–" if s.flips is None else f"{s.flips:.0%}",
            icc,
            size,
        )
    out.caption = (
        "RAGAS-style stability rating: how stable the RAGAS metric is from experience "
        "(low, medium, high); flips: "
        "samples whose values across trials span at least 0.5; ICC: share of the "
        "variance between samples (1 = reproducible); a negative spread ~ size "
        "correlation means small texts are the unstable ones"
    )
    out.caption_justify = "left"
    return out
