"""Load an evaluation set into validated :class:`~ragjudge.schema.Sample` objects.

Sources: JSON Lines (``.jsonl``/``.ndjson``), JSON (``.json``: an array, or an object
holding the rows under ``data``/``samples``/``rows``), CSV, Parquet, a pandas
DataFrame or a list of dicts.

Besides the Databricks field names, the formats of other evaluation tools load as they
are: ragas (current and legacy column names), openai-evals (``input``/``ideal``) and
HealthBench (``prompt``/``rubrics``/``ideal_completions_data``). The format is detected
from the column names; ``format=`` overrides the guess.

Nothing is dropped silently: every bad row becomes a :class:`RowProblem`, and all of
them are raised together in one :class:`DatasetError`.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from pydantic import ValidationError

from ragjudge.datasets import DATASET_LOADERS, DatasetLoader
from ragjudge.errors import DatasetError, RowProblem
from ragjudge.schema import Message, Sample

__all__ = [
    "FORMATS",
    "DatasetError",
    "RowProblem",
    "detect_format",
    "load_samples",
]

_JSONL_SUFFIXES = (".jsonl", ".ndjson")
_ROW_LIST_KEYS = ("data", "samples", "rows")
_SAMPLE_FIELDS = frozenset(Sample.model_fields)

Loc = tuple[str | int, ...]


def detect_format(columns: Iterable[str]) -> str:
    """Guess the format of an evaluation set from its column (or key) names.

    Returns one of :data:`FORMATS`. A set with a ``request`` column is Databricks-style
    whatever else it holds; a set matching no known format is treated as Databricks-style,
    so that validation says which field is missing.
    """
    names = set(columns)
    if "request" in names:
        return "databricks"
    if "user_input" in names:
        return "ragas"
    if "question" in names:
        return "ragas_legacy"
    if "rubrics" in names or {"prompt", "prompt_id"} <= names:
        return "healthbench"
    if "input" in names:
        return "openai_evals"
    return "databricks"


def load_samples(
    source: str | Path | pd.DataFrame | Sequence[Mapping[str, Any]],
    *,
    format: str | None = None,
) -> list[Sample]:
    """Load and validate an evaluation set.

    ``source`` is a file path (``.jsonl``, ``.ndjson``, ``.json``, ``.csv``,
    ``.parquet``), a pandas DataFrame or a list of dicts. ``format`` is one of
    :data:`FORMATS` (``-`` may stand for ``_``); by default it is detected with
    :func:`detect_format`. A public benchmark's own layout (``mtrag_human``,
    ``mtrag_un``: see :data:`ragjudge.datasets.DATASET_LOADERS`) is read from its file
    by that benchmark's loader.

    Rows without a ``request_id`` get one derived from their content, stable across
    loads. Raises :class:`DatasetError` listing every bad row, ``FileNotFoundError``
    for a missing file and ``ValueError`` for an unsupported file type or format name.
    """
    chosen = None if format is None else _format_named(format)
    if isinstance(chosen, _FileFormat):
        if not isinstance(source, str | Path):
            raise ValueError(f"format {format!r} reads a benchmark file: pass its path")
        return chosen.load(source)
    read = _read_source(source)
    if not read.rows and not read.problems:
        raise DatasetError([_file_problem(read.label, "the evaluation set holds no rows")])
    fmt = chosen or _row_format(detect_format(_all_keys(read.rows)))
    samples, problems = _build_samples(read.label, read.rows, fmt)
    all_problems = sorted([*read.problems, *problems], key=lambda p: p.row)
    if all_problems:
        raise DatasetError(all_problems)
    return samples


# --------------------------------------------------------------------------- reading


@dataclass
class _RawRow:
    row: int
    data: dict[str, Any]


@dataclass
class _ReadResult:
    label: str
    rows: list[_RawRow] = field(default_factory=list)
    problems: list[RowProblem] = field(default_factory=list)


def _read_source(source: str | Path | pd.DataFrame | Sequence[Mapping[str, Any]]) -> _ReadResult:
    if isinstance(source, str | Path):
        return _read_file(Path(source), str(source))
    if isinstance(source, pd.DataFrame):
        return _read_records("<dataframe>", _frame_records(source), tabular=True)
    return _read_records("<list>", list(source), tabular=False)


def _read_file(path: Path, label: str) -> _ReadResult:
    if not path.is_file():
        raise FileNotFoundError(f"evaluation set not found: {path}")
    suffix = path.suffix.lower()
    if suffix in _JSONL_SUFFIXES:
        return _read_jsonl(path.read_text(encoding="utf-8-sig"), label)
    if suffix == ".json":
        return _read_json(path.read_text(encoding="utf-8-sig"), label)
    if suffix == ".csv":
        return _read_csv(path, label)
    if suffix == ".parquet":
        return _read_records(label, _frame_records(pd.read_parquet(path)), tabular=True)
    raise ValueError(
        f"cannot read {label}: unsupported file type {suffix!r} "
        "(use .jsonl, .ndjson, .json, .csv or .parquet)"
    )


def _read_jsonl(text: str, label: str) -> _ReadResult:
    result = _ReadResult(label)
    # Not str.splitlines(): it also splits on U+2028 and other separators that JSON
    # strings may hold unescaped.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            result.problems.append(
                RowProblem(source=label, row=number, field="<row>", reason=f"invalid JSON: {exc}")
            )
            continue
        _add_record(result, number, value, tabular=False)
    return result


def _read_json(text: str, label: str) -> _ReadResult:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            # Many JSON Lines files are named .json; read them as what they are.
            return _read_jsonl(text, label)
        return _ReadResult(label, problems=[_file_problem(label, f"invalid JSON: {exc}")])
    records = _rows_of_json_document(document)
    if records is None:
        reason = (
            "a JSON evaluation set must be an array of rows or an object holding "
            f"the rows as an array under one of {', '.join(map(repr, _ROW_LIST_KEYS))}"
        )
        return _ReadResult(label, problems=[_file_problem(label, reason)])
    return _read_records(label, records, tabular=False)


def _rows_of_json_document(document: Any) -> list[Any] | None:
    if isinstance(document, list):
        return document
    if isinstance(document, dict):
        for key in _ROW_LIST_KEYS:
            if isinstance(document.get(key), list):
                return list(document[key])
    return None


def _read_csv(path: Path, label: str) -> _ReadResult:
    result = _ReadResult(label)
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            return result
        duplicates = sorted({name for name in header if header.count(name) > 1})
        if duplicates:
            result.problems.append(
                _file_problem(label, f"the header repeats the column(s) {', '.join(duplicates)}")
            )
            return result
        for number, cells in enumerate(reader, start=1):
            if not any(cell.strip() for cell in cells):
                continue
            if len(cells) > len(header):
                reason = f"the row has {len(cells)} cells but the header names {len(header)}"
                result.problems.append(
                    RowProblem(source=label, row=number, field="<row>", reason=reason)
                )
                continue
            record = {name: cell for name, cell in zip(header, cells, strict=False) if cell != ""}
            _add_record(result, number, record, tabular=True)
    return result


def _frame_records(frame: pd.DataFrame) -> list[Any]:
    return [
        {str(column): value for column, value in record.items()}
        for record in frame.to_dict(orient="records")
    ]


def _read_records(label: str, records: Sequence[Any], *, tabular: bool) -> _ReadResult:
    result = _ReadResult(label)
    for index, record in enumerate(records):
        _add_record(result, index + 1, record, tabular=tabular)
    return result


def _add_record(result: _ReadResult, number: int, record: Any, *, tabular: bool) -> None:
    if not isinstance(record, Mapping):
        reason = f"a row must be an object with named fields, not {type(record).__name__}"
        result.problems.append(
            RowProblem(source=result.label, row=number, field="<row>", reason=reason)
        )
        return
    result.rows.append(_RawRow(number, _clean_record(record, tabular=tabular)))


# --------------------------------------------------------------------------- cells

# Columns whose string cells (in CSV, Parquet, DataFrames) may hold JSON, with the kinds
# of JSON value accepted there. A cell whose parsed value has another kind stays a string.
_STRUCTURED_CELLS: dict[str, tuple[type, ...]] = {
    "request": (dict,),
    "expected_facts": (list,),
    "guidelines": (list, dict),
    "rubric": (list,),
    "metadata": (dict,),
    "user_input": (list,),
    "input": (list, dict),
    "prompt": (list,),
    "rubrics": (list, dict),
    "example_tags": (list,),
    "ideal_completions_data": (dict,),
    "ground_truths": (list,),
}
# Columns holding a reference answer: parsed only when the cell is a list of strings.
_STRING_LIST_CELLS = frozenset({"expected_response", "reference", "ground_truth", "ideal"})


def _clean_record(record: Mapping[Any, Any], *, tabular: bool) -> dict[str, Any]:
    """Drop missing values, turn numpy values into plain Python, parse JSON cells."""
    cleaned: dict[str, Any] = {}
    for key, raw in record.items():
        name = str(key)
        value = _plain(raw)
        if value is None:
            continue
        if tabular and isinstance(value, str):
            value = _parse_cell(name, value)
        cleaned[name] = value
    return cleaned


def _plain(value: Any) -> Any:
    """Recursively convert numpy/pandas values to JSON-like Python; NaN and NA to None."""
    if isinstance(value, np.ndarray):
        return [_plain(item) for item in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, np.generic):
        value = value.item()
    if value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _parse_cell(column: str, text: str) -> Any:
    stripped = text.strip()
    if column in _STRING_LIST_CELLS:
        if stripped.startswith("["):
            parsed = _parse_literal(stripped)
            if isinstance(parsed, list) and all(isinstance(item, str) for item in parsed):
                return parsed
        return text
    kinds = _STRUCTURED_CELLS.get(column)
    if kinds is None and column.endswith(("_context", "contexts")):
        kinds = (list,)
    if kinds is None or not stripped.startswith(("[", "{")):
        return text
    parsed = _parse_literal(stripped)
    return parsed if isinstance(parsed, kinds) else text


def _parse_literal(text: str) -> Any:
    """JSON, or a Python literal (pandas writes lists into CSV as ``['a', 'b']``)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


