"""What every execution of a run is built from, and how its end is recorded."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragjudge.metrics import Metric, MetricContext
from ragjudge.models import JudgeModel
from ragjudge.store._store import Store

if TYPE_CHECKING:
    from ragjudge.config import EvalConfig
    from ragjudge.models import Provider, ResponseCache

__all__ = ["ExecutionParts", "all_unless_stopped", "outcome_recorded"]


@dataclass(frozen=True)
class ExecutionParts:
    """What every execution is built from."""

    store: Store
    run_id: str
    config: EvalConfig
    metrics: Sequence[Metric]
    context: MetricContext
    agents: dict[str, dict[str, JudgeModel]]
    cache: ResponseCache | None
    provider: Provider | None
    given_metrics: bool
    given_target: Any
    """The target object handed to the call (None when it came from the config)."""
    samples_in_store: bool = False
    """The run's samples are read back from the store a page at a time (the set was
    read in pages, or a resumed run's were left there), not held by the caller."""
    busy_cpus: Callable[[], float | None] | None = None
    """How many CPUs other programs keep busy, watched since the run began, for
    ``processes: auto`` (None: measured when asked)."""


@contextmanager
def outcome_recorded(store: Store, run_id: str) -> Iterator[None]:
    """Mark the run completed, interrupted (Ctrl-C, cancellation) or failed by how the
    block ends."""
    try:
        yield
    except (asyncio.CancelledError, KeyboardInterrupt):
        store.set_status(run_id, "interrupted")
        raise
    except BaseException:
        store.set_status(run_id, "failed")
        raise
    store.set_status(run_id, "completed")


async def all_unless_stopped(
    tasks: Sequence[asyncio.Future[None]], stop: asyncio.Future[None] | None
) -> None:
    """Wait for every task; raise the first task's error, or ``stop``'s as soon as it
    fails (the tasks are left to the caller to cancel)."""
    gathered: asyncio.Future[list[None]] = asyncio.gather(*tasks)
    if stop is None:
        await gathered
        return
    try:
        watched: list[asyncio.Future[Any]] = [gathered, stop]
        await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
        if stop.done():
            stop.result()
        await gathered
    finally:
        if not gathered.done():
            gathered.cancel()
            await asyncio.gather(gathered, return_exceptions=True)
