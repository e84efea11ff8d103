"""The terminal table comparing a run's judge methods (a rating under general guidelines,
one under specific criteria, a rubric …) in numbers: discrimination, reproducibility,
strictness and cost."""

from __future__ import annotations

from collections.abc import Callable

from rich.table import Table
from rich.text import Text

from ragjudge.analysis._methods import MethodRow, MethodsTable

__all__ = ["render_methods"]

Cell = Callable[[MethodRow], str]


def _num(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _share(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _with_scale(row: MethodRow, value: float | None) -> str:
    relative = row.share_of_scale(value)
    return _num(value) + ("" if relative is None else f" ({relative:.0%} of scale)")


def _difference(row: MethodRow) -> str:
    if row.difference is None:
        return "–"
    text = _with_scale(row, row.difference)
    ci = row.difference_ci
    return text if ci is None else f"{text} [{ci.low:.3f}, {ci.high:.3f}]"


def _cost(row: MethodRow) -> str:
    return "–" if row.cost_per_sample is None else f"${row.cost_per_sample:.5f}"


def _aspects(paired: bool) -> list[tuple[str, str, Cell]]:
    """(aspect, figure, cell) rows; the aspect is named on its first row only."""
    discrimination: list[tuple[str, Cell]] = [
        ("pairs told apart", lambda r: f"{_share(r.ordered_pairs)} of {r.pairs}"),
        ("spread of sample means (sd)", lambda r: _with_scale(r, r.spread)),
    ]
    if paired:
        discrimination.insert(0, ("first − second response [95% CI]", _difference))
    groups: list[tuple[str, list[tuple[str, Cell]]]] = [
        ("discrimination", discrimination),
        (
            "reproducibility",
            [
                ("within-sample sd", lambda r: _with_scale(r, r.within_sd)),
                ("trials = the sample's mode", lambda r: _share(r.modal_agreement)),
                ("trials = the item's majority", lambda r: _share(r.item_agreement)),
                ("items on which all trials agree", lambda r: _share(r.items_all_agree)),
            ],
        ),
        ("strictness", [("mean on the scale (0 bottom, 1 top)", lambda r: _num(r.strictness, 2))]),
        ("interpretability", [("items judged per sample", lambda r: _num(r.items_per_sample, 1))]),
        (
            "cost",
            [
                ("judge calls per sample", lambda r: _num(r.calls_per_sample, 1)),
                ("tokens in / out per sample", _tokens),
                ("cost per sample", _cost),
            ],
        ),
    ]
    return [
        (aspect if index == 0 else "", figure, cell)
        for aspect, figures in groups
        for index, (figure, cell) in enumerate(figures)
    ]


def _tokens(row: MethodRow) -> str:
    if row.input_tokens_per_sample is None or row.output_tokens_per_sample is None:
        return "–"
    return f"{row.input_tokens_per_sample:,.0f} / {row.output_tokens_per_sample:,.0f}"


def render_methods(table: MethodsTable) -> Table:
    """Aspects as rows, methods as columns."""
    design = (
        f"paired: {table.requests} request(s) with several responses"
        if table.paired
        else "unpaired"
    )
    out = Table(
        title=f"judge methods compared — run {table.run_id}, {table.trials} trial(s), {design}",
        title_justify="left",
    )
    out.add_column("aspect")
    out.add_column("figure")
    for row in table.rows:
        label = row.metric if row.kind in (None, row.metric) else f"{row.metric} ({row.kind})"
        out.add_column(Text(label), justify="right")
    for aspect, figure, cell in _aspects(table.paired):
        out.add_row(aspect, figure, *(cell(row) for row in table.rows))
    out.caption = (
        "per sample: per scored sample and trial; told apart: trial means differ by more "
        "than 1.96 standard errors; a scale without a lower bound (a rubric rate) is "
        "counted from 0"
    )
    out.caption_justify = "left"
    return out
