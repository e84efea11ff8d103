"""Appending a run's results to a table that warehouses read directly (the
``results_table`` setting): every batch the result writer commits to the store
(:mod:`ragjudge.store._batch`) is appended as well, so local and Ray runs alike.

Layout of ``PATH`` (see docs/results.md): ``scores/`` and ``outputs/`` (the columns of
:mod:`ragjudge.store._table_rows`), each partitioned Hive-style by ``run_id`` then the
``partition_by`` metadata keys: ``PATH/scores/run_id=RUN/date=2026-05-01/part-….parquet``,
or a Delta table partitioned the same way. ``PATH/_ragjudge_table.json`` records the
format and partition keys (readers skip names starting with ``_`` or ``.``).

The store stays the record: rows are appended after the store committed them. A Parquet
file is written under a hidden name and renamed, so no reader sees half a file. When a
run's execution ends (finished, stopped or failed) the table's row count for the run is
checked against the store's; when they differ (a process killed between the store's
commit and the file, or results computed again by ``--retry-errors``) the run's rows are
written again from the store, a page at a time, replacing the run's partition, so the
table holds each result once.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal
from urllib.parse import quote

from ragjudge._util.extras import require_extra
from ragjudge.errors import ConfigError
from ragjudge.schema import ScoreMeaning
from ragjudge.store._rows import OutputRow, ScoreRow
from ragjudge.store._table_rows import PARTITION_FIRST, output_batch, score_batch

if TYPE_CHECKING:
    import pyarrow as pa

    from ragjudge.store._store import Store

__all__ = ["MANIFEST", "TableFormat", "TableSink", "check_table_format", "partition_dir"]

TableFormat = Literal["parquet", "delta"]
MANIFEST = "_ragjudge_table.json"
"""The file beside the tables recording their format and partition keys."""
LAYOUT = 1
"""The version of the table layout written into the manifest."""
TABLES = ("scores", "outputs")
REWRITE_PAGE_ROWS = 50_000
"""Stored rows per page when a run's rows are written again from the store."""
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"
"""The folder name of a missing partition value, as Hive, Spark and pyarrow read it."""


def check_table_format(fmt: TableFormat) -> None:
    """:class:`~ragjudge.errors.MissingExtra` naming the pip command when ``fmt`` needs
    a package that is not installed (Delta needs ``deltalake``)."""
    if fmt == "delta":
        require_extra("delta", "results_table with format: delta")


def partition_dir(run_id: str, keys: Sequence[str], values: Sequence[str | None]) -> Path:
    """``run_id=RUN/KEY=VALUE/…``: values percent-encoded, as Hive readers decode them."""
    parts = [f"{PARTITION_FIRST}={quote(run_id, safe='')}"]
    parts += [
        f"{key}={HIVE_NULL if value is None else quote(value, safe='')}"
        for key, value in zip(keys, values, strict=True)
    ]
    return Path(*parts)


