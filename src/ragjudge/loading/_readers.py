"""Reading the rows of an evaluation set from a file, a DataFrame, a list of dicts or a
dict of columns.

Each row keeps its number for problem reports (see :class:`~ragjudge.errors.RowProblem`
for how rows are counted). Rows that are not objects, lines that are not JSON, values
nested too deeply or holding invalid text, and unreadable files become problems; a bad
row never stops the other rows from being read.

Text files are decoded by :func:`ragjudge._util.textfiles.decode_text`: UTF-8, with or
without a byte-order mark, or UTF-16 with one; JSON Lines files are read a line at a
time. JSON is read strictly (:mod:`ragjudge.loading._json`): ``NaN`` and ``Infinity``
are not JSON and are refused rather than turned into a missing value, and a key given
twice, a number out of range and a field holding more text than ``max_field_bytes``
are problems of their row and field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragjudge._util.textfiles import read_text_file, read_text_lines
from ragjudge.errors import DataFileNotFound, RowProblem, TextFileError
from ragjudge.loading._cells import clean_record, is_data_frame
from ragjudge.loading._column_dict import COLUMNS_LABEL, rows_of_columns
from ragjudge.loading._columns import nested_value, rename_columns
from ragjudge.loading._csv import read_csv_rows
from ragjudge.loading._file_checks import file_error, file_problem, refuse_lfs_parquet
from ragjudge.loading._json import JsonReader, NotJson
from ragjudge.loading._values import MAX_FIELD_BYTES, MAX_NESTING, longer_than, value_problem

if TYPE_CHECKING:
    import pandas as pd

    from ragjudge.loading._row_filter import RowFilter

JSONL_SUFFIXES = (".jsonl", ".ndjson")
_ROW_LIST_KEYS = ("data", "samples", "rows")


@dataclass
class RawRow:
    """One row as read: its number and its cleaned fields."""

    row: int
    data: dict[str, Any]


@dataclass(frozen=True)
class ReadRules:
    """How rows are read: the ``columns`` mapping (field → column, see
    :mod:`ragjudge.loading._columns`), each mapped column read under its field's name,
    and the most bytes of text one field may hold."""

    columns: Mapping[str, str] = field(default_factory=dict)
    max_field_bytes: int = MAX_FIELD_BYTES
    leave_out: frozenset[str] = frozenset()
    """Columns read but left out of every row (the other systems' responses of a wide
    file)."""
    delimiter: str | None = None
    """The character between the cells of a delimited text file: a comma for ``.csv``
    and a tab for ``.tsv`` unless given; given, any file but JSON and Parquet is read
    as delimited text with it."""
    row_filter: RowFilter | None = None
    """The rows kept of a table in a folder (``--where``); see
    :mod:`ragjudge.loading._row_filter`."""


@dataclass
class ReadResult:
    """The rows read from one source (named ``label`` in problems) and the problems met."""

    label: str
    rows: list[RawRow] = field(default_factory=list)
    problems: list[RowProblem] = field(default_factory=list)
    columns: dict[str, None] = field(default_factory=dict)
    """Every column of the rows, as the source names them (kept when a ``columns``
    mapping is given, to check it)."""
    mapped_found: set[str] = field(default_factory=set)
    """The columns of the ``columns`` mapping that some row holds."""


def read_source(
    source: str | Path | pd.DataFrame | Sequence[Mapping[str, Any]] | Mapping[str, Sequence[Any]],
    rules: ReadRules | None = None,
) -> ReadResult:
    """Every row of a file (by its suffix), a DataFrame, a list of dicts or a dict of
    columns, read by ``rules``."""
    rules = rules or ReadRules()
    if isinstance(source, str | Path):
        result = _read_file(Path(source), str(source), rules)
    elif is_data_frame(source):
        result = _read_records("<dataframe>", _frame_records(source), True, rules)
    elif isinstance(source, Mapping):
        result = _read_records(COLUMNS_LABEL, rows_of_columns(source), False, rules)
    else:
        result = _read_records("<list>", list(source), False, rules)
    return result


_TEXT_SUFFIXES = (*JSONL_SUFFIXES, ".json", ".csv", ".tsv")
_DELIMITERS = {".csv": ",", ".tsv": "\t"}


def _read_file(path: Path, label: str, rules: ReadRules) -> ReadResult:
    from ragjudge.loading._partitions import delta_table_of  # it reads through this module

    if path.is_dir() or delta_table_of(str(path)) is not None:
        return _read_parquet_folder(path, label, rules)
    if rules.row_filter is not None:
        raise file_error(
            label,
            f"the filter {rules.row_filter.text!r} reads a folder of Parquet files or a "
            "Delta table, not one file",
        )
    if not path.is_file():
        raise DataFileNotFound(f"evaluation set not found: {path}")
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return _read_records(label, _frame_records(_read_parquet(path, label)), True, rules)
    delimited = rules.delimiter is not None and suffix not in (*JSONL_SUFFIXES, ".json")
    if suffix not in _TEXT_SUFFIXES and not delimited:
        raise file_error(
            label,
            f"unsupported file type {suffix or '(no extension)'!r}; "
            "use .jsonl, .ndjson, .json, .csv, .tsv or .parquet (or give the delimiter "
            "of a delimited text file)",
        )
    try:
        if suffix in JSONL_SUFFIXES:
            return _read_jsonl(read_text_lines(path, label), label, rules)
        text = read_text_file(path, label)
    except TextFileError as exc:
        return ReadResult(label, problems=[file_problem(label, exc.reason)])
    except OSError as exc:
        raise file_error(label, f"cannot be read: {exc.strerror or exc}") from None
    if suffix == ".json":
        return _read_json(text, label, rules)
    return _read_csv(text, label, rules, rules.delimiter or _DELIMITERS[suffix])


def _read_parquet(path: Path, label: str) -> pd.DataFrame:
    import pandas as pd
    import pyarrow  # imported by pandas to read Parquet anyway; not needed before

    refuse_lfs_parquet(path, label)
    try:
        return pd.read_parquet(path)
    except (pyarrow.ArrowException, OSError, ValueError) as exc:
        raise file_error(label, f"is not a readable Parquet file: {exc}") from None


PARQUET_BATCH_ROWS = 10_000
"""Rows read at a time from a folder of Parquet files."""


def _read_parquet_folder(path: Path, label: str, rules: ReadRules) -> ReadResult:
    """A folder of Parquet files (a partitioned dataset, in path order), read in record
    batches of :data:`PARQUET_BATCH_ROWS`: never a whole table in memory, only the rows
    as they are read. Rows are numbered across the files."""
    result = ReadResult(label)
    number = 0
    for records in parquet_folder_batches(path, label, PARQUET_BATCH_ROWS, rules.row_filter):
        for record in records:
            number += 1
            _add_record(result, number, record, True, rules)
    return result


def parquet_folder_batches(
    path: Path, label: str, rows: int, row_filter: RowFilter | None = None
) -> Iterator[list[Any]]:
    """The records of a folder of Parquet files (in path order, partition folders'
    values as columns) or of a Delta table that ``row_filter`` keeps, ``rows`` at a
    time (see :mod:`ragjudge.loading._partitions`); a file that cannot be read stops
    the load with :class:`DatasetError`."""
    from ragjudge.loading._partitions import table_batches  # it reads through this module

    yield from table_batches(path, label, rows, row_filter)


def read_records(
    label: str, numbered: Iterable[tuple[int, Any]], rules: ReadRules, *, tabular: bool = True
) -> ReadResult:
    """The cleaned rows (and the problems) of records numbered as given; ``tabular``
    when their cells may hold JSON text (not when they were read from JSON)."""
    result = ReadResult(label)
    for number, record in numbered:
        _add_record(result, number, record, tabular, rules)
    return result


def _read_jsonl(lines: Iterable[tuple[int, str]], label: str, rules: ReadRules) -> ReadResult:
    """The rows of numbered JSON lines. A line no longer than ``max_field_bytes``
    cannot hold a field longer than that, so only longer lines are measured."""
    result = ReadResult(label)
    reader = JsonReader()
    for number, line in lines:
        if not line or line.isspace():
            continue
        try:
            value, marked = reader.read(line)
        except (json.JSONDecodeError, NotJson) as exc:
            result.problems.append(
                RowProblem(source=label, row=number, field="<row>", reason=f"invalid JSON: {exc}")
            )
            continue
        long_line = longer_than(line, rules.max_field_bytes)
        plain = not marked and not long_line and _plainly_valid(line)
        _add_record(result, number, value, False, rules, plain_json=plain, measure=long_line)
    return result


def split_lines(text: str) -> Iterator[tuple[int, str]]:
    """The numbered lines of ``text``, as :func:`read_text_lines` reads them from a file.
    Not ``str.splitlines()``: it also splits on U+2028 and other separators that JSON
    strings may hold unescaped."""
    return enumerate(text.split("\n"), start=1)


def _read_json(text: str, label: str, rules: ReadRules) -> ReadResult:
    try:
        document, _ = JsonReader().read(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            # Many JSON Lines files are named .json; read them as what they are.
            return _read_jsonl(split_lines(text), label, rules)
        return ReadResult(label, problems=[file_problem(label, f"invalid JSON: {exc}")])
    except NotJson as exc:
        return ReadResult(label, problems=[file_problem(label, f"invalid JSON: {exc}")])
    records = _rows_of_json_document(document)
    if records is None:
        reason = (
            "a JSON evaluation set must be an array of rows or an object holding "
            f"the rows as an array under one of {', '.join(map(repr, _ROW_LIST_KEYS))}"
        )
        return ReadResult(label, problems=[file_problem(label, reason)])
    return _read_records(label, records, False, rules)


def _rows_of_json_document(document: Any) -> list[Any] | None:
    if isinstance(document, list):
        return document
    if isinstance(document, dict):
        if "resourceSpans" in document or "resource_spans" in document:
            return [document]  # one OTLP export request: its traces are read later
        for key in _ROW_LIST_KEYS:
            if isinstance(document.get(key), list):
                return list(document[key])
    return None


def _read_csv(text: str, label: str, rules: ReadRules, delimiter: str) -> ReadResult:
    read = read_csv_rows(text, label, delimiter)
    result = ReadResult(label, problems=read.problems)
    for number, record in read.records:
        _add_record(result, number, record, True, rules)
    return result


def _frame_records(frame: pd.DataFrame) -> list[Any]:
    return [
        {str(column): value for column, value in record.items()}
        for record in frame.to_dict(orient="records")
    ]


def _read_records(
    label: str, records: Sequence[Any], tabular: bool, rules: ReadRules
) -> ReadResult:
    result = ReadResult(label)
    for index, record in enumerate(records):
        _add_record(result, index + 1, record, tabular, rules)
    return result


def _add_record(
    result: ReadResult,
    number: int,
    record: Any,
    tabular: bool,
    rules: ReadRules,
    *,
    plain_json: bool = False,
    measure: bool = True,
) -> None:
    """Check, clean and keep one row; ``plain_json`` when ``record`` was read from a
    JSON line that :func:`_plainly_valid` accepts and that holds nothing the checks
    look for (nothing to check, nothing to clean but top-level nulls); ``measure``
    unless the row is known to be shorter than ``max_field_bytes``."""
    if not isinstance(record, Mapping):
        reason = f"a row must be an object with named fields, not {type(record).__name__}"
        result.problems.append(
            RowProblem(source=result.label, row=number, field="<row>", reason=reason)
        )
        return
    columns = rules.columns
    if columns:
        record = {str(k): v for k, v in record.items()}
        _note_columns(result, record, columns)
        record = rename_columns(record, columns)
    if rules.leave_out:
        record = {k: v for k, v in record.items() if k not in rules.leave_out}
    if plain_json:
        _keep(result, number, {k: v for k, v in record.items() if v is not None}, columns)
        return
    # Checked before cleaning, which recurses; and after it for tabular rows, whose
    # cells may hold JSON text.
    limit = rules.max_field_bytes if measure else None
    problem = value_problem(record, limit)
    cleaned: dict[str, Any] = {}
    if problem is None:
        cleaned = clean_record(record, tabular=tabular)
        problem = value_problem(cleaned, limit) if tabular else None
    if problem is not None:
        result.problems.append(
            RowProblem(source=result.label, row=number, field=problem.field, reason=problem.reason)
        )
        return
    _keep(result, number, cleaned, columns)


def _note_columns(result: ReadResult, record: dict[str, Any], columns: Mapping[str, str]) -> None:
    """Remember the row's columns and which mapped columns it holds."""
    result.columns.update(dict.fromkeys(record))
    result.mapped_found.update(column for column in columns.values() if column in record)


def _keep(
    result: ReadResult, number: int, cleaned: dict[str, Any], columns: Mapping[str, str]
) -> None:
    for name, column in columns.items():
        found, value = nested_value(cleaned, column)
        if found:
            result.mapped_found.add(column)
        if name not in cleaned and found and value is not None:
            cleaned[name] = value
    result.rows.append(RawRow(number, cleaned))


def _plainly_valid(line: str) -> bool:
    """Whether the JSON text ``line`` cannot hold what :func:`value_problem` looks for:
    a lone surrogate needs a ``\\ud…`` escape, and nesting deeper than
    :data:`MAX_NESTING` needs that many brackets."""
    return (
        "\\ud" not in line
        and "\\uD" not in line
        and line.count("[") + line.count("{") < MAX_NESTING
    )


def all_keys(rows: Iterable[RawRow]) -> list[str]:
    """Every field name of ``rows``, in order of first appearance."""
    keys: dict[str, None] = {}
    for raw in rows:
        keys.update(dict.fromkeys(raw.data))
    return list(keys)
