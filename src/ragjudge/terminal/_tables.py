"""Table scaffolding shared by the terminal reports."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import JustifyMethod
from rich.table import Table

__all__ = ["titled_table"]


def titled_table(title: str, columns: Sequence[tuple[str, JustifyMethod]]) -> Table:
    """An empty table, its title left-aligned, with ``columns`` as (header, justify)."""
    out = Table(title=title, title_justify="left")
    for column, justify in columns:
        out.add_column(column, justify=justify)
    return out