# --------------------------------------------------------------------------- formats


@dataclass
class _Mapped:
    """A row translated to Sample field names, and where each field came from."""

    fields: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    origins: dict[Loc, str] = field(default_factory=dict)

    def take(
        self,
        row: dict[str, Any],
        source: str,
        target: str,
        convert: Callable[[Any], Any] | None = None,
    ) -> None:
        """Move ``row[source]`` (if present) to the field ``target``."""
        if source not in row:
            return
        value = row.pop(source)
        self.fields[target] = convert(value) if convert else value
        self.origins[(target,)] = source


_Mapper = Callable[[dict[str, Any], _Mapped], None]


def _map_databricks(row: dict[str, Any], mapped: _Mapped) -> None:
    """Databricks field names are Sample field names; nothing to translate."""


def _map_ragas(row: dict[str, Any], mapped: _Mapped) -> None:
    if isinstance(row.get("user_input"), list):
        mapped.origins[("request", "messages")] = "user_input"
    mapped.take(row, "user_input", "request", _ragas_request)
    mapped.take(row, "response", "response")
    mapped.take(row, "retrieved_contexts", "retrieved_context", _chunks("retrieved_contexts"))
    mapped.take(
        row, "reference_contexts", "expected_retrieved_context", _chunks("reference_contexts")
    )
    mapped.take(row, "reference", "expected_response")


