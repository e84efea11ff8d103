"""Turning read rows into validated samples: map each row to Sample fields, give
every row a request id, validate, and report every bad row."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from pydantic import ValidationError

from ragjudge.errors import RowProblem
from ragjudge.loading._mapping import Mapped, RowFormat, map_row
from ragjudge.loading._problems import short_repr, validation_problems
from ragjudge.loading._readers import RawRow
from ragjudge.schema import Sample


@dataclass
class _PreparedRow:
    row: int
    mapped: Mapped
    data: dict[str, Any]
    """The row as read: a row without a request id gets one derived from it."""

    @cached_property
    def content_id(self) -> str:
        """The digest of the row's content (needed only when the row has no id)."""
        return _content_id(self.data)


@dataclass
class RequestIds:
    """The request ids of a set read in pages: the first row of each given id (to
    report duplicates across pages) and every id taken so far — with the given ids of
    the whole set when an earlier pass collected them, so that derived ids avoid them
    exactly as a whole load does."""

    first_row: dict[str, int] = field(default_factory=dict)
    taken: set[str] = field(default_factory=set)
    clashed: bool = False
    """A given id equals one derived on an earlier page: a whole load would have
    derived another; read again with ``taken`` holding every given id."""


@dataclass
class Built:
    """The valid samples of a set, the problems of its other rows, which columns gave
    which field (``field`` → column), the columns no field took, and the columns the
    format would have read as a field that a ``columns`` mapping gives (column →
    field)."""

    samples: list[Sample]
    problems: list[RowProblem]
    fields: dict[str, str]
    unused: list[str]
    displaced: dict[str, str] = field(default_factory=dict)
    unnamed_rows: list[int] = field(default_factory=list)
    """The row numbers of the rows that carried no request id (theirs was derived)."""


@dataclass(frozen=True)
class BuildRules:
    """How read rows become samples besides their format: the ``columns`` mapping
    (its columns already under their fields' names), the separators of fields packed
    in one cell, and whether a row without an id is named by its row number (the same
    in every reading of the file) rather than by its content."""

    columns: Mapping[str, str] = field(default_factory=dict)
    separators: Mapping[str, str] = field(default_factory=dict)
    ids_from_rows: bool = False


def build_samples(
    label: str,
    rows: list[RawRow],
    fmt: RowFormat,
    rules: BuildRules | None = None,
    ids: RequestIds | None = None,
) -> Built:
    """The valid samples of ``rows`` read in format ``fmt`` by ``rules``, and the
    problems of the others (a row with a bad request id, or a packed field that is not
    text, yields no sample). ``ids`` carries the request ids of the pages before
    ``rows`` when a set is built page by page."""
    rules = rules or BuildRules()
    prepared = [
        _PreparedRow(raw.row, map_row(raw.data, fmt, rules.columns, rules.separators), raw.data)
        for raw in rows
    ]
    unnamed = [item.row for item in prepared if "request_id" not in item.mapped.fields]
    if rules.ids_from_rows:
        _name_rows_by_number(prepared)
    problems = _assign_request_ids(label, prepared, ids or RequestIds())
    problems.extend(_unsplit_problems(label, prepared))
    bad_rows = {p.row for p in problems}
    samples: list[Sample] = []
    for item in prepared:
        try:
            sample = Sample.model_validate(item.mapped.fields)
        except ValidationError as exc:
            problems.extend(validation_problems(label, item.row, item.mapped, exc))
            continue
        if item.row not in bad_rows:
            samples.append(sample)
    displaced = {c: f for item in prepared for c, f in item.mapped.displaced.items()}
    return Built(samples, problems, _fields_taken(prepared), _unused(prepared), displaced, unnamed)


def _name_rows_by_number(prepared: list[_PreparedRow]) -> None:
    """Give each row without a request id its row number as its id."""
    for item in prepared:
        item.mapped.fields.setdefault("request_id", str(item.row))


def _unsplit_problems(label: str, prepared: list[_PreparedRow]) -> list[RowProblem]:
    return [
        RowProblem(source=label, row=item.row, field=column, reason=reason)
        for item in prepared
        for column, reason in item.mapped.unsplit.items()
    ]


def _fields_taken(prepared: list[_PreparedRow]) -> dict[str, str]:
    """Field → the column it came from, when that column has another name."""
    taken: dict[str, str] = {}
    for item in prepared:
        for loc, column in item.mapped.origins.items():
            field = str(loc[0])
            if len(loc) == 1 and field in item.mapped.fields and column != field:
                taken.setdefault(field, column)
    return taken


def _unused(prepared: list[_PreparedRow]) -> list[str]:
    found: dict[str, None] = {}
    for item in prepared:
        found.update(dict.fromkeys(item.mapped.unused))
    return list(found)


def _content_id(data: Mapping[str, Any]) -> str:
    canonical = json.dumps(
        data, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str
    )
    return hashlib.sha1(canonical.encode("utf-8"), usedforsecurity=False).hexdigest()[:12]


def _assign_request_ids(
    label: str, prepared: list[_PreparedRow], ids: RequestIds
) -> list[RowProblem]:
    """Keep given ids (as strings), report duplicates, derive the missing ones."""
    problems: list[RowProblem] = []
    first_row = ids.first_row
    for item in prepared:
        fields = item.mapped.fields
        if "request_id" not in fields:
            continue
        column = item.mapped.origins.get(("request_id",), "request_id")
        request_id = _id_text(fields["request_id"])
        if request_id is None:
            reason = (
                f"must be a non-empty string or a number (got {short_repr(fields['request_id'])})"
            )
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
            ids.clashed = ids.clashed or request_id in ids.taken
            first_row[request_id] = item.row
            ids.taken.add(request_id)
    used = ids.taken
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
