"""A pure function run over consecutive batches of a large input in worker processes.

Chunking documents and tokenising chunks are pure and CPU-bound, so a large corpus
is cut into consecutive batches handled by a pool of processes, and the results come
back in input order: the same values as one process computes, in less wall time on a
machine with several cores. Small inputs stay in the calling process, where
starting the pool would cost more than it saves.

Workers are forked when the calling process runs a single thread (cheap, and safe
without other threads holding locks); otherwise they come from a fork server (a clean
single-threaded process), or are spawned where neither exists.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

__all__ = [
    "AUTOMATIC_MIN_CHARACTERS",
    "BusyWatch",
    "busy_cpus",
    "fork_is_safe",
    "free_cpus",
    "map_batches",
    "usable_cpus",
    "worker_count",
]

T = TypeVar("T")
R = TypeVar("R")

AUTOMATIC_MIN_CHARACTERS = 4_000_000
"""With ``workers=None``, inputs of at least this many characters use every usable
CPU; smaller ones stay in the calling process."""

_BATCHES_PER_WORKER = 4
"""Batches per worker, so that a worker done early takes another one."""


def usable_cpus() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def free_cpus(busy: Callable[[], float | None] | None = None) -> int:
    """The usable CPUs other programs leave free: :func:`usable_cpus` less the CPUs busy
    right now (``busy``, by default :func:`busy_cpus`), at least 1. On two cores already
    busy with other work, scoring processes took half as long again as one process:
    each only gets its share of a busy machine, and pays for starting and for sending
    its results back."""
    measured = (busy or busy_cpus)()
    taken = 0 if measured is None else round(measured)
    return max(1, usable_cpus() - taken)


def busy_cpus(interval: float = 0.1) -> float | None:
    """How many CPUs other programs kept busy over the next ``interval`` seconds (while
    this process waits), from ``/proc/stat``; None where it cannot be read. The load
    average is not used: it trails by a minute, so it counts this program's own work
    just finished."""
    return BusyWatch(interval)()


class BusyWatch:
    """:func:`busy_cpus` measured from the watch's start instead of over a wait: how many
    CPUs other programs kept busy since, that is every CPU's busy time less this
    process's own CPU time, over at least ``least`` seconds (asked sooner, it waits for
    the rest). Started when a run begins, it measures while the run reads its set, so
    the run does not sleep a tenth of a second before it scores. ``clock``, ``ticks``
    and ``own`` read the time, ``/proc/stat`` (:func:`_cpu_times`) and this process's CPU
    seconds; tests give their own."""

    def __init__(
        self,
        least: float = 0.1,
        *,
        clock: Callable[[], float] = time.monotonic,
        ticks: Callable[[], tuple[int, int] | None] | None = None,
        own: Callable[[], float] = time.process_time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._least, self._clock, self._own, self._sleep = least, clock, own, sleep
        self._ticks = ticks or _cpu_times
        self._started, self._own_at_start = clock(), own()
        self._ticks_at_start = self._ticks()

    def __call__(self) -> float | None:
        """The CPUs other programs kept busy since the start; None where ``/proc/stat``
        cannot be read."""
        waited = self._clock() - self._started
        if waited < self._least:
            self._sleep(self._least - waited)
        first, second = self._ticks_at_start, self._ticks()
        if first is None or second is None:
            return None
        total, idle = second[0] - first[0], second[1] - first[1]
        seconds = self._clock() - self._started
        if total <= 0 or seconds <= 0:
            return None
        busy = (1.0 - idle / total) * (os.cpu_count() or 1)
        mine = (self._own() - self._own_at_start) / seconds
        return max(0.0, busy - mine)


def _cpu_times() -> tuple[int, int] | None:
    """All CPUs' time so far and the idle part of it, in ticks."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = stat.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu" or len(fields) < 6:
        return None
    ticks = [int(value) for value in fields[1:9]]
    return sum(ticks), ticks[3] + ticks[4]  # idle and waiting for I/O


def worker_count(workers: int | None, characters: int) -> int:
    """How many processes handle an input of ``characters`` characters: ``workers``
    when given (at least 1), else every usable CPU for a large input and 1 otherwise.

    On a shared machine the workers take turns with other programs; measured on two
    busy cores, that still took no longer than one process (the busy machine's share
    of time grows with the number of processes)."""
    if workers is not None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        return workers
    return usable_cpus() if characters >= AUTOMATIC_MIN_CHARACTERS else 1


def map_batches(function: Callable[[list[T]], R], items: Sequence[T], workers: int) -> list[R]:
    """``function`` of consecutive batches of ``items``, in order; in ``workers``
    processes when more than one (``function`` must then be a module-level function,
    and its batches and results picklable)."""
    if workers <= 1 or len(items) < 2:
        return [function(list(items))]
    batches = _batches(items, workers * _BATCHES_PER_WORKER)
    with ProcessPoolExecutor(max_workers=workers, mp_context=_context()) as pool:
        return list(pool.map(function, batches))


def _batches(items: Sequence[T], count: int) -> list[list[T]]:
    """``items`` cut into at most ``count`` consecutive batches of nearly equal size."""
    count = min(count, len(items))
    size, extra = divmod(len(items), count)
    batches = []
    start = 0
    for index in range(count):
        end = start + size + (index < extra)
        batches.append(list(items[start:end]))
        start = end
    return batches


def fork_is_safe() -> bool:
    """Whether worker processes may be forked from this one: ``fork`` exists and no
    other thread runs (a lock another thread held at the fork would stay locked in the
    worker for ever — a notebook running the evaluation in a thread, say)."""
    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def _context() -> multiprocessing.context.BaseContext:
    if fork_is_safe():
        return multiprocessing.get_context("fork")
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