def _map_ragas_legacy(row: dict[str, Any], mapped: _Mapped) -> None:
    mapped.take(row, "question", "request")
    mapped.take(row, "answer", "response")
    mapped.take(row, "contexts", "retrieved_context", _chunks("contexts"))
    # ``ground_truths`` (a list) is the older spelling; when both exist, the list wins
    # and ``ground_truth`` is kept in metadata.
    if "ground_truths" in row:
        mapped.take(row, "ground_truths", "expected_response")
    else:
        mapped.take(row, "ground_truth", "expected_response")


def _map_openai_evals(row: dict[str, Any], mapped: _Mapped) -> None:
    if isinstance(row.get("input"), list):
        mapped.origins[("request", "messages")] = "input"
    mapped.take(row, "input", "request", _messages_request)
    mapped.take(row, "ideal", "expected_response")


def _map_healthbench(row: dict[str, Any], mapped: _Mapped) -> None:
    if isinstance(row.get("prompt"), list):
        mapped.origins[("request", "messages")] = "prompt"
    mapped.take(row, "prompt", "request", _messages_request)
    mapped.take(row, "prompt_id", "request_id")
    mapped.take(row, "rubrics", "rubric")
    # The ideal completion is a high-scoring answer, not a reference answer: it goes to
    # metadata (ideal_completion, ideal_completions_group, ...), never expected_response.
    ideal = row.pop("ideal_completions_data", None)
    if isinstance(ideal, dict):
        mapped.metadata.update(ideal)
    elif ideal is not None:
        mapped.metadata["ideal_completions_data"] = ideal


