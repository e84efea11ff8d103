"""Rendering results for people: terminal tables of run summaries, comparisons and
meta-evaluations (correlation, agreement, PPI and the Figure 2 layout, also as
Markdown)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragjudge._lazy import lazy_names

# Each public name and the module that defines it, imported on first use: listing the
# runs does not load the statistics behind comparisons and meta-evaluations.
_EXPORTS = {
    "agreement_grids": "ragjudge.report._agreement",
    "annotator_notes": "ragjudge.report._agreement",
    "ppi_grid": "ragjudge.report._agreement",
    "render_comparison": "ragjudge.report._compare",
    "figure2_grid": "ragjudge.report._figure2",
    "figure2_markdown": "ragjudge.report._figure2",
    "Grid": "ragjudge.report._grid",
    "render_meta": "ragjudge.report._meta",
    "render_methods": "ragjudge.report._methods",
    "render_repro": "ragjudge.report._repro",
    "render_stability": "ragjudge.report._stability",
    "errors_table": "ragjudge.report._terminal",
    "print_plan": "ragjudge.report._terminal",
    "print_result": "ragjudge.report._terminal",
    "runs_table": "ragjudge.report._terminal",
    "summary_table": "ragjudge.report._terminal",
    "usage_table": "ragjudge.report._terminal",
}

if TYPE_CHECKING:
    from ragjudge.report._agreement import agreement_grids, annotator_notes, ppi_grid
    from ragjudge.report._compare import render_comparison
    from ragjudge.report._figure2 import figure2_grid, figure2_markdown
    from ragjudge.report._grid import Grid
    from ragjudge.report._meta import render_meta
    from ragjudge.report._methods import render_methods
    from ragjudge.report._repro import render_repro
    from ragjudge.report._stability import render_stability
    from ragjudge.report._terminal import (
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
    "errors_table",
    "figure2_grid",
    "figure2_markdown",
    "ppi_grid",
    "print_plan",
    "print_result",
    "render_comparison",
    "render_meta",
    "render_methods",
    "render_repro",
    "render_stability",
    "runs_table",
    "summary_table",
    "usage_table",
]

__getattr__ = lazy_names(__name__, _EXPORTS, globals())
