"""Anchor samples: rows of the evaluation set whose verdict is known, so a judge that
starts to judge them otherwise (a new model version behind the same name, a changed
prompt) shows it. The config's ``anchors`` names them, inline or in a file of rows
``{request_id, metric, expected}`` (JSON Lines, JSON or CSV); the file is read when
the config is, so the run keeps the anchors in its stored config and the analysis
never reads the file again (:mod:`ragjudge.analysis._drift`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ragjudge.errors import DataError

__all__ = ["Anchor", "checked_anchor_rows", "read_anchor_file"]


class Anchor(BaseModel):
    """One anchor: a sample, a metric and the verdict the judge is expected to give."""

    model_config = ConfigDict(extra="forbid")

    request_id: str
    """The sample's request id."""
    metric: str = Field(min_length=1)
    """A metric name (every judge's score of it: ``faithfulness`` covers
    ``faithfulness@mini`` and ``faithfulness@big``) or one score's name."""
    expected: bool | float
    """The expected score (``true``/``false`` stand for 1 and 0)."""
    tolerance: float = Field(default=0.0, ge=0.0)
    """How far the score may be from ``expected`` and still agree (0: equal)."""

    @field_validator("request_id", mode="before")
    @classmethod
    def _id_as_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @property
    def expected_value(self) -> float:
        """``expected`` as a number."""
        return float(self.expected)


def read_anchor_file(path: Path) -> list[dict[str, Any]]:
    """The anchor rows of the file at ``path`` (JSON Lines, JSON or CSV), each checked
    as an :class:`Anchor`; a :class:`ValueError` names the file, row and field of the
    first problem."""
    from ragjudge.loading._readers import read_source

    if not path.is_file():
        raise ValueError(f"anchors: {path}: no such file")
    try:
        read = read_source(path)
    except DataError as exc:
        raise ValueError(f"anchors: {exc}") from None
    if read.problems:
        first = read.problems[0]
        where = f"{path}, row {first.row}" if first.row else str(path)
        raise ValueError(f"anchors: {where}: {first.reason}")
    rows = [(raw.row, _without_blanks(raw.data)) for raw in read.rows]
    if not rows:
        raise ValueError(f"anchors: {path}: holds no anchors")
    return [_checked_row(f"{path}, row {number}", row) for number, row in rows]


def checked_anchor_rows(rows: Sequence[Any]) -> list[dict[str, Any]]:
    """Inline anchor rows, each checked as an :class:`Anchor` (a :class:`ValueError`
    names the row, from 1, and the field)."""
    return [_checked_row(f"row {n}", row) for n, row in enumerate(rows, start=1)]


def _checked_row(where: str, row: Any) -> dict[str, Any]:
    try:
        anchor = Anchor.model_validate(row)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = ".".join(str(p) for p in error["loc"]) or "row"
        message = error["msg"].removeprefix("Value error, ")
        raise ValueError(f"anchors: {where}: {field}: {message}") from None
    return anchor.model_dump()


def _without_blanks(data: dict[str, Any]) -> dict[str, Any]:
    """A CSV row without its empty cells (an empty ``tolerance`` is the default)."""
    return {key: value for key, value in data.items() if value not in ("", None)}
