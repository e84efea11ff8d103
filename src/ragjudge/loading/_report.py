"""What loading an evaluation set decided, in words: the format it assumed, which
column gave which field (by the format's guess or by a ``columns`` mapping), the
columns no field took, and the rows it skipped."""

from __future__ import annotations

from dataclasses import dataclass, field

from ragjudge.errors import RowProblem

__all__ = ["LoadReport"]

_SHOWN_ROWS = 5


@dataclass
class LoadReport:
    """How one evaluation set was read (see :func:`ragjudge.loading.read_evaluation_set`)."""

    source: str
    format: str
    """The format's name (``deepeval``, ``databricks`` …)."""
    title: str
    """How people call it (``DeepEval``)."""
    guessed: bool
    """Whether the format was guessed (no ``format=`` given)."""
    fields: dict[str, str] = field(default_factory=dict)
    """Field → the column it was read from, where the names differ."""
    unused: list[str] = field(default_factory=list)
    """Columns no field took (they are in each sample's metadata)."""
    skipped: list[RowProblem] = field(default_factory=list)
    """Rows left out because they cannot be read (``skip_invalid_rows``)."""
    mapping: dict[str, str] = field(default_factory=dict)
    """The ``columns`` mapping the set was read with (field → column)."""
    guessed_from: str = "the column names"
    """What the guess read: the column names, or the file's content (traces)."""
    displaced: dict[str, str] = field(default_factory=dict)
    """Column → the field the format's guess would have read it as, where ``columns``
    gives that field from another column (the column is kept as metadata)."""
    unnamed_rows: list[int] = field(default_factory=list)
    """The row numbers of the rows that carried no request id (theirs was derived from
    the row's content or number)."""

    @property
    def mapped(self) -> bool:
        """Whether a ``columns`` mapping named columns."""
        return bool(self.mapping)

    def notes(self) -> list[str]:
        """One line per thing a user should know; none for a plain Databricks-style set
        whose every column is a field."""
        lines: list[str] = []
        by_format = {n: c for n, c in self.fields.items() if n not in self.mapping}
        guess_shown = self.guessed and self.format != "databricks"
        if guess_shown:
            pairs = _pairs(by_format)
            lines.append(
                f"{self.source}: read as {self.title} (guessed from {self.guessed_from}; "
                f"set 'format' to choose another){': ' + pairs if pairs else ''}"
            )
        if self.mapping:
            shown = (
                self.fields
                if not guess_shown
                else {n: c for n, c in self.fields.items() if n in self.mapping}
            )
            lines.append(f"{self.source}: columns mapped by 'columns': {_pairs(shown)}")
        if self.displaced:
            set_aside = ", ".join(
                f"{column} (for {name})" for column, name in self.displaced.items()
            )
            lines.append(
                f"{self.source}: 'columns' wins over the guess, which would have read "
                f"{set_aside}; kept as metadata"
            )
        if self.unused:
            lines.append(
                f"{self.source}: columns not read as evaluation fields (kept as metadata): "
                + ", ".join(self.unused)
            )
        if self.skipped:
            lines.append(self._skipped_line())
        return lines

    def _skipped_line(self) -> str:
        rows = sorted({p.row for p in self.skipped})
        shown = "; ".join(
            f"row {p.row}, field '{p.field}': {p.reason}" for p in self.skipped[:_SHOWN_ROWS]
        )
        more = len(self.skipped) - _SHOWN_ROWS
        tail = f"; and {more} more" if more > 0 else ""
        return (
            f"{self.source}: skipped {len(rows)} row{'s' if len(rows) != 1 else ''} "
            f"that cannot be read (skip_invalid_rows): {shown}{tail}"
        )

    def to_dict(self) -> dict[str, object]:
        """JSON-able form."""
        return {
            "source": self.source,
            "format": self.format,
            "guessed": self.guessed,
            "fields": dict(self.fields),
            "unused": list(self.unused),
            "skipped": [p.model_dump() for p in self.skipped],
        }


def _pairs(fields: dict[str, str]) -> str:
    return ", ".join(f"{column} → {name}" for name, column in fields.items())
