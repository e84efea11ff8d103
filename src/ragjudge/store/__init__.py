"""The SQLite store of runs: runs, samples, outputs, scores, judge calls and run events,
written as results arrive and read back page by page (:class:`Store`), the batched result
writer, the run lock, and pandas frames of stored scores.

It may import :mod:`ragjudge.schema`, :mod:`ragjudge.errors`, ``ragjudge._util`` and the
judge-call record type of :mod:`ragjudge.models`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragjudge._util.lazy import lazy_names

# Imported on first use: listing runs needs neither the result writer (asyncio) nor
# the run lock.
_EXPORTS = {
    "BATCH_ROWS": "ragjudge.store._batch",
    "BATCH_SECONDS": "ragjudge.store._batch",
    "ResultWriter": "ragjudge.store._batch",
    "StoreError": "ragjudge.store._file",
    "open_store_file": "ragjudge.store._file",
    "sample_frame": "ragjudge.store._frames",
    "score_frame": "ragjudge.store._frames",
    "RunBusy": "ragjudge.store._lock",
    "run_lock": "ragjudge.store._lock",
    "ResultCount": "ragjudge.store._tallies",
    "Label": "ragjudge.store._labels",
    "LabelDrawn": "ragjudge.store._labels",
    "LabelKind": "ragjudge.store._labels",
    "StoredCandidate": "ragjudge.store._generated",
    "LATEST": "ragjudge.store._store",
    "RunInfo": "ragjudge.store._store",
    "RunStatus": "ragjudge.store._store",
    "RunNotFound": "ragjudge.store._store",
    "Store": "ragjudge.store._store",
    "new_run_id": "ragjudge.store._store",
    "output_row": "ragjudge.store._store",
    "score_rows": "ragjudge.store._store",
}

if TYPE_CHECKING:
    from ragjudge.store._batch import BATCH_ROWS, BATCH_SECONDS, ResultWriter
    from ragjudge.store._file import StoreError, open_store_file
    from ragjudge.store._frames import sample_frame, score_frame
    from ragjudge.store._generated import StoredCandidate
    from ragjudge.store._labels import Label, LabelDrawn, LabelKind
    from ragjudge.store._lock import RunBusy, run_lock
    from ragjudge.store._store import (
        LATEST,
        RunInfo,
        RunNotFound,
        RunStatus,
        Store,
        new_run_id,
        output_row,
        score_rows,
    )
    from ragjudge.store._tallies import ResultCount

__all__ = [
    "BATCH_ROWS",
    "BATCH_SECONDS",
    "LATEST",
    "Label",
    "LabelDrawn",
    "LabelKind",
    "ResultCount",
    "ResultWriter",
    "RunBusy",
    "RunInfo",
    "RunNotFound",
    "RunStatus",
    "Store",
    "StoreError",
    "StoredCandidate",
    "new_run_id",
    "open_store_file",
    "output_row",
    "run_lock",
    "sample_frame",
    "score_frame",
    "score_rows",
]

__getattr__ = lazy_names(__name__, _EXPORTS, globals())
