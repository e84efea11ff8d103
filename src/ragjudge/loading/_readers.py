"""Reading the rows of an evaluation set from a file, a DataFrame or a list of dicts.

Each row keeps its number for problem reports (see :class:`~ragjudge.errors.RowProblem`
for how rows are counted). Rows that are not objects, lines that are not JSON, values
nested too deeply or holding invalid text, and unreadable files become problems; a bad
row never stops the other rows from being read.

Text files are decoded by :func:`ragjudge._util.textfiles.decode_text`: UTF-8, with or
without a byte-order mark, or UTF-16 with one. JSON is read strictly: ``NaN`` and
``Infinity`` are not JSON and are refused rather than turned into a missing value.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragjudge._util.textfiles import read_text_file
from ragjudge.errors import DataFileNotFound, DatasetError, RowProblem, TextFileError
from ragjudge.loading._cells import clean_record, is_data_frame
from ragjudge.loading._columns import nested_value, rename_columns
from ragjudge.loading._csv import read_csv_rows
from ragjudge.loading._values import MAX_NESTING, value_problem

if TYPE_CHECKING:
    import pandas as pd

JSONL_SUFFIXES = (".jsonl", ".ndjson")
_ROW_LIST_KEYS = ("data", "samples", "rows")


@dataclass
class RawRow:
    """One row as read: its number and its cleaned fields."""

    row: int
    data: dict[str, Any]


@dataclass
class ReadResult:
    """The rows read from one source (named ``label`` in problems) and the problems met."""

    label: str
    rows: list[RawRow] = field(default_factory=list)
    problems: list[RowProblem] = field(default_factory=list)


def read_source(
    source: str | Path | pd.DataFrame | Sequence[Mapping[str, Any]],
    columns: Mapping[str, str] | None = None,
) -> ReadResult:
    """Every row of a file (by its suffix), a DataFrame or a list of dicts; with
    ``columns`` (field → column, see :mod:`ragjudge.loading._columns`) each mapped
    column is read under its field's name."""
    if isinstance(source, str | Path):
        result = _read_file(Path(source), str(source), columns or {})
    elif is_data_frame(source):
        result = _read_records("<dataframe>", _frame_records(source), True, columns or {})
    else:
        result = _read_records("<list>", list(source), False, columns or {})
    return result


_TEXT_SUFFIXES = (*JSONL_SUFFIXES, ".json", ".csv")


def _read_file(path: Path, label: str, columns: Mapping[str, str]) -> ReadResult:
    if path.is_dir():
        return _read_parquet_folder(path, label, columns)
    if not path.is_file():
        raise DataFileNotFound(f"evaluation set not found: {path}")
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return _read_records(label, _frame_records(_read_parquet(path, label)), True, columns)
    if suffix not in _TEXT_SUFFIXES:
        raise _file_error(
            label,
            f"unsupported file type {suffix or '(no extension)'!r}; "
            "use .jsonl, .ndjson, .json, .csv or .parquet",
        )
    try:
        text = read_text_file(path, label)
    except TextFileError as exc:
        return ReadResult(label, problems=[file_problem(label, exc.reason)])
    except OSError as exc:
        raise _file_error(label, f"cannot be read: {exc.strerror or exc}") from None
    if suffix in JSONL_SUFFIXES:
        return _read_jsonl(text, label, columns)
    if suffix == ".json":
        return _read_json(text, label, columns)
    return _read_csv(text, label, columns)


def _file_error(label: str, reason: str) -> DatasetError:
    """A problem that stops the whole file from being read."""
    return DatasetError([file_problem(label, reason)])


def _read_parquet(path: Path, label: str) -> pd.DataFrame:
    import pandas as pd
    import pyarrow  # imported by pandas to read Parquet anyway; not needed before

    try:
        return pd.read_parquet(path)
    except (pyarrow.ArrowException, OSError, ValueError) as exc:
        raise _file_error(label, f"is not a readable Parquet file: {exc}") from None


PARQUET_BATCH_ROWS = 10_000
"""Rows read at a time from a folder of Parquet files."""


def _read_parquet_folder(path: Path, label: str, columns: Mapping[str, str]) -> ReadResult:
    """A folder of Parquet files (a partitioned dataset, in path order), read in record
    batches of :data:`PARQUET_BATCH_ROWS`: never a whole table in memory, only the rows
    as they are read. Rows are numbered across the files."""
    result = ReadResult(label)
    number = 0
    for records in parquet_folder_batches(path, label, PARQUET_BATCH_ROWS):
        for record in records:
            number += 1
            _add_record(result, number, record, True, columns)
    return result


def parquet_folder_batches(path: Path, label: str, rows: int) -> Iterator[list[Any]]:
    """The records of a folder of Parquet files (in path order), ``rows`` at a time
    (the last batch of each file may be shorter); a file that cannot be read stops
    the load with :class:`DatasetError`."""
    import pyarrow
    import pyarrow.parquet as pq

    files = sorted(p for p in path.rglob("*.parquet") if p.is_file())
    if not files:
        raise _file_error(
            label, "is a folder with no .parquet file; give the evaluation set's file"
        )
    for file in files:
        try:
            batches = pq.ParquetFile(file).iter_batches(batch_size=rows)
            while (batch := next(batches, None)) is not None:
                yield batch.to_pylist()
        except (pyarrow.ArrowException, OSError, ValueError) as exc:
            raise _file_error(f"{file}", f"is not a readable Parquet file: {exc}") from None


