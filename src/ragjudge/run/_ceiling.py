"""``max_cost``: the most dollars a run may spend on judge calls.

Before the start, the run's estimate (the dry run's, without asking the target, so a
lower bound) is held against it: a run estimated above the ceiling does not start
(:func:`~ragjudge.run._estimates.check_estimate`). During the run, the recorded cost of
the run's calls is read each time one is stored, and the run stops once the next call would take it past the ceiling (the mean cost of
a call so far); the run is then kept as interrupted, with the cause in its notes, and
resumes like any interrupted run. Replies to requests already sent still arrive and
are paid for, so the final cost may pass the ceiling by those calls.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ragjudge.store._store import Store

_WATCHED: dict[str, Callable[[], None]] = {}
"""The check of each run under a ceiling in this process, by run id."""


def recorded_spend(store: Store, run_id: str) -> tuple[float, int]:
    """Dollars the run's priced calls cost so far, and how many calls were priced."""
    usage = store.judge_usage(run_id)
    spent = sum(row["cost"] or 0.0 for row in usage)
    priced = sum(row["calls"] - row["cached"] for row in usage if row["cost"] is not None)
    return spent, priced


def next_call_would_pass(spent: float, priced_calls: int, ceiling: float) -> bool:
    """Whether one more call, at the mean cost of the calls so far, passes ``ceiling``."""
    if priced_calls == 0:
        return spent > ceiling
    return spent + spent / priced_calls > ceiling


def call_recorded(run_id: str | None) -> None:
    """Tell the ceiling of run ``run_id`` (if any) that one of its calls was stored."""
    check = _WATCHED.get(run_id) if run_id is not None else None
    if check is not None:
        check()


@contextmanager
def spending_watched(store: Store, run_id: str, ceiling: float | None) -> Iterator[asyncio.Event]:
    """While the block runs, check the run's recorded cost each time a call of it is
    stored; when the next call would pass ``ceiling`` the event is set and the task
    running the block is cancelled (once)."""
    reached = asyncio.Event()
    task = asyncio.current_task()
    if ceiling is None or task is None:
        yield reached
        return

    def check() -> None:
        if not reached.is_set() and next_call_would_pass(*recorded_spend(store, run_id), ceiling):
            reached.set()
            task.cancel()

    _WATCHED[run_id] = check
    try:
        check()  # a resumed run may have spent it already
        yield reached
    finally:
        _WATCHED.pop(run_id, None)