@dataclass(frozen=True)
class _RowFormat:
    """A format whose rows are translated one by one to Sample fields."""

    name: str
    map_columns: _Mapper
    request_column: str
    """The source column to name when a row has no request at all."""


@dataclass(frozen=True)
class _FileFormat:
    """A public benchmark's own layout, read from its file by the benchmark's loader."""

    name: str
    load: DatasetLoader


_ROW_FORMATS: tuple[_RowFormat, ...] = (
    _RowFormat("databricks", _map_databricks, request_column="request"),
    _RowFormat("ragas", _map_ragas, request_column="user_input"),
    _RowFormat("ragas_legacy", _map_ragas_legacy, request_column="question"),
    _RowFormat("openai_evals", _map_openai_evals, request_column="input"),
    _RowFormat("healthbench", _map_healthbench, request_column="prompt"),
)

_ROW_FORMAT_BY_NAME = {fmt.name: fmt for fmt in _ROW_FORMATS}
_REGISTRY: dict[str, _RowFormat | _FileFormat] = {
    **_ROW_FORMAT_BY_NAME,
    **{name: _FileFormat(name, load) for name, load in DATASET_LOADERS.items()},
}
"""Every format name :func:`load_samples` accepts: the row formats, then the
benchmark layouts."""

FORMATS: tuple[str, ...] = tuple(fmt.name for fmt in _ROW_FORMATS)
"""The evaluation-set formats :func:`load_samples` understands."""

_RAGAS_ROLES = {"human": "user", "ai": "assistant", "tool": "tool", "system": "system"}


def _messages_request(value: Any) -> Any:
    """A list of chat messages becomes ``{"messages": [...]}``; other values pass."""
    return {"messages": value} if isinstance(value, list) else value


def _ragas_request(value: Any) -> Any:
    """ragas multi-turn input is a list of ``{"type": "human"|"ai"|..., "content"}``."""
    if not isinstance(value, list):
        return value
    return {"messages": [_ragas_message(item) for item in value]}


def _ragas_message(item: Any) -> Any:
    if not isinstance(item, dict) or "role" in item or "type" not in item:
        return item
    message = {k: v for k, v in item.items() if k != "type"}
    message["role"] = _RAGAS_ROLES.get(str(item["type"]), item["type"])
    return message


def _chunks(column: str) -> Callable[[Any], Any]:
    """Context strings become chunks whose ``doc_uri`` names the column and position."""

    def convert(value: Any) -> Any:
        if not isinstance(value, list):
            return value
        return [
            {"doc_uri": f"{column}[{i}]", "content": item} if isinstance(item, str) else item
            for i, item in enumerate(value)
        ]

    return convert


def _format_named(name: str) -> _RowFormat | _FileFormat:
    """The registered format ``name`` (any case, ``-`` for ``_``) stands for."""
    normalised = name.strip().lower().replace("-", "_")
    found = _REGISTRY.get(normalised)
    if found is None:
        known = ", ".join(_REGISTRY)
        raise ValueError(f"unknown evaluation-set format {name!r}; use one of {known}")
    return found


def _row_format(name: str) -> _RowFormat:
    """The row format named ``name``, one of :data:`FORMATS`."""
    return _ROW_FORMAT_BY_NAME[name]


def _all_keys(rows: Iterable[_RawRow]) -> list[str]:
    keys: dict[str, None] = {}
    for raw in rows:
        keys.update(dict.fromkeys(raw.data))
    return list(keys)


