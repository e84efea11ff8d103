"""Checks on the values of a row before anything else reads them: nesting that would
exhaust Python's recursion, and text that is not valid Unicode.

JSON allows ``"\\ud800"``: half of a UTF-16 surrogate pair with no other half. Python
reads it into a string that cannot be encoded, written to the store or shown, so a
row holding one is refused, naming the field, rather than failing later or being
silently changed.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any, NamedTuple

MAX_NESTING = 100
"""How deep lists and objects may sit inside each other in one row."""


class ValueProblem(NamedTuple):
    """What is wrong with one value of a row, and where (``metadata.tags[2]``)."""

    field: str
    reason: str


def value_problem(record: Mapping[Any, Any]) -> ValueProblem | None:
    """The first value of ``record`` nested too deeply or holding a lone surrogate,
    or None. Walks without recursion, so any depth is safe to check."""
    # (value, its path, its depth, the row's field that holds it)
    pending: list[tuple[Any, str, int, str]] = [(record, "", 0, "<row>")]
    while pending:
        value, path, depth, field = pending.pop()
        if isinstance(value, str):
            if (bad := _lone_surrogate(value)) is not None:
                return ValueProblem(path or "<row>", _surrogate_reason(bad))
            continue
        children = _children(value, path)
        if children is None:
            continue
        if depth >= MAX_NESTING:
            reason = (
                f"is nested more than {MAX_NESTING} levels deep "
                "(lists or objects inside each other)"
            )
            return ValueProblem(field, reason)
        for child_path, key, child in reversed(children):
            if isinstance(key, str) and (bad := _lone_surrogate(key)) is not None:
                return ValueProblem(path or "<row>", f"a field name {_surrogate_reason(bad)}")
            pending.append((child, child_path, depth + 1, child_path if depth == 0 else field))
    return None


def _children(value: Any, path: str) -> list[tuple[str, Any, Any]] | None:
    """(path, key, value) of each item of a mapping or sequence; None for a scalar."""
    if isinstance(value, Mapping):
        return [(f"{path}.{key}" if path else str(key), key, item) for key, item in value.items()]
    numpy = sys.modules.get("numpy")  # an array exists only once numpy is imported
    if numpy is not None and isinstance(value, numpy.ndarray):
        value = value.tolist()
    if isinstance(value, list | tuple):
        return [(f"{path}[{index}]", None, item) for index, item in enumerate(value)]
    return None


def _lone_surrogate(text: str) -> str | None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return text[exc.start]
    return None


def _surrogate_reason(character: str) -> str:
    return (
        f"holds the lone surrogate {character!a}: half of a UTF-16 pair without its "
        "other half, which is not text; fix that \\u escape in the file"
    )
