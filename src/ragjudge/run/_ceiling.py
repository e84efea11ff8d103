"""``max_cost``: the most dollars a run may spend on judge calls.

Before the start, the run's estimate (the dry run's, without asking the target, so a
lower bound) is held against it: a run estimated above the ceiling does not start
(:func:`~ragjudge.run._estimates.check_estimate`). During the run, the recorded cost of
the run's calls is read each time one is stored, and the run stops once the next call would take it past the ceiling (the mean cost of
a call so far); the run is then kept as interrupted, with the cause in its notes, and
resumes like any interrupted run. Replies to requests already sent still arrive and
are paid for, so the final cost may pass the ceiling by those calls.

In batch mode (``judge.mode: batch``) a call is recorded only when its batch ends, hours
later, so each batch is held against the ceiling before it is created
(:class:`BatchSpending`): the recorded cost, plus the estimate of every batch sent and
not yet ended, plus this batch's estimate, at the batch price, each reply counted at
its ``max_tokens`` (or :data:`REPLY_TOKENS_UNSET`). A batch that would pass the ceiling
is not sent and the run stops as above.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ragjudge.models import ModelError, PriceTable
from ragjudge.models._tokens import estimate_messages_tokens, estimate_tokens
from ragjudge.schema import Usage
from ragjudge.store._store import Store

_WATCHED: dict[str, Callable[[], None]] = {}
"""The check of each run under a ceiling in this process, by run id."""
_CEILINGS: dict[str, tuple[float, Callable[[], None]]] = {}
"""The ceiling of each run under one in this process and how to stop it, by run id."""
REPLY_TOKENS_UNSET = 1024
"""Output tokens a batched reply is estimated at when its call sets no ``max_tokens``."""


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

    def stop() -> None:
        if not reached.is_set():
            reached.set()
            task.cancel()

    _WATCHED[run_id] = check
    _CEILINGS[run_id] = (ceiling, stop)
    try:
        check()  # a resumed run may have spent it already
        yield reached
    finally:
        _WATCHED.pop(run_id, None)
        _CEILINGS.pop(run_id, None)


class BatchSpending:
    """The cost ceiling of one run's batched judge, checked before each batch is sent
    (see the module docstring); a run without a ceiling sends every batch."""

    def __init__(self, store: Store, run_id: str, prices: PriceTable) -> None:
        self.store = store
        self.run_id = run_id
        self.prices = prices
        self.outstanding: dict[str, float] = {}
        """The estimate of each batch sent and not yet ended, by its key."""

    async def admit(self, batch_key: str, requests: Sequence[dict[str, Any]]) -> None:
        """Refuse (and stop the run) when the batch would take the run past its ceiling."""
        held = _CEILINGS.get(self.run_id)
        estimate = sum(self.request_cost(request) for request in requests)
        if held is not None:
            ceiling, stop = held
            spent, _ = recorded_spend(self.store, self.run_id)
            bound = spent + sum(self.outstanding.values()) + estimate
            if bound > ceiling:
                stop()
                raise ModelError(
                    f"max_cost: a batch of {len(requests)} calls, estimated at "
                    f"${estimate:.4f}, would take the run to ${bound:.4f}, past "
                    f"${ceiling:.4f}; it was not sent",
                    kind="client",
                )
        self.outstanding[batch_key] = estimate

    def settled(self, batch_key: str) -> None:
        """The batch ended: its calls' recorded cost replaces its estimate."""
        self.outstanding.pop(batch_key, None)

    def request_cost(self, request: dict[str, Any]) -> float:
        """The most one batched request is estimated to cost (0 without a price)."""
        price = self.prices.price(str(request.get("model", "")))
        if price is None:
            return 0.0
        messages = request.get("messages")
        prompt = estimate_messages_tokens(messages if isinstance(messages, list) else [])
        prompt += estimate_tokens(str(request.get("system") or ""))
        reply = request.get("max_tokens") or request.get("max_completion_tokens")
        output = int(reply) if isinstance(reply, int) else REPLY_TOKENS_UNSET
        return price.cost(Usage(input_tokens=prompt, output_tokens=output))
