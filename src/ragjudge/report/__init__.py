"""Rendering results for people: terminal tables of run summaries, comparisons and
meta-evaluations."""

from ragjudge.report._compare import render_comparison
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
    "errors_table",
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
