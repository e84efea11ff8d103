"""Scoring CPU-only samples in worker processes.

A sample whose output is at hand (stored, or read from the row) and whose pending
metrics are all :attr:`~ragjudge.metrics.Metric.inline` (CPU work that never waits,
such as the lexical metrics) needs no event loop. When a run holds at least
:data:`MIN_SAMPLES` such samples and may use more than one process (``processes`` in
the config; ``auto``: the CPUs this process may run on), the executor hands them out in
blocks of :data:`BLOCK_SAMPLES` to worker processes forked from this one. The workers
score with the very same target and metric objects and return the rows to store (the
output's too, when it was not stored yet); this process writes them in the order of
the samples, so the store ends up holding what a one-process run stores. Work that
waits (targets, judges) stays in this process's event loop.

Forking copies the target, the metrics and the samples without pickling them; a
worker only computes (no store, no event loop, no terminal), so the parent's
connections are never used in it. The workers fork before anything of the run starts
a thread (the progress display); a process that already runs other threads, or has no
``fork`` (Windows), scores the samples itself. Ctrl-C (and SIGTERM, SIGHUP) reach the
parent alone: workers ignore them and are stopped with the pool.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from ragjudge._util.parallel import fork_is_safe, free_cpus
from ragjudge.run._stopping import STOP_SIGNALS

__all__ = [
    "BLOCK_SAMPLES",
    "MIN_SAMPLES",
    "Processes",
    "blocks_of",
    "scoring_pool",
    "standing_pool",
    "worker_count",
]

T = TypeVar("T")
R = TypeVar("R")

Processes = int | Literal["auto"]
"""The processes a run may score CPU-only samples in: a number, or ``auto`` (the CPUs
other programs leave free, measured only when there is such work to share)."""

MIN_SAMPLES = 2000
"""Fewer CPU-only samples than this are scored in this process: starting workers
would cost more than it saves."""
BLOCK_SAMPLES = 250
"""Samples per block handed to a worker (small enough to keep both busy to the end
and the progress display moving; large enough that sending a block is cheap)."""


@dataclass
class _Work:
    score: Callable[[Any], Any]
    blocks: Sequence[Sequence[Any]]


_WORK: _Work | None = None
"""What the workers read: set before the pool forks them (never sent through a pipe)."""


def worker_count(
    processes: Processes, samples: int, busy: Callable[[], float | None] | None = None
) -> int:
    """How many worker processes score ``samples`` CPU-only samples when the run may
    use ``processes`` processes; 0 means this process scores them itself (also when
    forking is not safe here: see :func:`ragjudge._util.parallel.fork_is_safe`). The
    free CPUs of ``auto`` (other programs' load: ``busy``, see
    :func:`~ragjudge._util.parallel.free_cpus`) are measured only when there are
    enough samples."""
    if processes == 1 or samples < MIN_SAMPLES or not fork_is_safe():
        return 0
    usable = free_cpus(busy) if processes == "auto" else processes
    return 0 if usable < 2 else min(usable, -(-samples // BLOCK_SAMPLES))


def blocks_of(items: Sequence[T]) -> list[list[T]]:
    """``items`` cut into blocks of :data:`BLOCK_SAMPLES`."""
    return [list(items[i : i + BLOCK_SAMPLES]) for i in range(0, len(items), BLOCK_SAMPLES)]


@contextmanager
def scoring_pool(
    score: Callable[[T], R], blocks: Sequence[Sequence[T]], workers: int
) -> Iterator[list[Future[list[R]]]]:
    """Fork ``workers`` processes that apply ``score`` to every item of every block;
    yields the blocks' futures (each the list of its items' results), in block order
    (none without blocks). ``score`` and the blocks reach the workers by the fork,
    the results come back pickled. Leaving the block stops the workers (on an error or
    an interruption at once, pending blocks cancelled)."""
    global _WORK
    if not blocks:
        yield []
        return
    _WORK = _Work(score, blocks)
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


@contextmanager
def standing_pool(
    score: Callable[[T], R], workers: int
) -> Iterator[Callable[[Sequence[T]], Future[list[R]]]]:
    """Fork ``workers`` processes that stay for the block and apply ``score`` to every
    item of each block sent to them; yields the function that sends a block (its
    items pickled) and gives its future. For work that is read a page at a time after
    the fork: ``score`` (the target, the metrics) reaches the workers by the fork, the
    items and results go through pipes. Leaving the block stops the workers as
    :func:`scoring_pool` does."""
    global _WORK
    _WORK = _Work(score, [])
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_ignore_interrupts,
    )
    try:
        for _ in range(workers):  # fork them now, before the caller starts threads
            pool.submit(_score_items, []).result()

        def send(items: Sequence[T]) -> Future[list[R]]:
            return pool.submit(_score_items, items)

        yield send
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    else:
        pool.shutdown(wait=True)
    finally:
        _WORK = None


def _score_items(items: Sequence[Any]) -> list[Any]:
    """In a standing worker: score the items sent."""
    work = _WORK
    if work is None:  # pragma: no cover - only when not forked from standing_pool
        raise RuntimeError("a scoring worker started without its work")
    return [work.score(item) for item in items]


def _ignore_interrupts() -> None:
    """Ctrl-C, SIGTERM and SIGHUP sent to the process group are the parent's to handle:
    it stops the pool."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)


def _score_block(index: int) -> list[Any]:
    """In a worker: score block ``index`` of the forked work."""
    work = _WORK
    if work is None:  # pragma: no cover - only when not forked from scoring_pool
        raise RuntimeError("a scoring worker started without its work")
    return [work.score(item) for item in work.blocks[index]]
