"""Storing a run's results in batches.

Committing every sample's output and scores on their own costs a transaction each
(a disk sync in the write-ahead log); a run of cheap metrics spends more time there than
scoring. :class:`ResultWriter` keeps the rows of finished results and commits them
together:

* at most :data:`BATCH_SECONDS` after the first of them finished (a timer on the running
  event loop), or as soon as :data:`BATCH_ROWS` rows wait, whichever comes first;
* at once when the run ends, fails or is interrupted (the executor flushes in a
  ``finally``).

So every finished result is stored within one batch window: a process killed outright
(``kill -9``) loses at most the results of its last :data:`BATCH_SECONDS`, which a
resumed run computes again (their judge replies are usually in the response cache).
Judge calls are not batched: each is stored before its request goes out. Each committed
batch is appended to the results table too when the run has one (:attr:`ResultWriter.sink`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from typing import Protocol

from ragjudge.schema import Output, Score
from ragjudge.store._store import OutputRow, ScoreRow, Store, output_row, score_rows

__all__ = ["BATCH_ROWS", "BATCH_SECONDS", "CommittedRows", "ResultWriter"]

BATCH_SECONDS = 0.5
"""The batch window: the longest a finished result waits before it is committed."""
BATCH_ROWS = 2000
"""Rows (outputs and scores) that make a batch commit before its window ends."""


class CommittedRows(Protocol):
    """Where rows go once the store committed them (the results table's sink)."""

    def append(self, outputs: Sequence[OutputRow], scores: Sequence[ScoreRow]) -> None: ...


class ResultWriter:
    """Collects a run's outputs and scores and commits them in batches (see the module
    docstring). Used from the event loop that runs the evaluation."""

    def __init__(
        self,
        store: Store,
        run_id: str,
        *,
        seconds: float = BATCH_SECONDS,
        rows: int = BATCH_ROWS,
    ) -> None:
        self.store = store
        self.run_id = run_id
        self.seconds = seconds
        self.rows = rows
        self._outputs: list[OutputRow] = []
        self._scores: list[ScoreRow] = []
        self._timer: asyncio.TimerHandle | None = None
        self.commits = 0
        """Batches committed so far."""
        self.sink: CommittedRows | None = None
        """Where each committed batch is appended as well (the results table), if anywhere."""

    @property
    def pending(self) -> int:
        """Rows waiting to be committed."""
        return len(self._outputs) + len(self._scores)

    def output(self, request_id: str, output: Output) -> None:
        """Store (or replace) the target's output for one sample, with the next batch."""
        self._outputs.append(output_row(self.run_id, request_id, output))
        self._added()

    def scores(self, request_id: str, trial: int, scores: Iterable[Score]) -> None:
        """Store one sample's scores for one trial, with the next batch."""
        self._scores.extend(score_rows(self.run_id, request_id, trial, scores))
        self._added()

    def output_rows(self, rows: Iterable[OutputRow]) -> None:
        """Store output rows already made (:func:`~ragjudge.store._store.output_row`), with
        the next batch."""
        self._outputs.extend(rows)
        self._added()

    def score_rows(self, rows: Iterable[ScoreRow]) -> None:
        """Store score rows already made (:func:`~ragjudge.store._store.score_rows`), with the
        next batch."""
        self._scores.extend(rows)
        self._added()

    def flush(self) -> None:
        """Commit every waiting row in one transaction."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._outputs and not self._scores:
            return
        self.store.write_results(self._outputs, self._scores)  # kept when it fails
        outputs, scores = self._outputs, self._scores
        self._outputs, self._scores = [], []
        self.commits += 1
        if self.sink is not None:  # after the commit: the store is the record
            self.sink.append(outputs, scores)

    def _added(self) -> None:
        if self.pending >= self.rows:
            self.flush()
        elif self._timer is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no loop: the caller flushes
                return
            self._timer = loop.call_later(self.seconds, self.flush)
