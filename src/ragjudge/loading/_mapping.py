"""Row formats: translating the columns of other evaluation tools' rows (ragas,
openai-evals, HealthBench; more in :mod:`ragjudge.loading._peers`) to
:class:`~ragjudge.schema.Sample` field names.

Each :class:`RowFormat` moves its own columns to Sample fields and remembers which
column each field came from, so that problems name the column the user wrote. Columns
no format claims go to ``metadata`` (and are reported as not read as evaluation
fields). Contexts given as plain strings, in any format, become chunks whose
``doc_uri`` is derived from the column and position and marked ``doc_uri_derived``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ragjudge.loading._shapes import split_packed
from ragjudge.schema import Sample

_SAMPLE_FIELDS = frozenset(Sample.model_fields)

Loc = tuple[str | int, ...]
"""A location in a row: a field name followed by keys and list indices."""


@dataclass
class Mapped:
    """A row translated to Sample field names, and where each field came from."""

    fields: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    origins: dict[Loc, str] = field(default_factory=dict)
    unused: list[str] = field(default_factory=list)
    """Columns of the row no field took: they are in ``metadata``."""
    displaced: dict[str, str] = field(default_factory=dict)
    """Column → the field the format would have read it as, had a ``columns`` mapping
    not named another column for that field (the column is in ``metadata``)."""
    unsplit: dict[str, str] = field(default_factory=dict)
    """Column → why its value could not be cut at its field's separator."""

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


Mapper = Callable[[dict[str, Any], Mapped], None]


def _map_databricks(row: dict[str, Any], mapped: Mapped) -> None:
    """Databricks field names are Sample field names; nothing to translate."""


def _map_ragas(row: dict[str, Any], mapped: Mapped) -> None:
    if isinstance(row.get("user_input"), list):
        mapped.origins[("request", "messages")] = "user_input"
    mapped.take(row, "user_input", "request", _ragas_request)
    mapped.take(row, "response", "response")
    mapped.take(row, "retrieved_contexts", "retrieved_context", chunks_of("retrieved_contexts"))
    mapped.take(
        row, "reference_contexts", "expected_retrieved_context", chunks_of("reference_contexts")
    )
    mapped.take(row, "reference", "expected_response")


def _map_ragas_legacy(row: dict[str, Any], mapped: Mapped) -> None:
    mapped.take(row, "question", "request")
    mapped.take(row, "answer", "response")
    mapped.take(row, "contexts", "retrieved_context", chunks_of("contexts"))
    # ``ground_truths`` (a list) is the older spelling; when both exist, the list wins
    # and ``ground_truth`` is kept in metadata.
    if "ground_truths" in row:
        mapped.take(row, "ground_truths", "expected_response")
    else:
        mapped.take(row, "ground_truth", "expected_response")


def _map_openai_evals(row: dict[str, Any], mapped: Mapped) -> None:
    if isinstance(row.get("input"), list):
        mapped.origins[("request", "messages")] = "input"
    mapped.take(row, "input", "request", messages_request)
    mapped.take(row, "ideal", "expected_response")


def _map_healthbench(row: dict[str, Any], mapped: Mapped) -> None:
    if isinstance(row.get("prompt"), list):
        mapped.origins[("request", "messages")] = "prompt"
    mapped.take(row, "prompt", "request", messages_request)
    mapped.take(row, "prompt_id", "request_id")
    mapped.take(row, "rubrics", "rubric")
    # The ideal completion is a high-scoring answer, not a reference answer: it goes to
    # metadata (ideal_completion, ideal_completions_group, ...), never expected_response.
    ideal = row.pop("ideal_completions_data", None)
    if isinstance(ideal, dict):
        mapped.metadata.update(ideal)
    elif ideal is not None:
        mapped.metadata["ideal_completions_data"] = ideal


_RAGAS_ROLES = {"human": "user", "ai": "assistant", "tool": "tool", "system": "system"}


def messages_request(value: Any) -> Any:
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


def chunks_of(column: str) -> Callable[[Any], Any]:
    """Contexts read from ``column``: a list whose strings become chunks with a derived
    ``doc_uri`` naming the column and position (``contexts[0]``), or one string, one
    such chunk (``context``). Other values pass on to validation."""

    def convert(value: Any) -> Any:
        if isinstance(value, str):
            return [derived_chunk(column, value)] if value.strip() else []
        if not isinstance(value, list):
            return value
        return [
            derived_chunk(f"{column}[{i}]", item) if isinstance(item, str) else item
            for i, item in enumerate(value)
        ]

    return convert


def derived_chunk(doc_uri: str, content: str) -> dict[str, Any]:
    """A context chunk from plain text: its ``doc_uri`` says where the text was
    (derived, not a document's name), and ``doc_uri_derived`` says so."""
    return {"doc_uri": doc_uri, "content": content, "doc_uri_derived": True}


