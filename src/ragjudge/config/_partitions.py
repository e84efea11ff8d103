"""The settings that choose the rows of a table in a folder: a row filter pushed down
to the partitions (``data_where``, ``--where``) and sampling per partition
(``sample_per``)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from ragjudge.errors import ConfigError
from ragjudge.loading import parse_row_filter

__all__ = ["DataWhere", "SamplePer"]


def _checked_where(value: str | None) -> str | None:
    """A row filter that parses (see :mod:`ragjudge.loading._row_filter`)."""
    if value is not None:
        try:
            parse_row_filter(value, "data_where")
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
    return value


DataWhere = Annotated[
    str | None,
    AfterValidator(_checked_where),
    Field(
        description=(
            "Evaluate only the rows of a Parquet folder or Delta table that match this "
            "filter, such as date >= '2026-11-01' and lang in ('en', 'fr'); the files of "
            "partitions it excludes are never opened.\n\n"
            "Comparisons = != < <= > >= and in, joined by and, or, not and parentheses; "
            "a value in quotes is read as its column's type (see "
            "``docs/everyday.md#nightly-runs``)."
        )
    ),
]

SamplePer = Annotated[
    str | None,
    Field(
        description=(
            "With sample: draw up to sample rows from each value of this column (a "
            "partition such as date), not sample rows in all."
        )
    ),
]
