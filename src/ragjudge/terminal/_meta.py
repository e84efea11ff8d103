"""The terminal table of a meta-evaluation: every metric against human scores."""

from __future__ import annotations

from rich.table import Table

from ragjudge.meta._evaluation import MetaBlock, MetaTable
from ragjudge.stats import CORRELATION_METHODS, Correlation

__all__ = ["render_meta"]

_METHOD_TITLES = {"pearson": "Pearson", "spearman": "Spearman", "kendall": "Kendall"}


def render_meta(table: MetaTable, *, title: str | None = None) -> Table:
    """A terminal table of every metric against a human score: per block, the human score's mean
    first, then each metric's mean and its correlations with their intervals and n."""
    percent = f"{table.confidence:.0%}"
    default_title = f"Correlation with human scores ({percent} bootstrap CI, {table.combine})"
    out = Table(title=title or default_title + _level_title(table), title_justify="left")
    if table.by is not None:
        out.add_column(table.by)
    out.add_column("human")
    out.add_column("metric")
    out.add_column("mean", justify="right")
    for method in CORRELATION_METHODS:
        out.add_column(f"{_METHOD_TITLES[method]} [{percent} CI]", justify="right")
    out.add_column("n" if table.level == "sample" else f"n ({table.group_key})", justify="right")
    for block in table.blocks:
        _add_block(out, block, grouped=table.by is not None, per_sample=table.level == "sample")
    notes = [_missing_note(b) for b in table.blocks if b.missing]
    if table.where is not None:
        notes.insert(0, f"samples where {table.where}")
    if notes:
        out.caption = "\n".join(notes)
        out.caption_justify = "left"
    return out


def _level_title(table: MetaTable) -> str:
    if table.level == "summary":
        return f"\nsummary level: correlation within each {table.group_key}, averaged"
    if table.level == "system":
        return f"\nsystem level: correlation of the means per {table.group_key}"
    return ""


def _add_block(out: Table, block: MetaBlock, *, grouped: bool, per_sample: bool) -> None:
    lead = [block.group or ""] if grouped else []
    one = "1.000" if block.n >= 2 else "–"
    out.add_row(
        *lead,
        block.human,
        "(human score)",
        _number(block.human_mean),
        *[one] * len(CORRELATION_METHODS),
        str(block.n) if per_sample else f"{block.n} samples",
    )
    for i, row in enumerate(block.rows):
        cells = [_correlation_cell(row.correlations[m]) for m in CORRELATION_METHODS]
        out.add_row(
            *([""] if grouped else []),
            "",
            row.metric,
            _number(row.mean),
            *cells,
            str(row.n if per_sample else row.correlations["pearson"].n),
            end_section=i == len(block.rows) - 1,
        )


def _missing_note(block: MetaBlock) -> str:
    where = f" in {block.group}" if block.group is not None else ""
    note = f"{block.human}: {block.missing} sample(s){where} without a human score left out"
    if block.left_out:
        note += f" ({block.left_out} where the annotators could not judge)"
    return note


def _number(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _correlation_cell(corr: Correlation) -> str:
    if corr.estimate is None:
        return "–"
    if corr.ci is None:
        return f"{corr.estimate:.3f}"
    return f"{corr.estimate:.3f} [{corr.ci.low:.2f}, {corr.ci.high:.2f}]"
