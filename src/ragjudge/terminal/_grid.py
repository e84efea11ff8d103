"""A table of text cells that renders both to the terminal and to Markdown, so the
meta-evaluation tables printed and written to a file are one and the same."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.table import Table
from rich.text import Text

from ragjudge.stats import Estimate, Interval

__all__ = ["Grid", "estimate_cell", "interval_text", "number"]


@dataclass
class Grid:
    """Headers, rows of cells (a row of None cells is a section break) and notes."""

    title: str
    headers: list[str]
    rows: list[list[str] | None] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    left: int = 1
    """How many leading columns are text (left-aligned); the others are numbers."""

    def add(self, cells: Sequence[str]) -> None:
        self.rows.append(list(cells))

    def section(self) -> None:
        if self.rows and self.rows[-1] is not None:
            self.rows.append(None)

    def to_rich(self) -> Table:
        """A terminal table; cells and notes are plain text, never markup."""
        out = Table(title=Text(self.title), title_justify="left")
        for i, header in enumerate(self.headers):
            out.add_column(Text(header), justify="left" if i < self.left else "right")
        rows = self.rows[:-1] if self.rows and self.rows[-1] is None else self.rows
        for i, row in enumerate(rows):
            if row is None:
                continue
            last = i + 1 < len(rows) and rows[i + 1] is None
            out.add_row(*(Text(cell) for cell in row), end_section=last)
        if self.notes:
            out.caption = Text("\n".join(self.notes))
            out.caption_justify = "left"
        return out

    def to_markdown(self) -> str:
        """A Markdown table headed by its title in bold, the notes below it."""
        align = ["---" if i < self.left else "---:" for i in range(len(self.headers))]
        lines = [f"**{self.title}**", "", _md_row(self.headers), _md_row(align)]
        lines += [_md_row(row) for row in self.rows if row is not None]
        if self.notes:
            lines += ["", *[f"- {note}" for note in self.notes]]
        return "\n".join(lines) + "\n"


def _md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def number(value: float | None, digits: int = 3) -> str:
    """A figure with ``digits`` decimals; ``–`` when missing."""
    return "–" if value is None else f"{value:.{digits}f}"


def interval_text(ci: Interval | None) -> str:
    return "" if ci is None else f" [{ci.low:.2f}, {ci.high:.2f}]"


def estimate_cell(found: Estimate | None) -> str:
    """``0.720 [0.68, 0.76]``; ``–`` when undefined."""
    if found is None or found.value is None:
        return "–"
    return number(found.value) + interval_text(found.ci)
