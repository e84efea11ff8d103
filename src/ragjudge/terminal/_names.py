"""Metric names in narrow tables: a long name (``response/llm_judged/…/rating``) wraps
after its ``/`` (then ``_`` or ``.``) so every part stays legible, instead of being cut
with an ellipsis. Widths are display cells (``rich.cells.cell_len``): a CJK character
takes two, so a Japanese name wraps where the terminal would."""

from __future__ import annotations

import re
from collections.abc import Iterator

from rich.cells import cell_len, chop_cells, set_cell_size
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.text import Text

__all__ = ["WrappedName", "cut_to_cells"]

_AFTER_SLASH = re.compile(r"(?<=/)")
_AFTER_WORD = re.compile(r"(?<=[_.])")


class WrappedName:
    """A name that a table cell may wrap at its separators."""

    def __init__(self, name: str, style: str = "") -> None:
        self.name = name
        self.style = style

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        pieces = _AFTER_WORD.split(self.name.replace("/", "/\n"))
        shortest = max(cell_len(p.strip()) for p in pieces)
        return Measurement(min(shortest, 12), cell_len(self.name)).clamp(
            max_width=options.max_width
        )

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = list(_lines(self.name, max(1, options.max_width)))
        yield Text("\n".join(lines), style=self.style, overflow="fold")


def _lines(name: str, width: int) -> Iterator[str]:
    """``name`` in lines of at most ``width`` cells, broken after ``/`` where
    possible, then after ``_`` or ``.``, else anywhere."""
    line = ""
    for piece in _pieces(name, width):
        if line and cell_len(line) + cell_len(piece) > width:
            yield line
            line = ""
        line += piece
    if line:
        yield line


def _pieces(name: str, width: int) -> Iterator[str]:
    for part in _AFTER_SLASH.split(name):
        if cell_len(part) <= width:
            yield part
            continue
        for word in _AFTER_WORD.split(part):
            if word:
                yield from chop_cells(word, width)


def cut_to_cells(text: str, width: int) -> str:
    """``text`` in at most ``width`` display cells, ending with … when cut."""
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, max(0, width - 1)).rstrip() + "…"