_CONTEXT_FIELDS = ("retrieved_context", "expected_retrieved_context")
_METADATA_PREFIX = "metadata."


@dataclass(frozen=True)
class RowFormat:
    """A format whose rows are translated one by one to Sample fields."""

    name: str
    map_columns: Mapper
    request_column: str
    """The source column to name when a row has no request at all."""
    title: str = ""
    """How people call the format (``DeepEval``)."""

    @property
    def label(self) -> str:
        """The title, or the name."""
        return self.title or self.name


ROW_FORMATS: tuple[RowFormat, ...] = (
    RowFormat("databricks", _map_databricks, request_column="request", title="Databricks"),
    RowFormat("ragas", _map_ragas, request_column="user_input", title="ragas"),
    RowFormat("ragas_legacy", _map_ragas_legacy, request_column="question", title="ragas (legacy)"),
    RowFormat("openai_evals", _map_openai_evals, request_column="input", title="openai-evals"),
    RowFormat("healthbench", _map_healthbench, request_column="prompt", title="HealthBench"),
)


def map_row(
    data: dict[str, Any],
    fmt: RowFormat,
    columns: Mapping[str, str] | None = None,
    separators: Mapping[str, str] | None = None,
) -> Mapped:
    """Translate a row to Sample fields; unknown fields go to ``metadata``. ``columns``
    (field → the user's column) names the fields a ``columns`` mapping renamed: they
    win over any column the format would read for them. ``separators`` (field → the
    text between its values) cuts a field packed in one text cell into a list."""
    remaining = dict(data)
    mapped = Mapped(origins={("request",): fmt.request_column})
    given = _take_mapped(remaining, columns or {})
    fmt.map_columns(remaining, mapped)
    _put_mapped(mapped, given, columns or {}, data)
    explicit_metadata = remaining.pop("metadata", None)
    for key, value in remaining.items():
        if key in _SAMPLE_FIELDS and key not in mapped.fields:
            mapped.fields[key] = value
        elif key.startswith(_METADATA_PREFIX) and len(key) > len(_METADATA_PREFIX):
            mapped.metadata[key.removeprefix(_METADATA_PREFIX)] = value  # an exported column
        else:
            mapped.metadata[key] = value
            mapped.unused.append(key)
    for name, separator in (separators or {}).items():
        _split_field(mapped, name, separator)
    for name in _CONTEXT_FIELDS:
        if name in mapped.fields:
            column = mapped.origins.get((name,), name)
            mapped.fields[name] = chunks_of(column)(mapped.fields[name])
    if explicit_metadata is None:
        mapped.fields["metadata"] = mapped.metadata
    elif isinstance(explicit_metadata, dict):
        # An explicit metadata entry wins over a column of the same name.
        mapped.fields["metadata"] = {**mapped.metadata, **explicit_metadata}
    else:
        mapped.fields["metadata"] = explicit_metadata  # validation reports it
    return mapped


def _split_field(mapped: Mapped, name: str, separator: str) -> None:
    """Cut the text of field ``name`` at ``separator``; a value that is not text is
    noted in ``mapped.unsplit`` (and left as it is)."""
    if name not in mapped.fields:
        return
    value = mapped.fields[name]
    parts = split_packed(value, separator)
    if parts is None:
        column = mapped.origins.get((name,), name)
        mapped.unsplit[column] = (
            f"separators.{name} cuts text at {separator!r}, but this column holds "
            f"{type(value).__name__}, not text"
        )
        return
    mapped.fields[name] = parts


def _take_mapped(row: dict[str, Any], columns: Mapping[str, str]) -> dict[str, Any]:
    """The fields a ``columns`` mapping gave (already under their names), taken out of
    ``row`` before the format reads it (``metadata`` stays: it is read after)."""
    return {
        name: row.pop(name)
        for name in columns
        if name in _SAMPLE_FIELDS and name != "metadata" and name in row
    }


def _put_mapped(
    mapped: Mapped, given: dict[str, Any], columns: Mapping[str, str], row: Mapping[str, Any]
) -> None:
    """Set the fields a ``columns`` mapping gave; a column of ``row`` the format took
    for one of them is kept in the metadata instead, as it was, and noted."""
    for name, value in given.items():
        displaced = mapped.origins.get((name,)) if name in mapped.fields else None
        if displaced is not None:
            mapped.metadata[displaced] = row.get(displaced, mapped.fields[name])
            mapped.displaced[displaced] = name
        mapped.fields[name] = value
        mapped.origins = {loc: column for loc, column in mapped.origins.items() if loc[0] != name}
        mapped.origins[(name,)] = columns[name]
