"""One row of a label file read as a stored :class:`~ragjudge.store.Label`, and a label
written back as such a row.

A row names the sample (``request_id``), the score (``metric``, ``""`` for the sample as
a whole), the person (``annotator``) and the label: ``label`` holds the value, whose
kind is read from it unless ``kind`` says it: true/false/yes/no is a yes/no label, a
number a scale label, a JSON object of item → true/false a rubric label, other text a
choice. ``comment``, ``drawn`` (``random``, ``targeted``, or ``imported``: brought in
from elsewhere, counted as random) and ``created_at`` (an ISO 8601 time) are optional.
In CSV every cell is text, so a number or a JSON object is read from its text.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast, get_args

from ragjudge.errors import DataError
from ragjudge.store._labels import Label, LabelDrawn, LabelKind, LabelValue, value_problem
from ragjudge.store._rows import timestamp

__all__ = ["FIELDS", "RowDefaults", "RowError", "label_from_row", "row_of_label"]

FIELDS = ("request_id", "metric", "annotator", "kind", "label", "comment", "drawn", "created_at")
"""The fields of a label file, in the order an export writes them."""

_KINDS: tuple[str, ...] = get_args(LabelKind)
_DRAWN: tuple[str, ...] = get_args(LabelDrawn)
_YES = frozenset({"true", "yes"})
_NO = frozenset({"false", "no"})


class RowError(DataError):
    """What is wrong with one field of a row: ``field`` names it (the file reader adds
    the file and the line)."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(reason)
        self.field = field
        self.reason = reason


@dataclass(frozen=True)
class RowDefaults:
    """What a row that leaves a field out takes: the run, and the person and score the
    command named."""

    run_id: str
    annotator: str | None = None
    metric: str | None = None


def label_from_row(row: Mapping[str, Any], defaults: RowDefaults) -> Label:
    """The label a file row describes; :class:`RowError` naming the field when the row
    cannot be one."""
    unknown = sorted(set(row) - set(FIELDS))
    if unknown:
        raise RowError(unknown[0], f"is not a field of a label file ({', '.join(FIELDS)})")
    request_id = _text(row, "request_id", required=True)
    metric = _text(row, "metric") or defaults.metric or ""
    annotator = _text(row, "annotator") or defaults.annotator
    if not annotator:
        raise RowError("annotator", "is missing (or give --annotator for the whole file)")
    comment = _text(row, "comment") or None
    kind, value = _kind_and_value(row.get("label"), _text(row, "kind"), comment)
    return Label(
        run_id=defaults.run_id,
        request_id=request_id,
        metric=metric,
        annotator=annotator,
        kind=kind,
        value=value,
        comment=comment,
        drawn=_drawn(_text(row, "drawn")),
        created_at=_created_at(_text(row, "created_at")),
    )


def row_of_label(label: Label, *, as_text: bool) -> dict[str, Any]:
    """The file row of ``label``; ``as_text`` writes every cell as text (CSV)."""
    value: Any = label.value
    if as_text:
        value = _value_text(label.value)
    return {
        "request_id": label.request_id,
        "metric": label.metric,
        "annotator": label.annotator,
        "kind": label.kind,
        "label": value,
        "comment": label.comment or ("" if as_text else None),
        "drawn": label.drawn,
        "created_at": label.created_at,
    }


def _value_text(value: LabelValue) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float):
        return repr(int(value)) if value.is_integer() else repr(value)
    return str(value)


def _text(row: Mapping[str, Any], field: str, *, required: bool = False) -> str:
    value = row.get(field)
    if value is None or value == "":
        if required:
            raise RowError(field, "is missing")
        return ""
    if not isinstance(value, str | int) or isinstance(value, bool):
        raise RowError(field, f"must be text, not {json.dumps(value)}")
    return str(value).strip()


def _kind_and_value(raw: Any, forced: str, comment: str | None) -> tuple[LabelKind, LabelValue]:
    if forced and forced not in _KINDS:
        raise RowError("kind", f"must be one of {', '.join(_KINDS)}, not {forced!r}")
    if raw is None or raw == "":
        if forced not in ("", "comment"):
            raise RowError("label", f"is missing (a {forced} label needs a value)")
        if not comment:
            raise RowError("label", "is missing (a row needs a label or a comment)")
        return "comment", None
    kind, value = _read_value(raw, forced)
    problem = value_problem(kind, value, comment)
    if problem is not None:
        raise RowError("label", f"{problem}, not {json.dumps(raw, ensure_ascii=False)}")
    return kind, value


def _read_value(raw: Any, forced: str) -> tuple[LabelKind, LabelValue]:
    """The kind and value of ``raw``: forced when ``forced`` names a kind, else read from
    its type (or its text)."""
    if forced == "comment":
        raise RowError("label", "a comment row holds no label: put the text in 'comment'")
    if forced == "choice":
        return "choice", raw if isinstance(raw, str) else json.dumps(raw)
    if isinstance(raw, bool):
        return "yesno", raw
    if isinstance(raw, int | float):
        return "scale", float(raw)
    if isinstance(raw, dict):
        return "rubric", raw
    if not isinstance(raw, str):
        raise RowError("label", f"cannot be a label: {json.dumps(raw, ensure_ascii=False)}")
    return _read_text(raw.strip(), forced)


def _read_text(text: str, forced: str) -> tuple[LabelKind, LabelValue]:
    word = text.lower()
    if word in _YES | _NO and forced in ("", "yesno"):
        return "yesno", word in _YES
    number = _number(text)
    if number is not None and forced in ("", "scale"):
        return "scale", number
    if text.startswith("{") and forced in ("", "rubric"):
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RowError("label", f"is not a JSON object of rubric items: {exc.msg}") from None
        return "rubric", parsed
    if forced:
        raise RowError("label", f"{text!r} is not a {forced} label")
    return "choice", text


def _number(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _drawn(text: str) -> LabelDrawn:
    if not text:
        return "imported"
    if text not in _DRAWN:
        raise RowError("drawn", f"must be one of {', '.join(_DRAWN)}, not {text!r}")
    return cast(LabelDrawn, text)


def _created_at(text: str) -> str:
    if not text:
        return timestamp()
    try:
        datetime.fromisoformat(text)
    except ValueError:
        raise RowError("created_at", f"is not an ISO 8601 time: {text!r}") from None
    return text
