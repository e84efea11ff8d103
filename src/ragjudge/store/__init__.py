"""The SQLite store of runs: runs, samples, outputs, scores, judge calls and run events,
written as results arrive and read back page by page (:class:`Store`), the batched result
writer, the run lock, and pandas frames of stored scores.

It may import :mod:`ragjudge.schema`, :mod:`ragjudge.errors`, ``ragjudge._util`` and the
judge-call record type of :mod:`ragjudge.models`; and, only when it opens a store holding
runs an older version stored without their scores' meanings, the metric registry that
rebuilds them (once: they are written to the run records).
"""

from __future__ import annotations

from ragjudge.store._batch import BATCH_ROWS, BATCH_SECONDS, ResultWriter
from ragjudge.store._file import StoreError, open_store_file
from ragjudge.store._frames import sample_frame, score_frame
from ragjudge.store._lock import RunBusy, run_lock
from ragjudge.store._store import RunInfo, Store, new_run_id, output_row, score_rows

__all__ = [
    "BATCH_ROWS",
    "BATCH_SECONDS",
    "ResultWriter",
    "RunBusy",
    "RunInfo",
    "Store",
    "StoreError",
    "new_run_id",
    "open_store_file",
    "output_row",
    "run_lock",
    "sample_frame",
    "score_frame",
    "score_rows",
]