def read_records(
    label: str, numbered: Iterable[tuple[int, Any]], columns: Mapping[str, str]
) -> ReadResult:
    """The cleaned rows (and the problems) of tabular records numbered as given."""
    result = ReadResult(label)
    for number, record in numbered:
        _add_record(result, number, record, True, columns)
    return result


class _NotJson(ValueError):
    """Text that strict JSON does not accept; the message says why."""


def _strict_json(text: str) -> Any:
    """``json.loads`` that refuses ``NaN``/``Infinity`` and nesting Python cannot read,
    raising :class:`_NotJson` (or ``json.JSONDecodeError``)."""

    def refuse(constant: str) -> Any:
        raise _NotJson(f"{constant} is not a JSON value (write null for a missing value)")

    try:
        return json.loads(text, parse_constant=refuse)
    except RecursionError:
        raise _NotJson("arrays or objects are nested too deeply to read") from None


def _read_jsonl(text: str, label: str, columns: Mapping[str, str]) -> ReadResult:
    result = ReadResult(label)
    # Not str.splitlines(): it also splits on U+2028 and other separators that JSON
    # strings may hold unescaped.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = _strict_json(line)
        except (json.JSONDecodeError, _NotJson) as exc:
            result.problems.append(
                RowProblem(source=label, row=number, field="<row>", reason=f"invalid JSON: {exc}")
            )
            continue
        _add_record(result, number, value, False, columns, plain_json=_plainly_valid(line))
    return result


def _read_json(text: str, label: str, columns: Mapping[str, str]) -> ReadResult:
    try:
        document = _strict_json(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            # Many JSON Lines files are named .json; read them as what they are.
            return _read_jsonl(text, label, columns)
        return ReadResult(label, problems=[file_problem(label, f"invalid JSON: {exc}")])
    except _NotJson as exc:
        return ReadResult(label, problems=[file_problem(label, f"invalid JSON: {exc}")])
    records = _rows_of_json_document(document)
    if records is None:
        reason = (
            "a JSON evaluation set must be an array of rows or an object holding "
            f"the rows as an array under one of {', '.join(map(repr, _ROW_LIST_KEYS))}"
        )
        return ReadResult(label, problems=[file_problem(label, reason)])
    return _read_records(label, records, False, columns)


def _rows_of_json_document(document: Any) -> list[Any] | None:
    if isinstance(document, list):
        return document
    if isinstance(document, dict):
        for key in _ROW_LIST_KEYS:
            if isinstance(document.get(key), list):
                return list(document[key])
    return None


def _read_csv(text: str, label: str, columns: Mapping[str, str]) -> ReadResult:
    read = read_csv_rows(text, label)
    result = ReadResult(label, problems=read.problems)
    for number, record in read.records:
        _add_record(result, number, record, True, columns)
    return result


def _frame_records(frame: pd.DataFrame) -> list[Any]:
    return [
        {str(column): value for column, value in record.items()}
        for record in frame.to_dict(orient="records")
    ]


def _read_records(
    label: str, records: Sequence[Any], tabular: bool, columns: Mapping[str, str]
) -> ReadResult:
    result = ReadResult(label)
    for index, record in enumerate(records):
        _add_record(result, index + 1, record, tabular, columns)
    return result


def _add_record(
    result: ReadResult,
    number: int,
    record: Any,
    tabular: bool,
    columns: Mapping[str, str],
    *,
    plain_json: bool = False,
) -> None:
    """Check, clean and keep one row; ``plain_json`` when ``record`` was read from a
    JSON line that :func:`_plainly_valid` accepts (nothing to check, nothing to clean
    but top-level nulls)."""
    if not isinstance(record, Mapping):
        reason = f"a row must be an object with named fields, not {type(record).__name__}"
        result.problems.append(
            RowProblem(source=result.label, row=number, field="<row>", reason=reason)
        )
        return
    if columns:
        record = rename_columns({str(k): v for k, v in record.items()}, columns)
    if plain_json:
        _keep(result, number, {k: v for k, v in record.items() if v is not None}, columns)
        return
    # Checked before cleaning, which recurses; and after it for tabular rows, whose
    # cells may hold JSON text.
    problem = value_problem(record)
    cleaned: dict[str, Any] = {}
    if problem is None:
        cleaned = clean_record(record, tabular=tabular)
        problem = value_problem(cleaned) if tabular else None
    if problem is not None:
        result.problems.append(
            RowProblem(source=result.label, row=number, field=problem.field, reason=problem.reason)
        )
        return
    _keep(result, number, cleaned, columns)


def _keep(
    result: ReadResult, number: int, cleaned: dict[str, Any], columns: Mapping[str, str]
) -> None:
    for name, column in columns.items():
        found, value = nested_value(cleaned, column)
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


def file_problem(label: str, reason: str) -> RowProblem:
    """A problem with the source as a whole (row 0)."""
    return RowProblem(source=label, row=0, field="<file>", reason=reason)
