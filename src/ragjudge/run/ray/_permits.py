"""One judge budget for a whole cluster: :class:`PermitKeeper` holds the run's
:class:`~ragjudge.models.Limiter` inside a Ray actor, and :class:`RemotePermits` is the
:class:`~ragjudge.models.PermitSource` a worker's judge model uses in its place.

Every attempt of every worker asks the actor for a permit (a concurrency place and a
start under the RPM/TPM budgets), tells it the tokens really used, and reports 429s
with their ``Retry-After``; the actor's limiter reacts exactly as in a local run
(tolerated noise, pause, slowdown, recovery). A permit is a lease: a worker that dies
while holding one gives it back after ``lease`` seconds, so a killed worker cannot
shrink the concurrency cap for good.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from ragjudge.models import Limiter, LimiterStats, RateLimits
from ragjudge.models._limits import Slot

__all__ = ["PermitKeeper", "RemotePermits", "RemoteSlot"]


@dataclass
class RemoteSlot(Slot):
    """A permit granted by the keeper; ``permit`` names it there."""

    permit: int = 0


class PermitKeeper:
    """The run's limiter, served to every worker (the body of a Ray actor; see
    :func:`ragjudge.run.ray._driver.start_permit_keeper`)."""

    def __init__(self, limits: RateLimits, lease: float) -> None:
        self.limiter = Limiter(limits)
        self.lease = lease
        self._ids = itertools.count(1)
        self._held: dict[int, tuple[Slot, asyncio.Event]] = {}

    async def acquire(self, tokens: int) -> tuple[int, float]:
        """Wait for a permit; return its id and its start on the keeper's clock."""
        granted: asyncio.Future[tuple[int, Slot]] = asyncio.get_running_loop().create_future()
        released = asyncio.Event()
        holder = asyncio.ensure_future(self._hold(tokens, granted, released))
        try:
            permit, slot = await asyncio.shield(granted)
        except asyncio.CancelledError:
            holder.cancel()
            raise
        return permit, slot.started

    async def _hold(
        self, tokens: int, granted: asyncio.Future[tuple[int, Slot]], released: asyncio.Event
    ) -> None:
        async with self.limiter.slot(tokens) as slot:
            permit = next(self._ids)
            self._held[permit] = (slot, released)
            granted.set_result((permit, slot))
            try:
                await asyncio.wait_for(released.wait(), self.lease)
            except TimeoutError:
                pass  # its holder died: the place goes back
            finally:
                self._held.pop(permit, None)

    def release(self, permit: int) -> None:
        """Give the permit's concurrency place back."""
        held = self._held.get(permit)
        if held is not None:
            held[1].set()

    def settle(self, permit: int, used_tokens: int) -> None:
        """The tokens the permit's attempt really used."""
        held = self._held.get(permit)
        if held is not None:
            self.limiter.settle(held[0], used_tokens)

    def on_rate_limit(self, started: float, tokens: int, pause: float | None) -> None:
        """A 429 to the attempt that started at ``started`` (the keeper's clock)."""
        self.limiter.on_rate_limit(Slot(started=started, tokens=tokens), pause)

    def stats(self) -> dict[str, Any]:
        """The limiter's counters, JSON-able."""
        return self.limiter.stats().model_dump()


class RemotePermits:
    """A :class:`~ragjudge.models.PermitSource` backed by a :class:`PermitKeeper` actor:
    what a worker's judge model uses as its limiter."""

    def __init__(self, keeper: Any) -> None:
        self.keeper = keeper
        """The actor handle."""
        self._last: LimiterStats | None = None

    def slot(self, tokens: int = 0) -> AbstractAsyncContextManager[Slot]:
        """Wait for a permit from the keeper; hold it inside."""
        return self._slot(tokens)

    @asynccontextmanager
    async def _slot(self, tokens: int) -> AsyncIterator[Slot]:
        permit, started = await self.keeper.acquire.remote(tokens)
        try:
            yield RemoteSlot(started=started, tokens=tokens, permit=permit)
        finally:
            self.keeper.release.remote(permit)

    def settle(self, slot: Slot, used_tokens: int) -> None:
        """Tell the keeper the tokens the attempt used (fire and forget)."""
        if isinstance(slot, RemoteSlot):
            self.keeper.settle.remote(slot.permit, used_tokens)

    def on_rate_limit(self, slot: Slot, pause: float | None) -> None:
        """Report a 429 to the keeper (fire and forget)."""
        self.keeper.on_rate_limit.remote(slot.started, slot.tokens, pause)

    def stats(self) -> LimiterStats:
        """The cluster-wide counters (a short blocking call to the keeper; its last
        answer once the keeper is gone)."""
        import ray

        if self.keeper is not None:
            try:
                self._last = LimiterStats.model_validate(
                    ray.get(self.keeper.stats.remote(), timeout=5)
                )
            except Exception:  # the keeper is gone: its last counters stand
                if self._last is None:
                    raise
        assert self._last is not None
        return self._last

    def freeze(self) -> None:
        """Keep the keeper's counters now and stop asking it (it is about to stop)."""
        self.stats()
        self.keeper = None
