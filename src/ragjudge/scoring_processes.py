"""Scoring CPU-only samples in worker processes.

A sample whose output is at hand and whose pending metrics are all
:attr:`~ragjudge.metrics.Metric.inline` (CPU work that never waits, such as the lexical
metrics) needs no event loop. When a run holds at least :data:`MIN_SAMPLES` such
samples and may use more than one process (``processes`` in the config; ``auto``: the
CPUs this process may run on), the executor hands them out in blocks of
:data:`BLOCK_SAMPLES` to worker processes forked from this one. The workers score
with the very same metric objects and return the rows to store; this process writes
them in the order of the samples, so the store ends up holding what a one-process run
stores. Work that waits (targets, judges) stays in this process's event loop.

Forking copies the metrics, their options and the samples without pickling them; a
worker only computes (no store, no event loop, no output), so the parent's connections
are never used in it. The workers fork before anything of the run starts a thread (the
progress display); a process that already runs other threads, or has no ``fork``
(Windows), scores the samples itself. Ctrl-C reaches the parent alone: workers ignore it
and are stopped with the pool.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ragjudge.schema import Output, Sample, Score
from ragjudge.store import ScoreRow, score_rows

__all__ = [
    "BLOCK_SAMPLES",
    "MIN_SAMPLES",
    "Block",
    "ScoredBlock",
    "blocks_of",
    "fork_is_safe",
    "scoring_pool",
    "worker_count",
]

MIN_SAMPLES = 2000
"""Fewer CPU-only samples than this are scored in this process: starting workers
would cost more than it saves."""
BLOCK_SAMPLES = 250
"""Samples per block handed to a worker (small enough to keep both busy to the end
and the progress display moving; large enough that sending a block is cheap)."""

Pending = Sequence[tuple[int, Any]]
"""The (trial, metric) pairs of a sample left to score."""
Block = list[tuple[Sample, Output, Pending]]
"""Samples handed to a worker at once, each with its output and pending metrics."""
ScoredBlock = list[tuple[str, int, list[ScoreRow]]]
"""A block's result: per sample and trial, (request id, trial, the rows to store)."""
ScoreSample = Callable[[Sample, Output, Pending], list[tuple[int, list[Score]]]]
"""Scores one sample's pending metrics now: per trial, (trial, scores)."""


@dataclass
class _Work:
    run_id: str
    score: ScoreSample
    blocks: list[Block]


_WORK: _Work | None = None
"""What the workers read: set before the pool forks them (never sent through a pipe)."""


def worker_count(processes: int, samples: int) -> int:
    """How many worker processes score ``samples`` CPU-only samples when the run may
    use ``processes`` processes; 0 means this process scores them itself (also when
    forking is not safe here: see :func:`fork_is_safe`)."""
    if processes < 2 or samples < MIN_SAMPLES or not fork_is_safe():
        return 0
    return min(processes, -(-samples // BLOCK_SAMPLES))


def fork_is_safe() -> bool:
    """Whether worker processes may be forked from this one: ``fork`` exists and no
    other thread runs (a lock another thread held at the fork would stay locked in the
    worker for ever — a notebook running the evaluation in a thread, say)."""
    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def blocks_of(work: Sequence[tuple[Sample, Output, Pending]]) -> list[Block]:
    """``work`` cut into blocks of :data:`BLOCK_SAMPLES`."""
    return [list(work[i : i + BLOCK_SAMPLES]) for i in range(0, len(work), BLOCK_SAMPLES)]


@contextmanager
def scoring_pool(
    run_id: str, score: ScoreSample, blocks: list[Block], workers: int
) -> Iterator[list[Future[ScoredBlock]]]:
    """Fork ``workers`` processes and give them every block; yields the blocks'
    futures in block order. Leaving the block stops the workers (on an error or an
    interruption at once, pending blocks cancelled)."""
    global _WORK
    if not blocks:
        yield []
        return
    _WORK = _Work(run_id, score, blocks)
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_ignore_interrupts,
    )
    try:
        yield [pool.submit(_score_block, index) for index in range(len(blocks))]
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    else:
        pool.shutdown(wait=True)  # idle by now: the workers exit at once
    finally:
        _WORK = None


def _ignore_interrupts() -> None:
    """Ctrl-C is the parent's to handle: it stops the pool."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _score_block(index: int) -> ScoredBlock:
    """In a worker: score block ``index`` of the forked work."""
    work = _WORK
    if work is None:  # pragma: no cover - only when not forked from scoring_pool
        raise RuntimeError("a scoring worker started without its work")
    return [
        (sample.request_id, trial, score_rows(work.run_id, sample.request_id, trial, scores))
        for sample, output, pending in work.blocks[index]
        for trial, scores in work.score(sample, output, pending)
    ]