class TableSink:
    """Appends one run's committed results to the results table at ``root``."""

    def __init__(
        self,
        store: Store,
        run_id: str,
        root: Path,
        fmt: TableFormat = "parquet",
        partition_by: Sequence[str] = (),
        judge_models: Mapping[str | None, str] | None = None,
    ) -> None:
        check_table_format(fmt)
        self.store = store
        self.run_id = run_id
        self.root = root
        self.format = fmt
        self.keys = list(partition_by)
        self.judge_models = dict(judge_models or {})
        run = store.run(run_id)
        self.run_name = run.name
        self.meanings: dict[str, ScoreMeaning] = dict(run.meanings or {})
        self.files = 0
        """Files (Parquet) or commits (Delta) written so far."""
        self._claim_root()

    @property
    def partition_columns(self) -> list[str]:
        """``run_id`` then the ``partition_by`` keys."""
        return [PARTITION_FIRST, *self.keys]

    def append(self, outputs: Sequence[OutputRow], scores: Sequence[ScoreRow]) -> None:
        """Append rows the store has just committed."""
        if scores:
            partitions = self._partitions([row[1] for row in scores])
            batch = score_batch(scores, self.run_name, self.meanings, self.judge_models, partitions)
            self._write("scores", batch)
        if outputs:
            partitions = self._partitions([row[1] for row in outputs])
            self._write("outputs", output_batch(outputs, self.run_name, partitions))

    def reconcile(self) -> bool:
        """Write the run's rows again from the store when the table's count differs
        from the store's; whether it did."""
        stored = dict(zip(TABLES, self.store.stored_result_counts(self.run_id), strict=True))
        if all(self.table_rows(name) == stored[name] for name in TABLES):
            return False
        for name in TABLES:
            self._rewrite(name)
        return True

    def table_rows(self, name: str) -> int:
        """Rows of the run in the table ``name`` (``scores`` or ``outputs``)."""
        import pyarrow.dataset as ds

        if self.format == "delta":
            table = self.root / name
            if not (table / "_delta_log").is_dir():
                return 0
            from deltalake import DeltaTable

            dataset = DeltaTable(str(table)).to_pyarrow_dataset()
            return int(dataset.count_rows(filter=ds.field(PARTITION_FIRST) == self.run_id))
        folder = self._run_folder(name)
        if not folder.is_dir():
            return 0
        return int(ds.dataset(folder, format="parquet", partitioning=None).count_rows())

    # writing ---------------------------------------------------------------

    def _partitions(self, request_ids: Sequence[str]) -> dict[str, list[str | None]]:
        columns: dict[str, list[str | None]] = {PARTITION_FIRST: [self.run_id] * len(request_ids)}
        if self.keys:
            found = self.store.metadata_values(self.run_id, request_ids, self.keys)
            missing = (None,) * len(self.keys)
            values = [found.get(rid, missing) for rid in request_ids]
            for at, key in enumerate(self.keys):
                columns[key] = [row[at] for row in values]
        return columns

    def _write(self, name: str, batch: pa.RecordBatch) -> None:
        if self.format == "delta":
            self._append_delta(name, batch)
        else:
            self._write_parquet(batch, self.root / name)
        self.files += 1

    def _append_delta(self, name: str, batch: pa.RecordBatch) -> None:
        import pyarrow as pa
        from deltalake import write_deltalake

        write_deltalake(
            str(self.root / name),
            pa.Table.from_batches([batch]),
            mode="append",
            partition_by=self.partition_columns,
        )

    def _write_parquet(self, batch: pa.RecordBatch, base: Path) -> None:
        """One file per partition of ``batch`` under ``base``, each written under a
        hidden name and renamed into place."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        columns = self.partition_columns
        data = batch.drop_columns(columns)
        for values, rows in _groups(batch, columns[1:]):
            folder = base / partition_dir(self.run_id, self.keys, values)
            folder.mkdir(parents=True, exist_ok=True)
            name = f"part-{time.time_ns():020d}-{secrets.token_hex(4)}.parquet"
            hidden = folder / f".{name}.tmp"
            part = data if rows is None else data.take(pa.array(rows, type=pa.int64()))
            pq.write_table(pa.Table.from_batches([part]), hidden, compression="zstd")
            os.replace(hidden, folder / name)

    def _rewrite(self, name: str) -> None:
        """Replace the run's rows of table ``name`` with the store's, a page at a time."""
        if self.format == "delta":
            self._delete_delta_run(name)
            for batch in self._stored_batches(name):
                self._append_delta(name, batch)
            return
        folder = self._run_folder(name)
        staging = folder.parent / f"_rewrite-{folder.name}-{secrets.token_hex(4)}"
        for batch in self._stored_batches(name):
            self._write_parquet(batch, staging)
        old = folder.parent / f"_replaced-{folder.name}-{secrets.token_hex(4)}"
        if folder.exists():
            folder.rename(old)
        if (staging / folder.name).exists():
            (staging / folder.name).rename(folder)
        shutil.rmtree(staging, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)

    def _delete_delta_run(self, name: str) -> None:
        table = self.root / name
        if not (table / "_delta_log").is_dir():
            return
        from deltalake import DeltaTable

        quoted = self.run_id.replace("'", "''")
        DeltaTable(str(table)).delete(f"{PARTITION_FIRST} = '{quoted}'")

    def _stored_batches(self, name: str) -> Iterator[pa.RecordBatch]:
        if name == "scores":
            for rows in self.store.score_row_pages(self.run_id, REWRITE_PAGE_ROWS):
                partitions = self._partitions([row[1] for row in rows])
                yield score_batch(rows, self.run_name, self.meanings, self.judge_models, partitions)
        else:
            for outputs in self.store.output_row_pages(self.run_id, REWRITE_PAGE_ROWS):
                partitions = self._partitions([row[1] for row in outputs])
                yield output_batch(outputs, self.run_name, partitions)

    def _run_folder(self, name: str) -> Path:
        return self.root / name / f"{PARTITION_FIRST}={quote(self.run_id, safe='')}"

    def _claim_root(self) -> None:
        """Write the manifest of a new table; refuse a table of another format or
        other partition keys (its readers expect one layout)."""
        manifest = self.root / MANIFEST
        wanted = {"layout": LAYOUT, "format": self.format, "partition_by": self.keys}
        if manifest.is_file():
            found = json.loads(manifest.read_text(encoding="utf-8"))
            if {k: found.get(k) for k in wanted} != wanted:
                raise ConfigError(
                    f"results_table: {self.root} holds a {found.get('format')} table "
                    f"partitioned by {found.get('partition_by')}; this config asks for "
                    f"{self.format} partitioned by {self.keys}: give another path"
                )
            return
        self.root.mkdir(parents=True, exist_ok=True)
        hidden = self.root / f".{MANIFEST}.tmp"
        hidden.write_text(json.dumps(wanted), encoding="utf-8")
        os.replace(hidden, manifest)


def _groups(
    batch: pa.RecordBatch, keys: Sequence[str]
) -> Iterator[tuple[tuple[str | None, ...], list[int] | None]]:
    """Each partition's values (beyond ``run_id``) with its row indices (None: all)."""
    if not keys:
        yield (), None
        return
    rows: dict[tuple[str | None, ...], list[int]] = {}
    for at, values in enumerate(zip(*(batch.column(k).to_pylist() for k in keys), strict=True)):
        rows.setdefault(values, []).append(at)
    if len(rows) == 1:
        yield next(iter(rows)), None
        return
    yield from rows.items()
