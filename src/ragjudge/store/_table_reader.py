"""Reading a run's score rows a page at a time, as Arrow record batches of the results
table's layout (:mod:`ragjudge.store._table_rows`), from either the results table
(:mod:`ragjudge.store._table_sink`) or the store: what ``show --table`` and
``export --table`` read, with memory bounded by the page, not the run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from ragjudge.errors import StoreError
from ragjudge.store._table_rows import PARTITION_FIRST, SCORE_COLUMNS, score_batch
from ragjudge.store._table_sink import MANIFEST, TableFormat, check_table_format

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.dataset as ds

    from ragjudge.store._store import Store

__all__ = ["PAGE_ROWS", "VALUE_COLUMNS", "ResultsTable", "store_score_pages"]

PAGE_ROWS = 50_000
"""Score rows per page: a few MB of Arrow columns."""
VALUE_COLUMNS = ("request_id", "score", "value", "error", "skipped")
"""The score columns a paired comparison reads."""


def store_score_pages(
    store: Store, run_id: str, page_rows: int = PAGE_ROWS
) -> Iterator[pa.RecordBatch]:
    """The stored run's score rows as pages of the table's ``scores`` columns (without
    partition columns), in stored order."""
    run = store.run(run_id)
    meanings = dict(run.meanings or {})
    models = _judge_models(run.config)
    for rows in store.score_row_pages(run.run_id, page_rows):
        yield score_batch(rows, run.name, meanings, models)


def _judge_models(config: dict[str, Any]) -> dict[str | None, str]:
    """The judge model of each named judge (None: the one judge) in a stored config."""
    models: dict[str | None, str] = {}
    judge = config.get("judge")
    if isinstance(judge, dict) and judge.get("model"):
        models[None] = str(judge["model"])
    for name, named in (config.get("judges") or {}).items():
        if isinstance(named, dict) and named.get("model"):
            models[name] = str(named["model"])
    return models


@dataclass(frozen=True)
class ResultsTable:
    """A results table folder, read run by run."""

    root: Path
    format: TableFormat
    partition_by: tuple[str, ...]

    @classmethod
    def open(cls, root: Path) -> ResultsTable:
        """The table at ``root``; :class:`~ragjudge.errors.StoreError` naming the folder
        when it holds none (no ``_ragjudge_table.json``)."""
        manifest = root / MANIFEST
        if not manifest.is_file():
            raise StoreError(
                f"{root} is not a results table: it has no {MANIFEST} "
                "(a run with the results_table setting writes one)"
            )
        try:
            found = json.loads(manifest.read_text(encoding="utf-8"))
            fmt, keys = found["format"], tuple(found["partition_by"])
        except (ValueError, KeyError, TypeError) as exc:
            raise StoreError(f"{manifest}: not a results table manifest ({exc})") from None
        check_table_format(fmt)
        return cls(root, fmt, keys)

    def run_ids(self) -> list[str]:
        """The runs with scores in the table, oldest first (run ids sort by time)."""
        if self.format == "delta":
            import pyarrow.compute as pc

            table = self._dataset("scores").to_table(columns=[PARTITION_FIRST])
            return sorted(str(v) for v in pc.unique(table.column(PARTITION_FIRST)).to_pylist())
        folder = self.root / "scores"
        prefix = f"{PARTITION_FIRST}="
        if not folder.is_dir():
            return []
        return sorted(
            unquote(p.name[len(prefix) :])
            for p in folder.iterdir()
            if p.is_dir() and p.name.startswith(prefix)
        )

    def run_id(self, reference: str) -> str:
        """The run a reference names: its id, a unique start or end of it, or ``latest``."""
        ids = self.run_ids()
        if reference == "latest" and ids:
            return ids[-1]
        if reference in ids:
            return reference
        matches = [i for i in ids if i.startswith(reference) or i.endswith(reference)]
        if len(matches) == 1:
            return matches[0]
        found = f"runs matching it: {', '.join(matches)}" if matches else "no run matches it"
        raise StoreError(f"run {reference!r} in the results table {self.root}: {found}")

    def score_pages(self, run_id: str, page_rows: int = PAGE_ROWS) -> Iterator[pa.RecordBatch]:
        """The run's score rows (the table's ``scores`` columns, without partition
        columns), ``page_rows`` at most per page."""
        yield from self._pages("scores", run_id, list(SCORE_COLUMNS), page_rows)

    def score_value_pages(
        self, run_id: str, page_rows: int = PAGE_ROWS
    ) -> Iterator[pa.RecordBatch]:
        """The run's score rows with only ``request_id``, ``score``, ``value``,
        ``error`` and ``skipped``: what a paired comparison reads."""
        yield from self._pages("scores", run_id, list(VALUE_COLUMNS), page_rows)

    def _pages(
        self, name: str, run_id: str, columns: list[str], page_rows: int
    ) -> Iterator[pa.RecordBatch]:
        import pyarrow.dataset as ds

        if self.format == "delta":
            dataset = self._dataset(name)
            where = ds.field(PARTITION_FIRST) == run_id
        else:
            folder = self.root / name / f"{PARTITION_FIRST}={run_id}"
            if not folder.is_dir():
                return
            dataset = self._run_dataset(folder)
            where = None
        for batch in dataset.to_batches(
            columns=columns,
            filter=where,
            batch_size=page_rows,
            batch_readahead=1,
            fragment_readahead=1,
        ):
            if batch.num_rows:
                yield batch

    def _run_dataset(self, folder: Path) -> ds.Dataset:
        """One run's Parquet files, its further partition keys read as text."""
        import pyarrow as pa
        import pyarrow.dataset as ds

        keys = pa.schema([(key, pa.string()) for key in self.partition_by])
        partitioning = ds.partitioning(keys, flavor="hive") if self.partition_by else None
        return ds.dataset(folder, format="parquet", partitioning=partitioning)

    def _dataset(self, name: str) -> ds.Dataset:
        from deltalake import DeltaTable

        path = self.root / name
        if not (path / "_delta_log").is_dir():
            raise StoreError(f"{path} is not a Delta table (no _delta_log)")
        return DeltaTable(str(path)).to_pyarrow_dataset()
