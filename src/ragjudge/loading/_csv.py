"""Reading the rows of a CSV evaluation set (or TSV, or text cut by another
delimiter), refusing broken quoting.

A quote that is opened and never closed makes a CSV reader take every following line
into one cell: four rows load as one, without a word. So quoting is read strictly:

- a quoted cell must be closed, and its closing quote followed by the delimiter or the
  end of the line (a quote inside a quoted cell is written ``""``);
- a row with fewer cells than the header whose quoted cell spans several lines is
  refused too: that is a quote closed rows too late, not a long answer.

Each problem names the row, the cell's column and the line where its quote opened.
Reading stops at a broken quote: which lines after it are rows cannot be known. Quotes
inside an unquoted cell (``5" screen``) are plain characters, as in every CSV reader.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from ragjudge.errors import RowProblem


@dataclass
class CsvRows:
    """The data rows of a CSV text (number and cells by column name) and its problems."""

    records: list[tuple[int, dict[str, str]]]
    problems: list[RowProblem]


def read_csv_rows(text: str, label: str, delimiter: str = ",") -> CsvRows:
    """Every data row of ``text``, its cells cut at ``delimiter`` (one character; a
    tab for TSV). Row 1 is the first after the header; blank rows are skipped but
    counted, empty cells left out."""
    with _cells_as_long_as(len(text)):
        return _read_rows(text, label, delimiter)


def _read_rows(text: str, label: str, delimiter: str) -> CsvRows:
    rows = CsvRows([], [])
    reader = csv.reader(io.StringIO(text, newline=""), strict=True, delimiter=delimiter)
    header: list[str] | None = None
    number, start_line = 0, 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            refused = _csv_problem(text, label, header, (number + 1, start_line), exc, delimiter)
            rows.problems.append(refused)
            break
        end_line, first_line, start_line = reader.line_num, start_line, reader.line_num + 1
        if header is None:
            header = cells
            if problem := _header_problem(header, label):
                rows.problems.append(problem)
                break
            continue
        number += 1
        if not any(cell.strip() for cell in cells):
            continue
        if problem := _row_problem(label, number, header, cells, first_line, end_line):
            rows.problems.append(problem)
            continue
        rows.records.append(
            (number, {name: cell for name, cell in zip(header, cells, strict=False) if cell != ""})
        )
    return rows


@contextmanager
def _cells_as_long_as(size: int) -> Iterator[None]:
    """Let one cell hold up to ``size`` characters (the csv module stops at 128 KiB,
    and long contexts are not a mistake)."""
    previous = csv.field_size_limit()
    csv.field_size_limit(max(size, previous))
    try:
        yield
    finally:
        csv.field_size_limit(previous)


def _header_problem(header: list[str], label: str) -> RowProblem | None:
    duplicates = sorted({name for name in header if header.count(name) > 1})
    if not duplicates:
        return None
    reason = f"the header repeats the column(s) {', '.join(duplicates)}"
    return RowProblem(source=label, row=0, field="<file>", reason=reason)


def _row_problem(
    label: str, number: int, header: list[str], cells: list[str], first_line: int, end_line: int
) -> RowProblem | None:
    if len(cells) > len(header):
        reason = f"the row has {len(cells)} cells but the header names {len(header)}"
        return RowProblem(source=label, row=number, field="<row>", reason=reason)
    spanning = [i for i, cell in enumerate(cells) if "\n" in cell or "\r" in cell]
    if len(cells) < len(header) and spanning:
        column = header[spanning[-1]]
        reason = (
            f"the row has {len(cells)} of the header's {len(header)} cells and this quoted "
            f"cell runs from line {first_line} to line {end_line}: a quote is probably "
            'not closed where it should be (write "" for a quote inside a quoted cell)'
        )
        return RowProblem(source=label, row=number, field=column, reason=reason)
    return None


def _csv_problem(
    text: str,
    label: str,
    header: list[str] | None,
    where: tuple[int, int],
    exc: Exception,
    delimiter: str,
) -> RowProblem:
    """The problem of the record ``where`` (its row number and first line) that the
    strict reader refused: which cell, and where its quote opened."""
    number, start_line = where
    # Split as the reader did (its line numbers count these lines), not str.splitlines().
    lines = io.StringIO(text, newline="").readlines()
    broken = _broken_cell("".join(lines[start_line - 1 :]), delimiter)
    if broken is None:
        reason = f"line {start_line} cannot be read as CSV: {exc}"
        field = "<row>"
    else:
        reason = _quoting_reason(broken, start_line)
        field = header[broken.cell] if header and broken.cell < len(header) else "<row>"
    if header is None:
        return RowProblem(source=label, row=0, field="<file>", reason=f"the header: {reason}")
    return RowProblem(source=label, row=number, field=field, reason=reason)


def _quoting_reason(broken: _BrokenCell, start_line: int) -> str:
    opened, closed = broken.opened + start_line - 1, broken.closed + start_line - 1
    if broken.unclosed:
        reason = (
            f"the quote opened on line {opened} is never closed: every line after it "
            "would be read into this one cell"
        )
    else:
        reason = (
            f"the quote opened on line {opened} closes on line {closed} with text after "
            "it; a quoted cell must end at its closing quote"
        )
    return reason + ' (write "" for a quote inside a quoted cell)'


@dataclass
class _BrokenCell:
    cell: int
    """Index of the cell in its row."""
    opened: int
    """Line of its opening quote, counted from the row's first line (1)."""
    closed: int
    """Line of its closing quote; equal to ``opened`` when it has none."""
    unclosed: bool


def _broken_cell(record: str, delimiter: str) -> _BrokenCell | None:
    """The first cell of ``record`` whose quoting is broken: a quote never closed, or
    text after a closing quote; None when its quoting is sound."""
    ends = delimiter + "\r\n"
    cell, line, index = 0, 1, 0
    while index < len(record):
        if record[index] == '"':
            opened = line
            index += 1
            while True:
                end = record.find('"', index)
                if end < 0:
                    return _BrokenCell(cell, opened, opened, unclosed=True)
                line += record.count("\n", index, end)
                index = end + (2 if record.startswith('""', end) else 1)
                if index == end + 1:
                    break
            if index < len(record) and record[index] not in ends:
                return _BrokenCell(cell, opened, line, unclosed=False)
        while index < len(record) and record[index] not in ends:
            index += 1
        if index >= len(record) or record[index] != delimiter:
            break
        cell, index = cell + 1, index + 1
    return None
