"""Rendering results for people: terminal tables of run summaries, comparisons and
meta-evaluations (correlation, agreement, PPI and the correlation table of every metric
against the human scores, also as Markdown)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragjudge._util.lazy import lazy_names

# Each public name and the module that defines it, imported on first use: listing the
# runs does not load the statistics behind comparisons and meta-evaluations.
_EXPORTS = {
    "agreement_grids": "ragjudge.terminal._agreement",
    "annotator_notes": "ragjudge.terminal._agreement",
    "ppi_grid": "ragjudge.terminal._agreement",
    "calibrated_comparison_table": "ragjudge.terminal._calibrated",
    "calibrated_table": "ragjudge.terminal._calibrated",
    "render_comparison": "ragjudge.terminal._compare",
    "render_paired_passes": "ragjudge.terminal._compare",
    "correlation_table": "ragjudge.terminal._correlation_table",
    "correlation_table_markdown": "ragjudge.terminal._correlation_table",
    # the earlier names of the two above, still importable
    "figure2_grid": "ragjudge.terminal._correlation_table",
    "figure2_markdown": "ragjudge.terminal._correlation_table",
    "Grid": "ragjudge.terminal._grid",
    "judge_rankings": "ragjudge.terminal._judge_table",
    "judge_table_grid": "ragjudge.terminal._judge_table",
    "judge_table_markdown": "ragjudge.terminal._judge_table",
    "render_meta": "ragjudge.terminal._meta",
    "render_methods": "ragjudge.terminal._methods",
    "render_repro": "ragjudge.terminal._repro",
    "render_stability": "ragjudge.terminal._stability",
    "errors_table": "ragjudge.terminal._terminal",
    "print_plan": "ragjudge.terminal._terminal",
    "print_result": "ragjudge.terminal._terminal",
    "runs_table": "ragjudge.terminal._terminal",
    "summary_table": "ragjudge.terminal._terminal",
    "usage_table": "ragjudge.terminal._terminal",
}

if TYPE_CHECKING:
    from ragjudge.terminal._agreement import agreement_grids, annotator_notes, ppi_grid
    from ragjudge.terminal._calibrated import calibrated_comparison_table, calibrated_table
    from ragjudge.terminal._compare import render_comparison, render_paired_passes
    from ragjudge.terminal._correlation_table import (
        correlation_table,
        correlation_table_markdown,
    )
    from ragjudge.terminal._correlation_table import (
        figure2_grid as figure2_grid,
    )
    from ragjudge.terminal._correlation_table import (
        figure2_markdown as figure2_markdown,
    )
    from ragjudge.terminal._grid import Grid
    from ragjudge.terminal._judge_table import (
        judge_rankings,
        judge_table_grid,
        judge_table_markdown,
    )
    from ragjudge.terminal._meta import render_meta
    from ragjudge.terminal._methods import render_methods
    from ragjudge.terminal._repro import render_repro
    from ragjudge.terminal._stability import render_stability
    from ragjudge.terminal._terminal import (
        errors_table,
        print_plan,
        print_result,
        runs_table,
        summary_table,
        usage_table,
    )

__all__ = [
    "Grid",
    "agreement_grids",
    "annotator_notes",
    "calibrated_comparison_table",
    "calibrated_table",
    "correlation_table",
    "correlation_table_markdown",
    "errors_table",
    "judge_rankings",
    "judge_table_grid",
    "judge_table_markdown",
    "ppi_grid",
    "print_plan",
    "print_result",
    "render_comparison",
    "render_meta",
    "render_methods",
    "render_paired_passes",
    "render_repro",
    "render_stability",
    "runs_table",
    "summary_table",
    "usage_table",
]

__getattr__ = lazy_names(__name__, _EXPORTS, globals())
