"""A user's own column names: ``columns: {request: ticket_text, response: bot_reply}``
maps Sample fields to the columns (or ``column.key`` inside a JSON-object column)
that hold them, for files no built-in format recognises. One column may feed several
fields (``{request: question, metadata.question: question}``)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

__all__ = [
    "COLUMN_FIELDS",
    "check_columns",
    "nested_value",
    "rename_columns",
    "unfound_columns",
]

COLUMN_FIELDS: tuple[str, ...] = (
    "request_id",
    "request",
    "response",
    "expected_response",
    "expected_facts",
    "guidelines",
    "expected_retrieved_context",
    "retrieved_context",
    "trace",
    "rubric",
    "expected_tool_calls",
    "tool_calls",
    "metadata",
)
"""The fields ``columns`` may map (``metadata.KEY`` too)."""


def check_columns(columns: Mapping[Any, Any]) -> dict[str, str]:
    """``columns`` as ``{field: column}``, or ``ValueError`` naming the first mistake:
    an unknown field, or a column that is not a non-empty string."""
    checked: dict[str, str] = {}
    for field, column in columns.items():
        if not isinstance(field, str) or (
            field not in COLUMN_FIELDS and not _is_metadata_key(field)
        ):
            known = ", ".join(COLUMN_FIELDS)
            raise ValueError(f"{field!r} is not a field to map; use one of {known}, metadata.KEY")
        if not isinstance(column, str) or not column.strip():
            raise ValueError(f"{field}: give the column's name as text, not {column!r}")
        checked[field] = column
    return checked


def _is_metadata_key(field: str) -> bool:
    return field.startswith("metadata.") and len(field) > len("metadata.")


def rename_columns(record: Mapping[str, Any], columns: Mapping[str, str]) -> dict[str, Any]:
    """``record`` with each mapped column under its field's name (a column mapped to
    two fields under both); a column the record already holds under a mapped field's
    name stays, prefixed ``original.``, in the metadata. Dotted columns that are not
    in the record are left to :func:`nested_value`, once the cells are read."""
    renamed = {key: value for key, value in record.items() if key not in columns.values()}
    for field, column in columns.items():
        if column not in record:
            continue
        if field in renamed:
            renamed[f"original.{field}"] = renamed.pop(field)
        renamed[field] = record[column]
    return renamed


def nested_value(record: Mapping[str, Any], column: str) -> tuple[bool, Any]:
    """``(found, value)`` of a dotted column (``inputs.question``) inside the record's
    JSON-object cells."""
    head, _, rest = column.partition(".")
    value: Any = record.get(head)
    if not rest or not isinstance(value, Mapping):
        return False, None
    for key in rest.split("."):
        if not isinstance(value, Mapping) or key not in value:
            return False, None
        value = value[key]
    return True, value


def unfound_columns(
    columns: Mapping[str, str], found: Collection[str], existing: Iterable[str]
) -> str | None:
    """What is wrong with a ``columns`` mapping whose columns outside ``found`` no row
    holds (None when every one was found), naming each such field and the columns
    that do exist."""
    missing = [
        f"columns.{field}: no column {column!r}"
        for field, column in columns.items()
        if column not in found
    ]
    if not missing:
        return None
    return f"{'; '.join(missing)} (its columns: {', '.join(existing)})"
