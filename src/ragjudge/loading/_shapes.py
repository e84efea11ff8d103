"""Data shapes beyond one column per field.

- Several values packed in one text cell: ``separators: {expected_response: "/"}``
  reads ``"A/B/C"`` as three references (annotators' answers kept in one column).
- A wide file holding one response column per system evaluated: ``systems: {gpt4o:
  response_gpt4o, llama: response_llama}`` reads the set once per system, each time
  with that system's column as the response and the other systems' columns left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "SPLITTABLE_FIELDS",
    "check_separators",
    "check_systems",
    "missing_system_columns",
    "split_packed",
]

SPLITTABLE_FIELDS: tuple[str, ...] = (
    "expected_response",
    "expected_facts",
    "guidelines",
    "retrieved_context",
    "expected_retrieved_context",
)
"""The fields whose values may be packed in one text cell: each holds a list."""


def check_separators(separators: Mapping[Any, Any]) -> dict[str, str]:
    """``separators`` as ``{field: separator}``, or ``ValueError`` naming the first
    mistake: a field that holds no list, or a separator that is not non-empty text."""
    checked: dict[str, str] = {}
    for field, separator in separators.items():
        if field not in SPLITTABLE_FIELDS:
            known = ", ".join(SPLITTABLE_FIELDS)
            raise ValueError(
                f"separators: {field!r} is not a field that holds several values; use one "
                f"of {known}"
            )
        if not isinstance(separator, str) or not separator:
            raise ValueError(
                f"separators.{field}: give the text between the values, not {separator!r}"
            )
        checked[field] = separator
    return checked


def split_packed(value: Any, separator: str) -> list[str] | None:
    """The values packed in the text ``value``, cut at ``separator`` and stripped, the
    empty ones left out; None when ``value`` is not text."""
    if not isinstance(value, str):
        return None
    return [part.strip() for part in value.split(separator) if part.strip()]


def check_systems(systems: Mapping[Any, Any], columns: Mapping[str, str]) -> dict[str, str]:
    """``systems`` as ``{system name: response column}``, or ``ValueError`` naming the
    first mistake: a name or column that is not non-empty text, two names that differ
    only in case or spaces (their runs would be told apart by nothing a reader sees),
    or a ``columns`` mapping that gives the responses too."""
    if systems and "response" in columns:
        raise ValueError(
            "systems: the responses are in one column per system, so leave "
            "columns.response out (it names one column for all of them)"
        )
    checked: dict[str, str] = {}
    seen: dict[str, str] = {}
    for name, column in systems.items():
        if not isinstance(name, str) or not name.strip() or "/" in name:
            raise ValueError(f"systems: {name!r} is not a system name (text without '/')")
        if not isinstance(column, str) or not column.strip():
            raise ValueError(f"systems.{name}: give the column's name as text, not {column!r}")
        key = name.strip().casefold()
        if key in seen:
            raise ValueError(f"systems: {seen[key]!r} and {name!r} name the same system twice")
        seen[key] = name
        checked[name.strip()] = column
    return checked


def missing_system_columns(systems: Mapping[str, str], existing: Iterable[str]) -> str | None:
    """What is wrong when some system's column is not in the file (None when every one
    is), naming each such system and the columns that do exist."""
    present = list(existing)
    missing = [
        f"systems.{name}: no column {column!r}"
        for name, column in systems.items()
        if column not in present
    ]
    if not missing:
        return None
    return f"{'; '.join(missing)} (its columns: {', '.join(present)})"