def _map_row(data: dict[str, Any], fmt: _RowFormat) -> _Mapped:
    """Translate a row to Sample fields; unknown fields go to ``metadata``."""
    remaining = dict(data)
    mapped = _Mapped(origins={("request",): fmt.request_column})
    fmt.map_columns(remaining, mapped)
    explicit_metadata = remaining.pop("metadata", None)
    for key, value in remaining.items():
        if key in _SAMPLE_FIELDS and key not in mapped.fields:
            mapped.fields[key] = value
        else:
            mapped.metadata[key] = value
    if explicit_metadata is None:
        mapped.fields["metadata"] = mapped.metadata
    elif isinstance(explicit_metadata, dict):
        # An explicit metadata entry wins over a column of the same name.
        mapped.fields["metadata"] = {**mapped.metadata, **explicit_metadata}
    else:
        mapped.fields["metadata"] = explicit_metadata  # validation reports it
    return mapped


# --------------------------------------------------------------------------- samples


@dataclass
class _PreparedRow:
    row: int
    mapped: _Mapped
    content_id: str


def _build_samples(
    label: str, rows: list[_RawRow], fmt: _RowFormat
) -> tuple[list[Sample], list[RowProblem]]:
    prepared = [
        _PreparedRow(raw.row, _map_row(raw.data, fmt), _content_id(raw.data)) for raw in rows
    ]
    problems = _assign_request_ids(label, prepared)
    bad_rows = {p.row for p in problems}
    samples: list[Sample] = []
    for item in prepared:
        try:
            sample = Sample.model_validate(item.mapped.fields)
        except ValidationError as exc:
            problems.extend(_problems_from_validation(label, item, exc))
            continue
        if item.row not in bad_rows:
            samples.append(sample)
    return samples, problems


def _content_id(data: Mapping[str, Any]) -> str:
    canonical = json.dumps(
        data, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str
    )
    return hashlib.sha1(canonical.encode("utf-8"), usedforsecurity=False).hexdigest()[:12]


def _assign_request_ids(label: str, prepared: list[_PreparedRow]) -> list[RowProblem]:
    """Keep given ids (as strings), report duplicates, derive the missing ones."""
    problems: list[RowProblem] = []
    first_row: dict[str, int] = {}
    for item in prepared:
        fields = item.mapped.fields
        if "request_id" not in fields:
            continue
        column = item.mapped.origins.get(("request_id",), "request_id")
        request_id = _id_text(fields["request_id"])
        if request_id is None:
            reason = f"must be a non-empty string or a number (got {_short(fields['request_id'])})"
            problems.append(RowProblem(source=label, row=item.row, field=column, reason=reason))
            continue
        fields["request_id"] = request_id
        if request_id in first_row:
            reason = (
                f"duplicate request_id {request_id!r}: row {first_row[request_id]} "
                f"and row {item.row} both use it"
            )
            problems.append(RowProblem(source=label, row=item.row, field=column, reason=reason))
        else:
            first_row[request_id] = item.row
    used = set(first_row)
    for item in prepared:
        if "request_id" in item.mapped.fields:
            continue
        candidate, copy = item.content_id, 1
        while candidate in used:
            copy += 1
            candidate = f"{item.content_id}-{copy}"
        used.add(candidate)
        item.mapped.fields["request_id"] = candidate
    return problems


