"""The terminal tables of a run's reproducibility over trials: how each sample's values
came out (``5: 50/50`` — the value 5 in 50 of 50 trials)."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text

from ragjudge.analysis._repro import ReproTable, SampleRepro
from ragjudge.terminal._names import cut_to_cells
from ragjudge.terminal._tables import titled_table

__all__ = ["render_repro"]

_CRITERION_CHARS = 60


def render_repro(table: ReproTable) -> Group:
    """Per sample and score the distribution over trials; then, for rubric scores,
    each item's agreement with its majority verdict."""
    scores = titled_table(
        f"reproducibility over {table.trials} trials — run {table.run_id}",
        (
            ("score", "left"),
            ("sample", "left"),
            ("distribution (value: trials)", "left"),
            ("= mode", "right"),
            ("sd", "right"),
            ("errors", "right"),
        ),
    )
    for row in table.rows:
        scores.add_row(
            Text(row.metric),
            Text(row.request_id),
            _distribution(row),
            "–" if row.values is None else f"{row.values.mode_share:.0%}",
            "–" if row.values is None or row.values.sd is None else f"{row.values.sd:.3f}",
            str(row.errors),
        )
    parts: list[Table] = [scores]
    items = _items_table(table)
    if items is not None:
        parts.append(items)
    return Group(*parts)


def _distribution(row: SampleRepro) -> str:
    if row.values is None:
        return "no value"
    n = row.values.n
    return ", ".join(f"{value:g}: {count}/{n}" for value, count in row.values.distribution.items())


def _items_table(table: ReproTable) -> Table | None:
    rows = [row for row in table.rows if row.items]
    if not rows:
        return None
    out = titled_table(
        "rubric items: agreement with the majority verdict",
        (
            ("score", "left"),
            ("sample", "left"),
            ("item", "left"),
            ("points", "right"),
            ("majority", "center"),
            ("agreement", "right"),
        ),
    )
    for row in rows:
        for item in row.items:
            a = item.agreement
            majority = "tie" if a.majority is None else ("met" if a.majority else "not met")
            out.add_row(
                Text(row.metric),
                Text(row.request_id),
                Text(_short(item.criterion)),
                f"{item.points:g}",
                majority,
                "all agree" if a.all_agree else f"{a.agreement:.0%} ({a.yes}/{a.n} met)",
            )
    return out


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return cut_to_cells(flat, _CRITERION_CHARS)
