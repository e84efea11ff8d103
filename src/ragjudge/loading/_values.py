"""Checks on the values of a row before anything else reads them: nesting that would
exhaust Python's recursion, text that is not valid Unicode, numbers that cannot be
kept, keys given twice, and fields larger than the set allows.

JSON allows ``"\\ud800"``: half of a UTF-16 surrogate pair with no other half. Python
reads it into a string that cannot be encoded, written to the store or shown, so a
row holding one is refused, naming the field, rather than failing later or being
silently changed. Likewise a number beyond a float's range (``1e400``, read as
infinity, which the store would keep as null), a whole number too long to write back
as text, and a JSON key given twice (the last value would win without a word).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from typing import Any, NamedTuple

from ragjudge.loading._json import MAX_INT_DIGITS, LongNumber, RepeatedKeys

MAX_NESTING = 100
"""How deep lists and objects may sit inside each other in one row."""

MAX_FIELD_BYTES = 10_000_000
"""The default of the ``max_field_bytes`` setting: the most bytes of text (UTF-8) one
field of a row may hold."""

_MAX_INT_BITS = math.ceil(MAX_INT_DIGITS * math.log2(10))


class ValueProblem(NamedTuple):
    """What is wrong with one value of a row, and where (``metadata.tags[2]``)."""

    field: str
    reason: str


def value_problem(
    record: Mapping[Any, Any], max_field_bytes: int | None = None
) -> ValueProblem | None:
    """The first value of ``record`` nested too deeply, holding a lone surrogate, a
    number that cannot be kept or a key given twice, or None; with ``max_field_bytes``,
    also a field of the row holding more text than that (its strings and keys, in
    UTF-8). Walks without recursion, so any depth is safe to check."""
    sizes = _FieldSizes(max_field_bytes)
    # (value, its path, its depth, the row's field that holds it)
    pending: list[tuple[Any, str, int, str]] = [(record, "", 0, "<row>")]
    while pending:
        value, path, depth, field = pending.pop()
        if isinstance(value, str):
            if (bad := _lone_surrogate(value)) is not None:
                return ValueProblem(path or "<row>", _surrogate_reason(bad))
            if (problem := sizes.add(field, value)) is not None:
                return problem
            continue
        if (reason := _number_problem(value)) is not None:
            return ValueProblem(path or "<row>", reason)
        if isinstance(value, RepeatedKeys):
            return _repeated_key(value, path)
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
            child_field = child_path if depth == 0 else field
            if isinstance(key, str):
                if (bad := _lone_surrogate(key)) is not None:
                    return ValueProblem(path or "<row>", f"a field name {_surrogate_reason(bad)}")
                if depth and (problem := sizes.add(child_field, key)) is not None:
                    return problem
            pending.append((child, child_path, depth + 1, child_field))
    return None


def text_bytes(text: str) -> int:
    """The length of ``text`` in UTF-8 (a lone surrogate counted as if encoded)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def longer_than(text: str, limit: int) -> bool:
    """Whether ``text`` takes more than ``limit`` bytes in UTF-8, without encoding it
    when its length decides (a character takes at most four bytes)."""
    return len(text) * 4 > limit and text_bytes(text) > limit


class _FieldSizes:
    """The bytes of text seen so far in each field of a row, against a limit."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.sizes: dict[str, int] = {}

    def add(self, field: str, text: str) -> ValueProblem | None:
        if self.limit is None:
            return None
        size = self.sizes.get(field, 0) + text_bytes(text)
        self.sizes[field] = size
        if size <= self.limit:
            return None
        reason = (
            f"holds more than {self.limit:,} bytes of text, the most a field may hold "
            "(the max_field_bytes setting): shorten it, or raise max_field_bytes"
        )
        return ValueProblem(field, reason)


def _number_problem(value: Any) -> str | None:
    if isinstance(value, LongNumber):
        return _long_number_reason(f"of {value.digits:,} digits")
    if isinstance(value, float) and math.isinf(value):
        return (
            "is infinite (a number beyond about 1.8e308 reads as infinity): write a "
            "finite number, or the number as a string"
        )
    if isinstance(value, int) and value.bit_length() > _MAX_INT_BITS:
        return _long_number_reason(f"of more than {MAX_INT_DIGITS:,} digits")
    return None


def _long_number_reason(size: str) -> str:
    return (
        f"is a whole number {size}; at most {MAX_INT_DIGITS:,} digits can be read: "
        "write it as a string"
    )


def _repeated_key(value: RepeatedKeys, path: str) -> ValueProblem:
    key = value.repeated[0]
    where = "the row" if not path else "one object"
    reason = f"is given twice in {where}; JSON would keep the last value without a word: keep one"
    return ValueProblem(f"{path}.{key}" if path else key, reason)


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
    if text.isascii():
        return None
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
