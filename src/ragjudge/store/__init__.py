"""The SQLite store of runs: runs, samples, outputs, scores, judge calls and run events,
written as results arrive and read back page by page (:class:`Store`), the batched result
writer, the run lock, and pandas frames of stored scores.

It may import :mod:`ragjudge.schema`, :mod:`ragjudge.errors`, ``ragjudge._util`` and the
judge-call record type of :mod:`ragjudge.models`.
"""

from __future__ import annotations

from ragjudge.store._batch import BATCH_ROWS, BATCH_SECONDS, ResultWriter
from ragjudge.store._file import StoreError, open_store_file
from ragjudge.store._frames import sample_frame, score_frame
from ragjudge.store._lock import RunBusy, run_lock
from ragjudge.store._store import (
    RunInfo,
    RunNotFound,
    Store,
    new_run_id,
    output_row,
    score_rows,
)

__all__ = [
    "BATCH_ROWS",
    "BATCH_SECONDS",
    "ResultWriter",
    "RunBusy",
    "RunInfo",
    "RunNotFound",
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
