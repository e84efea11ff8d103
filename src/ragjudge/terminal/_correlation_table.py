"""The correlation table of every metric against the human (expert) scores: one row per
metric (the human labels first), its mean, and per human label its correlation and its
agreement — for the terminal and as Markdown. It is laid out as the answer-accuracy
paper cited in ``docs/validation.md`` reports its metrics against expert scores."""

from __future__ import annotations

from ragjudge.meta._result import MetaBlock, MetaRow, MetaTable
from ragjudge.stats import Correlation
from ragjudge.terminal._agreement import agreement_grids, annotator_notes, ppi_grid
from ragjudge.terminal._grid import Grid, estimate_cell, interval_text, number

__all__ = ["correlation_table", "correlation_table_markdown"]

_TITLES = {"pearson": "Pearson r", "spearman": "Spearman ρ", "kendall": "Kendall τ"}


def _correlation_cell(corr: Correlation | None) -> str:
    if corr is None or corr.estimate is None:
        return "–"
    return number(corr.estimate) + interval_text(corr.ci)


def _agreement_cell(row: MetaRow) -> str:
    """The headline agreement figure of a row: preference agreement for pairs, the AUC
    for a binary target, weighted kappa for an ordinal label."""
    a = row.agreement
    if a is None:
        return "–"
    if a.preference is not None:
        return estimate_cell(a.preference.agreement)
    if a.binary is not None:
        return estimate_cell(a.binary.auc)
    if a.ordinal is not None:
        return estimate_cell(a.ordinal.weighted_kappa)
    return "–"


def _agreement_meaning(table: MetaTable, block: MetaBlock) -> str:
    rows = [r.agreement for r in block.rows if r.agreement]
    if any(a.preference for a in rows):
        base = next(a.preference for a in rows if a.preference)
        baseline = estimate_cell(base.baseline) if base else "–"
        return (
            f"share of the {base.n if base else 0} preferred pairs where the metric prefers "
            f"the same side (majority baseline {baseline})"
        )
    if any(a.binary for a in rows):
        accept = table.settings.acceptable
        target = "yes" if accept is None else f"human ≥ {accept:g}"
        return f"AUC of 'acceptable' ({target}); chance 0.5"
    if any(a.ordinal for a in rows):
        return f"{table.settings.kappa_weights}-weighted κ on the label's scale; chance 0"
    return "none (pass --acceptable LEVEL for a binary target)"


def correlation_table(table: MetaTable, *, correlation: str = "pearson") -> Grid:
    """The correlation table of every metric against the human labels: per group, the
    human rows, then one row per metric with its mean and, per human label, the
    correlation and the agreement with their CIs."""
    if correlation not in _TITLES:
        raise ValueError(f"correlation must be one of {', '.join(_TITLES)}, got {correlation!r}")
    humans = list(dict.fromkeys(b.human for b in table.blocks))
    groups = list(dict.fromkeys(b.group for b in table.blocks))
    percent = f"{table.confidence:.0%}"
    lead = [table.by] if table.by is not None else []
    mean = "mean (second − first)" if table.pairs is not None else "mean"
    headers = [*lead, "metric", mean, "n"]
    for human in humans:
        headers += [f"{human}: {_TITLES[correlation]}", f"{human}: agreement"]
    grid = Grid(
        title=f"Metrics against human labels ({percent} bootstrap CI)",
        headers=headers,
        left=len(lead) + 1,
    )
    for group in groups:
        blocks = {b.human: b for b in table.blocks if b.group == group}
        _add_group(grid, table, group, humans, blocks, correlation)
        grid.section()
    for human in humans:
        block = next(b for b in table.blocks if b.human == human)
        grid.notes.append(f"{human} ({block.kind}) agreement: {_agreement_meaning(table, block)}")
    grid.notes += annotator_notes(table)
    return grid


def _add_group(
    grid: Grid,
    table: MetaTable,
    group: str | None,
    humans: list[str],
    blocks: dict[str, MetaBlock],
    correlation: str,
) -> None:
    lead = [group or ""] if table.by is not None else []
    for human in humans:
        block = blocks[human]
        cells = []
        for other in humans:
            cells += ["1.000" if other == human and block.n >= 2 else "–", "–"]
        grid.add([*lead, f"(human) {human}", number(block.human_mean), str(block.n), *cells])
    first = blocks[humans[0]]
    for i, row in enumerate(first.rows):
        cells = []
        for human in humans:
            paired = blocks[human].rows[i]
            cells += [
                _correlation_cell(paired.correlations.get(correlation)),
                _agreement_cell(paired),
            ]
        grid.add([*lead, row.metric, number(row.mean), str(row.n), *cells])


def correlation_table_markdown(table: MetaTable, *, correlation: str = "pearson") -> str:
    """The correlation table, then the agreement (and PPI) tables in full, as Markdown."""
    parts = [correlation_table(table, correlation=correlation).to_markdown()]
    parts += [grid.to_markdown() for grid in agreement_grids(table)]
    ppi = ppi_grid(table)
    if ppi is not None:
        parts.append(ppi.to_markdown())
    return "\n".join(parts)


# The names these functions had before they were named for what they print; code that
# imports them keeps working.
figure2_grid = correlation_table
figure2_markdown = correlation_table_markdown
