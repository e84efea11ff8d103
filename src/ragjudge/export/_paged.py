"""Writing an export a page of samples at a time, so that its memory does not grow
with the run: the per-sample (wide) and per-score (long) layouts are built from one
page of stored results after another (:meth:`~ragjudge.store._store.Store.result_pages`)
and appended to the file — JSON Lines and CSV as text, Parquet through one
``ParquetWriter``. The file holds the same rows and values as the whole-run frame
(:func:`~ragjudge.export._files.export_frame`) written at once.

A first pass over the pages finds the columns (a column some pages lack is empty in
them, as in the whole-run frame) and, for Parquet, each column's type; the second
pass writes. A JSON array (``json``) is written whole."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from ragjudge.analysis._meanings import exclusions, run_meanings
from ragjudge.errors import ExportError
from ragjudge.export._files import (
    STDOUT,
    calls_per_row,
    long_rows_frame,
    masked_frame,
    writable_path_problem,
    write_export,
    write_text,
)
from ragjudge.store._frames import sample_frame
from ragjudge.store._pages import PAGE_SAMPLES
from ragjudge.store._store import Store

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = ["Pages", "long_pages", "wide_pages", "write_paged_export"]

Pages = Callable[[], Iterator["pd.DataFrame"]]
"""Gives the pages of an export afresh each time it is called (it is read twice)."""
_CALLS_COLUMN = "judge_calls"


def wide_pages(
    store: Store, run_id: str, *, with_calls: bool = False, size: int = PAGE_SAMPLES
) -> Pages:
    """The per-sample layout of the run (:func:`ragjudge.export._files.export_frame`),
    ``size`` samples a page."""
    run = store.run(run_id)
    meanings = run_meanings(run)
    excluded = exclusions(meanings)

    def pages() -> Iterator[pd.DataFrame]:
        for page in store.result_pages(run.run_id, size):
            frame = sample_frame(page.samples, page.outputs, page.scores, excluded, meanings)
            if with_calls:
                ids = [i for _, _, score in page.scores for i in score.judge_call_ids]
                calls = store.judge_calls_by_id(run.run_id, ids)
                frame[_CALLS_COLUMN] = calls_per_row(calls, frame)
            yield frame

    return pages


def long_pages(store: Store, run_id: str, *, size: int = PAGE_SAMPLES) -> Pages:
    """The per-score layout of the run (:func:`ragjudge.export._files.long_frame`),
    the scores of ``size`` samples a page."""
    run = store.run(run_id)
    meanings = run_meanings(run)

    def pages() -> Iterator[pd.DataFrame]:
        for page in store.result_pages(run.run_id, size):
            yield long_rows_frame(meanings, page.scores)

    return pages


def write_paged_export(pages: Pages, output: str, fmt: str, stdout: IO[str] | None = None) -> int:
    """Write the pages to the file ``output`` (its folder created) or, for ``-``, to
    standard output, with known secrets masked; returns the rows written.
    :class:`ExportError` naming the file when it cannot be written."""
    import pandas as pd

    if fmt == "json":
        frames = list(pages())
        layout = _layout(iter(frames), with_types=False)
        whole = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
        write_export(layout.shaped(whole), output, fmt, stdout)
        return len(whole)
    layout = _layout(pages(), with_types=fmt == "parquet")
    if output == STDOUT:
        return _write_text_pages(pages(), layout, stdout or sys.stdout, fmt)
    path = Path(output)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if fmt == "parquet":
            return _write_parquet_pages(pages(), layout, path)
        with path.open("w", encoding="utf-8", newline="") as handle:
            return _write_text_pages(pages(), layout, handle, fmt)
    except OSError as exc:
        raise ExportError(f"cannot write {output}: {writable_path_problem(path, exc)}") from None


@dataclass(frozen=True)
class _Layout:
    """What the first pass over the pages found."""

    columns: list[str]
    """All pages' columns in the order they first appear (the calls column last, as
    the whole-run frame adds it)."""
    fractional: frozenset[str]
    """Columns of whole numbers in some page that the whole-run frame holds as
    fractions (4.0): a page lacks a value or has fractions there."""
    schema: pa.Schema
    """The Parquet types of the columns (empty unless asked for)."""

    def shaped(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` with every column, in order and of the whole-run frame's type,
        and the known secrets masked."""
        page = masked_frame(frame).reindex(columns=self.columns)
        for column in self.fractional & set(frame.columns):
            page[column] = page[column].astype("float64")
        return page


def _layout(pages: Iterator[pd.DataFrame], *, with_types: bool) -> _Layout:
    """The layout of all pages; with ``with_types`` their Parquet types too: a column
    of whole numbers in one page and fractions in another is fractions, one empty in
    a page takes the other pages' type."""
    import pyarrow as pa

    seen: dict[str, None] = {}
    whole: set[str] = set()
    gaps: set[str] = set()
    schemas = []
    for number, frame in enumerate(pages):
        present = {str(c) for c in frame.columns}
        gaps.update(present - seen.keys() if number else ())
        gaps.update(seen.keys() - present)
        seen.update(dict.fromkeys(str(c) for c in frame.columns))
        whole.update(str(c) for c, dtype in frame.dtypes.items() if dtype.kind in "iu")
        gaps.update(str(c) for c, dtype in frame.dtypes.items() if dtype.kind == "f")
        if with_types:
            schemas.append(pa.Schema.from_pandas(frame, preserve_index=False))
    calls = [_CALLS_COLUMN] if _CALLS_COLUMN in seen else []
    columns = [c for c in seen if c != _CALLS_COLUMN] + calls
    fractional = frozenset(whole & gaps)
    if not with_types or not schemas:
        return _Layout(columns, fractional, pa.schema([]))
    merged = pa.unify_schemas(schemas, promote_options="permissive")
    fields = [
        merged.field(c).with_type(pa.float64()) if c in fractional else merged.field(c)
        for c in columns
    ]
    return _Layout(columns, fractional, pa.schema(fields))


def _write_text_pages(
    pages: Iterator[pd.DataFrame], layout: _Layout, handle: IO[str], fmt: str
) -> int:
    """Append each page to ``handle`` as JSON Lines or CSV (one header); the rows."""
    written = 0
    for frame in pages:
        page = layout.shaped(frame)
        if fmt == "csv":
            page.to_csv(handle, index=False, header=written == 0)
        else:
            write_text(page, handle, fmt)
        written += len(page)
    if written == 0 and fmt == "csv":
        import pandas as pd

        write_text(pd.DataFrame(), handle, fmt)
    return written


def _write_parquet_pages(pages: Iterator[pd.DataFrame], layout: _Layout, path: Path) -> int:
    """Write each page to one Parquet file of ``schema``; the rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    written = 0
    with pq.ParquetWriter(path, layout.schema) as writer:
        for frame in pages:
            page = layout.shaped(frame)
            writer.write_table(
                pa.Table.from_pandas(page, schema=layout.schema, preserve_index=False)
            )
            written += len(page)
    return written