def _id_text(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # a Parquet/DataFrame id column with gaps turns ints into floats
    if isinstance(value, str | int | float):
        text = str(value).strip()
        return text or None
    return None


# --------------------------------------------------------------------------- errors


class _Issue(NamedTuple):
    loc: Loc
    kind: str
    message: str
    value: Any


# Sample fields typed as unions: pydantic tags their errors with the member type.
_UNION_FIELDS: dict[str, tuple[dict[type, str], str]] = {
    "expected_response": (
        {str: "str", list: "list[str]"},
        "must be a string or a non-empty list of strings",
    ),
    "guidelines": (
        {list: "list[str]", dict: "dict[str,list[str]]"},
        "must be a list of strings or a dict mapping names to lists of strings",
    ),
}


def _problems_from_validation(
    label: str, item: _PreparedRow, exc: ValidationError
) -> list[RowProblem]:
    fields = item.mapped.fields
    issues = [_Issue(tuple(e["loc"]), e["type"], e["msg"], e.get("input")) for e in exc.errors()]
    issues = _locate_message_issues(issues, fields.get("request"))
    issues = _resolve_union_issues(issues, fields)
    problems: list[RowProblem] = []
    seen: set[tuple[str, str]] = set()
    for issue in issues:
        path = _model_rule_field(issue) or _field_path(issue.loc, item.mapped.origins)
        reason = _reason(issue)
        if (path, reason) not in seen:
            seen.add((path, reason))
            problems.append(RowProblem(source=label, row=item.row, field=path, reason=reason))
    return problems


def _locate_message_issues(issues: list[_Issue], request: Any) -> list[_Issue]:
    """Point errors inside a request's chat messages at the message's index.

    The request validator reports them without the position; validating each message
    again finds it.
    """
    if not any(i.loc[:1] == ("request",) and i.kind != "value_error" for i in issues):
        return issues
    located = _message_issues(request)
    if not located:
        return issues
    first = next(n for n, i in enumerate(issues) if i.loc[:1] == ("request",))
    others = [i for i in issues if i.loc[:1] != ("request",)]
    return others[:first] + located + others[first:]


def _message_issues(request: Any) -> list[_Issue]:
    if not isinstance(request, dict):
        return []
    key = "messages" if "messages" in request else "history"
    messages = request.get(key)
    if messages is None:
        return []
    if not isinstance(messages, list):
        return [_Issue(("request", key), "list_type", "must be a list of chat messages", messages)]
    issues: list[_Issue] = []
    for index, message in enumerate(messages):
        try:
            Message.model_validate(message)
        except ValidationError as exc:
            issues.extend(
                _Issue(("request", key, index, *e["loc"]), e["type"], e["msg"], e.get("input"))
                for e in exc.errors()
            )
    return issues


def _resolve_union_issues(issues: list[_Issue], fields: Mapping[str, Any]) -> list[_Issue]:
    """Keep the errors of the union member that matches the value's shape.

    When no member matches, one issue says what the field accepts.
    """
    resolved: list[_Issue] = []
    reported_shape: set[str] = set()
    for issue in issues:
        name = issue.loc[0] if issue.loc else None
        if not isinstance(name, str) or name not in _UNION_FIELDS or len(issue.loc) < 2:
            resolved.append(issue)
            continue
        members, accepted = _UNION_FIELDS[name]
        value = fields.get(name)
        member = next((tag for kind, tag in members.items() if isinstance(value, kind)), None)
        if member is None:
            if name not in reported_shape:
                reported_shape.add(name)
                resolved.append(_Issue((name,), "union", accepted, value))
        elif issue.loc[1] == member:
            resolved.append(_Issue((name, *issue.loc[2:]), issue.kind, issue.message, issue.value))
    return resolved


def _model_rule_field(issue: _Issue) -> str | None:
    """The fields a row-level rule is about (the rule itself has no location)."""
    if not issue.loc and "expected_facts" in issue.message:
        return "expected_facts/expected_response"
    return None


def _field_path(loc: Loc, origins: Mapping[Loc, str]) -> str:
    """``('retrieved_context', 0, 'doc_uri')`` → ``retrieved_context[0].doc_uri``,
    naming the source column for fields translated from another format."""
    if not loc:
        return "<row>"
    head: str
    head, rest = str(loc[0]), loc[1:]
    for size in range(len(loc), 0, -1):
        if loc[:size] in origins:
            head, rest = origins[loc[:size]], loc[size:]
            break
    parts = [head]
    for part in rest:
        parts.append(f"[{part}]" if isinstance(part, int) else f".{part}")
    return "".join(parts)


def _reason(issue: _Issue) -> str:
    if issue.kind == "missing":
        return "field required"
    if issue.kind == "value_error":
        return issue.message.removeprefix("Value error, ")
    return f"{issue.message} (got {_short(issue.value)})"


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _file_problem(label: str, reason: str) -> RowProblem:
    return RowProblem(source=label, row=0, field="<file>", reason=reason)
