"""Tables in folders: a folder of Parquet files, partitioned Hive-style
(``logs/date=2026-11-01/part-0.parquet``) or not, and a Delta table (a folder with a
``_delta_log``), read in record batches with a :class:`RowFilter`.

The values of the partition folders become columns of every row of their files (so
they reach ``metadata`` and can split the summary). A filter prunes partitions: the
file of a partition whose values cannot match is never opened. A Delta table is read
with the ``deltalake`` package (the ``delta`` extra); its partitions are pruned by the
same filter, pushed down to the table, at its latest version or the one given with
``?version=N`` after the folder.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragjudge._util.extras import require_extra
from ragjudge.errors import DatasetError
from ragjudge.loading._file_checks import file_problem, refuse_lfs_parquet
from ragjudge.loading._row_filter import RowFilter, partition_verdict

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["DELTA_PREFIX", "delta_table_of", "is_delta_table", "table_batches"]

DELTA_PREFIX = "delta:"
"""``data: delta:PATH`` names a Delta table."""

_VERSION = re.compile(r"^(?P<path>.+)\?version=(?P<version>\d+)$")
_INTEGER = re.compile(r"-?\d+")


def is_delta_table(path: Path) -> bool:
    """Whether ``path`` is a Delta table's folder."""
    return (path / "_delta_log").is_dir()


def delta_table_of(source: str) -> tuple[Path, int | None] | None:
    """``(folder, version)`` when ``source`` names a Delta table (``delta:PATH``, a
    folder with a ``_delta_log``, either with ``?version=N``), else None."""
    text = source.removeprefix(DELTA_PREFIX)
    match = _VERSION.match(text)
    path = Path(match["path"] if match else text)
    version = int(match["version"]) if match else None
    if source.startswith(DELTA_PREFIX) or ((match or path.is_dir()) and is_delta_table(path)):
        return path, version
    return None


def table_batches(
    path: Path, label: str, rows: int, row_filter: RowFilter | None = None
) -> Iterator[list[dict[str, Any]]]:
    """The records of the table in folder ``path`` that ``row_filter`` keeps, ``rows``
    at a time (see the module docstring)."""
    found = delta_table_of(str(path))
    if found is not None:
        yield from _delta_batches(found[0], found[1], label, rows, row_filter)
    else:
        yield from _folder_batches(path, label, rows, row_filter)


def _folder_batches(
    path: Path, label: str, rows: int, row_filter: RowFilter | None
) -> Iterator[list[dict[str, Any]]]:
    import pyarrow
    import pyarrow.parquet as pq

    files = sorted(p for p in path.rglob("*.parquet") if p.is_file())
    if not files:
        raise _error(label, "is a folder with no .parquet file; give the evaluation set's file")
    partitions = _typed_partitions({file: _partition_values(file, path) for file in files})
    kept = [f for f in files if _may_match(row_filter, partitions[f])]
    if row_filter is not None and kept:
        _check_columns(row_filter, _folder_columns(kept, partitions), label)
    for file in kept:
        refuse_lfs_parquet(file, str(file))
        try:
            parquet = pq.ParquetFile(file)
            for batch in parquet.iter_batches(batch_size=rows):
                yield _filtered(_with_partitions(batch, partitions[file]), row_filter)
        except (pyarrow.ArrowException, OSError, ValueError) as exc:
            raise _error(f"{file}", f"is not a readable Parquet file: {exc}") from None


def _folder_columns(kept: list[Path], partitions: dict[Path, dict[str, Any]]) -> list[str]:
    """The columns of the first kept file whose schema can be read (a broken file is
    reported when its rows are read), with the partition columns."""
    import pyarrow
    import pyarrow.parquet as pq

    for file in kept:
        try:
            names: list[str] = pq.read_schema(file).names
        except (pyarrow.ArrowException, OSError, ValueError):
            continue
        return [*names, *(k for k in partitions[file] if k not in names)]
    return list(partitions[kept[0]])


def _partition_values(file: Path, root: Path) -> dict[str, str]:
    """The ``KEY=VALUE`` folders between ``root`` and ``file``, as written."""
    folders = file.relative_to(root).parts[:-1]
    return dict(part.split("=", 1) for part in folders if "=" in part)


def _typed_partitions(found: dict[Path, dict[str, str]]) -> dict[Path, dict[str, Any]]:
    """Each file's partition values, a key's values read as whole numbers when all of
    them are, else kept as text (so ``date=2026-11-01`` stays a text)."""
    keys = {key for values in found.values() for key in values}
    numeric = {
        key for key in keys if all(_INTEGER.fullmatch(v[key]) for v in found.values() if key in v)
    }
    return {
        file: {k: int(v) if k in numeric else v for k, v in values.items()}
        for file, values in found.items()
    }


def _may_match(row_filter: RowFilter | None, values: dict[str, Any]) -> bool:
    return row_filter is None or partition_verdict(row_filter.tree, values) is not False


def _with_partitions(batch: pa.RecordBatch, values: dict[str, Any]) -> pa.Table:
    """The rows of ``batch`` with the partition columns (a column of the file of the
    same name wins)."""
    import pyarrow as pa

    table = pa.Table.from_batches([batch])
    for key, value in values.items():
        if key not in table.column_names:
            table = table.append_column(key, pa.array([value] * table.num_rows))
    return table


def _filtered(table: pa.Table, row_filter: RowFilter | None) -> list[dict[str, Any]]:
    if row_filter is not None and table.num_rows:
        table = table.filter(row_filter.expression(table.schema))
    rows: list[dict[str, Any]] = table.to_pylist()
    return rows


def _delta_batches(
    path: Path, version: int | None, label: str, rows: int, row_filter: RowFilter | None
) -> Iterator[list[dict[str, Any]]]:
    require_extra("delta", f"the Delta table {label}")
    import pyarrow
    from deltalake import DeltaTable
    from deltalake.exceptions import DeltaError

    try:
        table = DeltaTable(str(path), version=version)
        dataset = table.to_pyarrow_dataset()
    except (DeltaError, OSError, ValueError) as exc:
        raise _error(label, f"is not a readable Delta table: {exc}") from None
    expression = None
    if row_filter is not None:
        _check_columns(row_filter, dataset.schema.names, label)
        expression = row_filter.expression(dataset.schema)
    try:
        for batch in dataset.to_batches(filter=expression, batch_size=rows):
            if batch.num_rows:
                yield batch.to_pylist()
    except (pyarrow.ArrowException, OSError) as exc:
        raise _error(label, f"cannot be read: {exc}") from None


def _check_columns(row_filter: RowFilter | None, names: list[str], label: str) -> None:
    """A filter may name only the table's columns (partition columns included)."""
    if row_filter is None:
        return
    unknown = row_filter.unknown_columns(names)
    if unknown:
        raise _error(
            label,
            f"the filter {row_filter.text!r} names {', '.join(map(repr, unknown))}, which "
            f"is not a column; the columns are: {', '.join(names)}",
        )


def _error(label: str, reason: str) -> DatasetError:
    return DatasetError([file_problem(label, reason)])
