"""Load an evaluation set into validated :class:`~ragjudge.schema.Sample` objects.

Sources: JSON Lines (``.jsonl``/``.ndjson``), JSON (``.json``: an array, or an object
holding the rows under ``data``/``samples``/``rows``), CSV, TSV (or text cut by
another delimiter), Parquet, a pandas
DataFrame, a list of dicts or a dict of columns (``{"question": [...], "answer":
[...]}``, the input of ``datasets.Dataset.from_dict``; every column a list of the same
length).

Besides the Databricks field names, the formats of other evaluation tools load as they
are: ragas (current and legacy column names), openai-evals (``input``/``ideal``),
HealthBench (``prompt``/``rubrics``/``ideal_completions_data``), DeepEval
(``input``/``actual_output``/``expected_output``/``retrieval_context``/``context``),
MLflow 2 (``inputs``/``predictions``/``ground_truth``/``context``), MLflow 3
(``inputs``/``outputs``/``expectations``), Inspect (``input``/``target``) and
question/answer files with their own spellings (``question``/``answer``/``reference`` …).
The format is detected from the column names; ``format=`` overrides the guess, and
``columns=`` names the columns of any other layout. Contexts may be plain strings
everywhere (their ``doc_uri`` is derived and marked ``doc_uri_derived``).

Nothing is dropped silently: every bad row becomes a :class:`RowProblem`, and all of
them are raised together in one :class:`DatasetError`. What counts as bad input:

- text files must be UTF-8 (with or without a byte-order mark) or UTF-16 with a
  byte-order mark; any other bytes (Shift_JIS, Latin-1, UTF-16 without a mark, NUL
  characters) stop the load, naming the line, column and byte offset;
- JSON is strict: ``NaN``/``Infinity`` are refused, not read as missing values, and so
  are a key given twice in one object, a number beyond a float's range (``1e400``)
  and a whole number of more than 4,300 digits;
- a value nested more than 100 levels deep, text holding a lone UTF-16 surrogate
  (``"\\ud800"``), and a field holding more than ``max_field_bytes`` bytes of text
  (10 MB unless set; JSON Lines are read a line at a time, so a long field is refused
  without the file in memory) are problems of that row and field;
- in CSV, a quote never closed, text after a closing quote, and a row short of cells
  whose quoted cell spans several lines are refused (see :mod:`ragjudge.loading._csv`);
  an empty CSV cell is an absent value;
- a corrupt Parquet file, a folder and an unsupported file type are problems of the
  file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from ragjudge.errors import DatasetError, RowProblem
from ragjudge.loading._columns import COLUMN_FIELDS, check_columns, unfound_columns
from ragjudge.loading._file_checks import file_problem
from ragjudge.loading._formats import FORMATS, FileFormat, detect_format, format_named, row_format
from ragjudge.loading._mapping import Loc as Loc
from ragjudge.loading._mapping import RowFormat, derived_chunk
from ragjudge.loading._mlflow_traces import mlflow_trace_rows
from ragjudge.loading._partitions import DELTA_PREFIX
from ragjudge.loading._readers import (
    ReadResult,
    ReadRules,
    all_keys,
    read_records,
    read_source,
)
from ragjudge.loading._report import LoadReport
from ragjudge.loading._row_filter import parse_row_filter
from ragjudge.loading._samples import BuildRules, build_samples
from ragjudge.loading._shapes import (
    SPLITTABLE_FIELDS,
    check_separators,
    check_systems,
    missing_system_columns,
)
from ragjudge.loading._stream import STREAM_PAGE_ROWS, StreamedSet
from ragjudge.loading._traces import TraceFormat, detect_trace_format, trace_records
from ragjudge.loading._values import MAX_FIELD_BYTES
from ragjudge.schema import Sample

__all__ = [
    "COLUMN_FIELDS",
    "DELTA_PREFIX",
    "FORMATS",
    "MAX_FIELD_BYTES",
    "SPLITTABLE_FIELDS",
    "STREAM_PAGE_ROWS",
    "DataShape",
    "DatasetError",
    "LoadReport",
    "LoadedSet",
    "RowProblem",
    "StreamedSet",
    "check_columns",
    "check_separators",
    "check_systems",
    "derived_chunk",
    "detect_format",
    "format_named",
    "load_samples",
    "parse_row_filter",
    "read_evaluation_set",
]

if TYPE_CHECKING:
    import pandas as pd

Source: TypeAlias = (
    "str | Path | pd.DataFrame | Sequence[Mapping[str, Any]] | Mapping[str, Sequence[Any]]"
)


@dataclass
class LoadedSet:
    """The samples of an evaluation set and how it was read."""

    samples: list[Sample]
    report: LoadReport


def load_samples(
    source: Source,
    *,
    format: str | None = None,
    columns: Mapping[str, str] | None = None,
    max_field_bytes: int = MAX_FIELD_BYTES,
    shape: DataShape | None = None,
) -> list[Sample]:
    """Load and validate an evaluation set.

    ``source`` is a file path (``.jsonl``, ``.ndjson``, ``.json``, ``.csv``, ``.tsv``,
    ``.parquet``), a pandas DataFrame, a list of dicts or a dict of columns (each a
    list, all of one length). ``format`` is one of
    :data:`FORMATS` (``-`` may stand for ``_``); by default it is detected with
    :func:`detect_format`. A public benchmark's own layout (``mtrag_human``,
    ``mtrag_un``: see :data:`ragjudge.datasets.DATASET_LOADERS`) is read from its file
    by that benchmark's loader. ``columns`` maps Sample fields to the columns holding
    them (``{"request": "ticket_text", "response": "bot_reply"}``; ``column.key``
    reads a key of a JSON-object column; one column may feed several fields). A field
    holding more than ``max_field_bytes`` bytes of text makes its row a problem.
    ``shape`` says how a file departs from one column per field (:class:`DataShape`).

    Rows without a ``request_id`` get one derived from their content, stable across
    loads. Raises :class:`DatasetError` listing every bad row (or saying why the file
    cannot be read: its encoding, its type, a corrupt Parquet file),
    ``FileNotFoundError`` for a missing file and ``ValueError`` for an unknown format
    name or a bad ``columns`` mapping.
    """
    loaded = read_evaluation_set(
        source, format=format, columns=columns, max_field_bytes=max_field_bytes, shape=shape
    )
    return loaded.samples


@dataclass(frozen=True)
class DataShape:
    """How an evaluation set departs from one column per field.

    ``delimiter``: the character between the cells of a delimited text file (a tab is
    assumed for ``.tsv``, a comma for ``.csv``; given, a file of any other extension is
    read as delimited text). ``separators``: field → the text between the values packed
    in one cell (``{"expected_response": "/"}`` reads ``"A/B/C"`` as three references).
    ``systems``: system name → the column holding that system's responses, in a wide
    file; ``system`` picks the one read as the response (the other systems' columns are
    left out, and a row without an id is named by its row number, so that every
    system's samples have the same ids)."""

    delimiter: str | None = None
    separators: Mapping[str, str] = field(default_factory=dict)
    systems: Mapping[str, str] = field(default_factory=dict)
    system: str | None = None


def read_evaluation_set(
    source: Source,
    *,
    format: str | None = None,
    columns: Mapping[str, str] | None = None,
    skip_invalid_rows: bool = False,
    max_field_bytes: int = MAX_FIELD_BYTES,
    shape: DataShape | None = None,
    where: str | None = None,
) -> LoadedSet:
    """:func:`load_samples` with how the set was read (:class:`LoadReport`: the format
    assumed, the columns each field came from, the columns no field took). With
    ``skip_invalid_rows`` the rows that cannot be read are left out and listed in the
    report instead of failing the load (a file that cannot be read at all, or a set
    with no readable row, still raises :class:`DatasetError`). ``where`` keeps the rows
    of a folder of Parquet files or a Delta table that match it (see
    :mod:`ragjudge.loading._row_filter`); the files of partitions it excludes are not
    opened."""
    shape = shape or DataShape()
    chosen = None if format is None else format_named(format)
    mapping = check_columns(columns or {})
    source = mlflow_trace_rows(source)
    separators = check_separators(shape.separators)
    systems = check_systems(shape.systems, mapping)
    mapping, leave_out = _system_mapping(mapping, systems, shape.system)
    if isinstance(chosen, FileFormat):
        if not isinstance(source, str | Path):
            raise ValueError(f"format {format!r} reads a benchmark file: pass its path")
        report = LoadReport(str(source), chosen.name, chosen.name, guessed=False)
        return LoadedSet(chosen.load(source), report)
    row_filter = None if where is None else parse_row_filter(where)
    rules = ReadRules(mapping, max_field_bytes, leave_out, shape.delimiter, row_filter)
    read = read_source(source, ReadRules({}, max_field_bytes) if _traced(chosen) else rules)
    traces = _trace_format(chosen, read)
    if traces is not None:
        read = _read_traces(traces, read, rules)
    if not read.rows and not read.problems:
        raise DatasetError([file_problem(read.label, "the evaluation set holds no rows")])
    unfound = unfound_columns(mapping, read.mapped_found, read.columns)
    if systems and read.rows:
        unfound = missing_system_columns(systems, read.columns) or unfound
    if unfound is not None and read.rows:
        raise DatasetError([file_problem(read.label, unfound)])
    keys = all_keys(read.rows)
    fmt = (
        chosen
        if isinstance(chosen, RowFormat)
        else row_format("databricks" if traces is not None else detect_format(keys))
    )
    build_rules = BuildRules(mapping, separators, ids_from_rows=bool(systems))
    built = build_samples(read.label, read.rows, fmt, build_rules)
    all_problems = sorted([*read.problems, *built.problems], key=lambda p: p.row)
    whole_file = [p for p in all_problems if p.row == 0]
    if all_problems and (not skip_invalid_rows or whole_file or not built.samples):
        raise DatasetError(all_problems)
    report = LoadReport(
        source=read.label,
        format=(traces or fmt).name,
        title=(traces or fmt).label,
        guessed=chosen is None,
        guessed_from="the column names" if traces is None else "the file's content",
        fields=built.fields,
        unused=built.unused,
        skipped=all_problems,
        mapping=mapping,
        displaced=built.displaced,
        unnamed_rows=built.unnamed_rows,
    )
    return LoadedSet(built.samples, report)


def _system_mapping(
    mapping: dict[str, str], systems: Mapping[str, str], system: str | None
) -> tuple[dict[str, str], frozenset[str]]:
    """The ``columns`` mapping with ``system``'s column as the response, and the other
    systems' columns, to leave out."""
    if not systems:
        return mapping, frozenset()
    if system is None or system not in systems:
        raise ValueError(
            f"pick one of the systems ({', '.join(systems)}) to read, not {system!r}: "
            "a wide file is evaluated once per system"
        )
    column = systems[system]
    others = frozenset(c for c in systems.values() if c != column)
    return {**mapping, "response": column}, others


def _traced(chosen: object) -> bool:
    return isinstance(chosen, TraceFormat)


def _trace_format(chosen: object, read: ReadResult) -> TraceFormat | None:
    """The trace format the set is in: the one given, else the one its rows have
    (when no other format was given)."""
    if isinstance(chosen, TraceFormat):
        return chosen
    return detect_trace_format(r.data for r in read.rows) if chosen is None else None


def _read_traces(fmt: TraceFormat, read: ReadResult, rules: ReadRules) -> ReadResult:
    """The rows of the traces of ``read`` (one per trace), read by ``rules``, with the
    problems of the file and of the traces that give no row."""
    numbered = [(raw.row, raw.data) for raw in read.rows]
    records, problems = trace_records(fmt, read.label, numbered)
    result = read_records(read.label, records, rules, tabular=False)
    result.problems[:0] = [*read.problems, *problems]
    return result
