"""An evaluation set given as a dict of columns, ``{"question": [...], "answer": [...]}``
(what ``datasets.Dataset.from_dict`` takes), turned into rows: row ``i`` holds the
``i``-th value of every column. Every column must be a list of the same length."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragjudge.errors import DatasetError, RowProblem

COLUMNS_LABEL = "<columns>"


def rows_of_columns(columns: Mapping[Any, Any]) -> list[dict[str, Any]]:
    """One dict per row of ``columns``; a column that is not a list, or columns of
    unequal length, raise :class:`DatasetError` naming the columns."""
    values = {str(name): _column_values(str(name), column) for name, column in columns.items()}
    lengths = {name: len(column) for name, column in values.items()}
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"{name!r} has {length}" for name, length in lengths.items())
        raise _columns_error(f"the columns are of unequal length: {shown} values")
    count = next(iter(lengths.values()), 0)
    return [{name: column[i] for name, column in values.items()} for i in range(count)]


def _column_values(name: str, column: Any) -> list[Any]:
    """The values of one column: a list or tuple, or an array or Series (``tolist``)."""
    if isinstance(column, list | tuple):
        return list(column)
    tolist = getattr(column, "tolist", None)
    if callable(tolist) and not isinstance(column, str | bytes):
        listed = tolist()
        if isinstance(listed, list):
            return listed
    raise _columns_error(
        f"column {name!r} is {type(column).__name__}, not a list of values "
        "(a dict of columns maps each column name to the list of its values)",
        field=name,
    )


def _columns_error(reason: str, *, field: str = "<file>") -> DatasetError:
    """A problem of the dict of columns as a whole."""
    return DatasetError([RowProblem(source=COLUMNS_LABEL, row=0, field=field, reason=reason)])
