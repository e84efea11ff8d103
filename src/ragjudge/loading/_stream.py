"""A folder of Parquet files read as pages of validated samples, never the whole set.

The rows are read in record batches, mapped, given request ids and validated a page at
a time, exactly as a whole load does; what is kept across pages is small per row: the
given request ids (a dict of id → first row, to report duplicates: about 100 bytes a
row), the ids derived so far (a set, about 80 bytes a row), the column names seen, and
the problems of bad rows.

The format is guessed from the columns of the first page; at the end of a pass, when
the columns of the whole set guess another (a column empty in the first page), or when
a request id given on a later page equals one derived on an earlier page,
:attr:`StreamedSet.again` asks the caller to read the set once more — with the format
and the given ids now known, which gives what a whole load gives.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from ragjudge.errors import DatasetError, RowProblem
from ragjudge.loading._columns import check_columns, unfound_columns
from ragjudge.loading._file_checks import file_problem
from ragjudge.loading._formats import (
    FileFormat,
    TraceFormat,
    detect_format,
    format_named,
    row_format,
)
from ragjudge.loading._mapping import RowFormat
from ragjudge.loading._readers import (
    ReadResult,
    ReadRules,
    parquet_folder_batches,
    read_records,
)
from ragjudge.loading._report import LoadReport
from ragjudge.loading._row_filter import parse_row_filter
from ragjudge.loading._samples import BuildRules, RequestIds, build_samples
from ragjudge.loading._values import MAX_FIELD_BYTES
from ragjudge.schema import Sample

__all__ = ["STREAM_PAGE_ROWS", "StreamedSet"]

STREAM_PAGE_ROWS = 2000
"""Rows read, validated and handed on at a time."""


class StreamedSet:
    """The evaluation set in a folder of Parquet files, as pages of samples (see the
    module docstring). ``format``, ``columns``, ``skip_invalid_rows`` and
    ``max_field_bytes`` and ``where`` mean what they mean to
    :func:`~ragjudge.loading.read_evaluation_set`."""

    def __init__(
        self,
        folder: Path,
        *,
        format: str | None = None,
        columns: Mapping[str, str] | None = None,
        skip_invalid_rows: bool = False,
        page_rows: int = STREAM_PAGE_ROWS,
        max_field_bytes: int = MAX_FIELD_BYTES,
        where: str | None = None,
    ) -> None:
        self.folder = folder
        self.label = str(folder)
        chosen = None if format is None else format_named(format)
        if isinstance(chosen, FileFormat | TraceFormat):
            raise ValueError(f"format {format!r} reads one file, not a folder")
        self.chosen: RowFormat | None = chosen
        self.mapping = check_columns(columns or {})
        row_filter = None if where is None else parse_row_filter(where)
        self.rules = ReadRules(self.mapping, max_field_bytes, row_filter=row_filter)
        self.skip_invalid_rows = skip_invalid_rows
        self.page_rows = page_rows
        self.report: LoadReport | None = None
        """How the set was read, once a pass has ended without :attr:`again`."""
        self.again = False
        """The pass that just ended must be read again (see the module docstring)."""
        self._format: RowFormat | None = chosen
        self._given: set[str] = set()
        self._seeded = False

    def pages(self) -> Iterator[list[Sample]]:
        """Every valid sample, a page at a time (a page may be empty when all its rows
        are bad). At the end: :class:`DatasetError` for bad rows (unless
        ``skip_invalid_rows``), or :attr:`again`, or :attr:`report` set."""
        self.again, self.report = False, None
        ids = RequestIds(taken=set(self._given))
        keys: dict[str, None] = {}
        problems: list[RowProblem] = []
        fields: dict[str, str] = {}
        unused: dict[str, None] = {}
        displaced: dict[str, str] = {}
        seen = ReadResult(self.label)  # the columns of every page, for the mapping's check
        rows = kept = 0
        for numbered in self._numbered_pages():
            read = read_records(self.label, numbered, self.rules)
            seen.columns.update(read.columns)
            seen.mapped_found.update(read.mapped_found)
            problems += read.problems
            for raw in read.rows:
                keys.update(dict.fromkeys(raw.data))
            rows += len(read.rows)
            if self._format is None:
                self._format = row_format(detect_format(keys)) if read.rows else None
            if self._format is None:
                continue
            built = build_samples(
                self.label, read.rows, self._format, BuildRules(self.mapping), ids
            )
            problems += built.problems
            for name, column in built.fields.items():
                fields.setdefault(name, column)
            unused.update(dict.fromkeys(built.unused))
            displaced.update(built.displaced)
            kept += len(built.samples)
            yield built.samples
        if not rows and not problems:
            raise DatasetError([file_problem(self.label, "the evaluation set holds no rows")])
        self._finish(list(keys), rows, ids, seen)
        if self.again:
            return
        problems.sort(key=lambda p: p.row)
        if problems and (not self.skip_invalid_rows or not kept):
            raise DatasetError(problems)
        assert self._format is not None
        self.report = LoadReport(
            source=self.label,
            format=self._format.name,
            title=self._format.label,
            guessed=self.chosen is None,
            fields=fields,
            unused=list(unused),
            skipped=problems,
            mapping=self.mapping,
            displaced=displaced,
        )

    def _numbered_pages(self) -> Iterator[list[tuple[int, object]]]:
        number = 0
        for records in parquet_folder_batches(
            self.folder, self.label, self.page_rows, self.rules.row_filter
        ):
            yield [(number + i, record) for i, record in enumerate(records, start=1)]
            number += len(records)

    def _finish(self, keys: list[str], rows: int, ids: RequestIds, seen: ReadResult) -> None:
        """The checks of the whole set's columns; whether to read it again."""
        if not rows:
            return  # every row is a problem
        unfound = unfound_columns(self.mapping, seen.mapped_found, seen.columns)
        if unfound is not None:
            raise DatasetError([file_problem(self.label, unfound)])
        whole = self.chosen or row_format(detect_format(keys))
        clashed = ids.clashed and not self._seeded  # a seeded pass derives around them
        if self._format is None or whole.name != self._format.name or clashed:
            self._format, self._given, self._seeded = whole, set(ids.first_row), True
            self.again = True
