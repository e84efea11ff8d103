"""``max_cost``: the most dollars a run may spend on judge calls.

Before the start, the run's estimate (the dry run's, without asking the target, so a
lower bound) is held against it: a run estimated above the ceiling does not start.
During the run, a watcher reads the recorded cost of the run's calls as they complete
and stops the run once the next call would take it past the ceiling (the mean cost of
a call so far); the run is then kept as interrupted, with the cause in its notes, and
resumes like any interrupted run. Replies to requests already sent still arrive and
are paid for, so the final cost may pass the ceiling by those calls.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from ragjudge.config import ConfigError, EvalConfig
from ragjudge.metrics import Metric
from ragjudge.schema import Sample
from ragjudge.store._store import Store

POLL_SECONDS = 0.2
"""How often the recorded cost is read during a run."""


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


async def check_estimate(
    config: EvalConfig,
    samples: Sequence[Sample],
    metrics: Sequence[Metric],
    *,
    supplies_response: bool,
    retriever: Any,
) -> None:
    """Refuse to start a run whose estimated cost passes ``max_cost``, or whose judge
    has no price to hold it to."""
    from ragjudge.run._dryrun import plan_evaluation

    ceiling = config.max_cost
    if ceiling is None or not any(m.needs_judge for m in metrics):
        return
    plan = await plan_evaluation(
        config, samples, metrics, supplies_response=supplies_response, retriever=retriever
    )
    if plan.total_calls and plan.total_cost is None:
        raise ConfigError(f"max_cost: {plan.price_note}; without a price a ceiling cannot hold")
    if plan.total_cost is not None and plan.total_cost > ceiling:
        raise ConfigError(
            f"max_cost: the run is estimated at ${plan.total_cost:.4f} "
            f"({plan.total_calls} judge calls), above the ceiling of ${ceiling:.4f}; nothing "
            "was run. Raise max_cost (--max-cost), or evaluate fewer rows (--limit, --sample)"
        )


@asynccontextmanager
async def spending_watched(
    store: Store, run_id: str, ceiling: float | None
) -> AsyncIterator[asyncio.Event]:
    """Watch the run's recorded cost while the block runs; when the next call would
    pass ``ceiling`` the event is set and the task running the block is cancelled."""
    reached = asyncio.Event()
    if ceiling is None:
        yield reached
        return
    task = asyncio.current_task()
    assert task is not None  # an async with always runs in a task

    async def watch() -> None:
        while True:
            if next_call_would_pass(*recorded_spend(store, run_id), ceiling):
                reached.set()
                task.cancel()
                return
            await asyncio.sleep(POLL_SECONDS)

    watcher = asyncio.create_task(watch())
    try:
        yield reached
    finally:
        watcher.cancel()
