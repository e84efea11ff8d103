"""Evaluation rows written as a folder of Parquet files, for the tests of streamed sets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq


def parquet_folder(folder: Path, rows: list[dict[str, Any]], per_file: int = 20) -> Path:
    """Create ``folder`` holding ``rows``, ``per_file`` rows in each ``part-N.parquet``."""
    folder.mkdir()
    keys = list(dict.fromkeys(k for row in rows for k in row))  # every column in every file
    rows = [{k: row.get(k) for k in keys} for row in rows]
    for number, start in enumerate(range(0, len(rows), per_file)):
        table = pa.Table.from_pylist(rows[start : start + per_file])
        pq.write_table(table, folder / f"part-{number}.parquet")
    return folder
