"""Score rows read a page at a time (:mod:`ragjudge.store._table_reader`) written to a
file or standard output as they are read: JSON Lines, JSON, CSV or Parquet, with memory
bounded by the page (``ragjudge export --table``)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ragjudge._util.known_secrets import mask_secrets_in
from ragjudge.errors import ExportError

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["write_pages"]

STDOUT = "-"


def write_pages(
    pages: Iterable[pa.RecordBatch], output: str, fmt: str, stdout: IO[str] | None = None
) -> int:
    """Write every page to ``output`` (``-``: standard output) in ``fmt``; the rows
    written. :class:`~ragjudge.errors.ExportError` naming the file when it cannot be
    written."""
    if output == STDOUT:
        return _write_text(pages, stdout or sys.stdout, fmt)
    path = Path(output)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if fmt == "parquet":
            return _write_parquet(pages, path)
        with path.open("w", encoding="utf-8", newline="") as handle:
            return _write_text(pages, handle, fmt)
    except OSError as exc:
        raise ExportError(f"cannot write {output}: {exc.strerror or exc}") from None


def _write_parquet(pages: Iterable[pa.RecordBatch], path: Path) -> int:
    import pyarrow.parquet as pq

    rows = 0
    writer: pq.ParquetWriter | None = None
    try:
        for page in pages:
            if writer is None:
                writer = pq.ParquetWriter(path, page.schema, compression="zstd")
            writer.write_batch(page)
            rows += page.num_rows
    finally:
        if writer is not None:
            writer.close()
    return rows


def _write_text(pages: Iterable[pa.RecordBatch], handle: IO[str], fmt: str) -> int:
    if fmt == "csv":
        return _write_csv(pages, handle)
    rows = 0
    if fmt == "json":
        handle.write("[")
    for page in pages:
        for row in page.to_pylist():
            text = json.dumps(mask_secrets_in(row), ensure_ascii=False, default=_plain)
            if fmt == "json":
                handle.write(("," if rows else "") + "\n" + text)
            else:
                handle.write(text + "\n")
            rows += 1
    if fmt == "json":
        handle.write("\n]\n")
    return rows


def _write_csv(pages: Iterable[pa.RecordBatch], handle: IO[str]) -> int:
    import csv

    rows = 0
    writer: Any = None
    for page in pages:
        if writer is None:
            writer = csv.DictWriter(handle, fieldnames=page.schema.names)
            writer.writeheader()
        for row in page.to_pylist():
            writer.writerow(
                {k: _plain(v) if isinstance(v, datetime) else v for k, v in row.items()}
            )
            rows += 1
    return rows


def _plain(value: Any) -> Any:
    """A time stamp as ISO text (JSON has no time type)."""
    return value.isoformat() if isinstance(value, datetime) else str(value)
