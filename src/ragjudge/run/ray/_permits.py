"""One judge budget for a whole cluster: :class:`PermitKeeper` holds the run's
:class:`~ragjudge.models.Limiter` inside a Ray actor, and :class:`RemotePermits` is the
:class:`~ragjudge.models.PermitSource` a worker's judge model uses in its place.

Workers take permits in blocks (:mod:`ragjudge.run.ray._blocks`): one call to the
keeper brings several permits (a concurrency place and a start under the RPM/TPM
budgets each), and the places released and tokens used go back with the next call or
after :data:`REPORT_DELAY`, so the keeper's limiter decides every start as in a local
run while the workers call it once per block. 429s with their ``Retry-After`` go to the
keeper at once; it reacts as in a local run (tolerated noise, pause, slowdown,
recovery), and every worker hears of a pause through a call it keeps waiting on the
keeper (:meth:`PermitKeeper.watch`), dropping the starts it holds. A worker that dies
holding places gives them back once it has been silent for ``lease`` seconds, so a
killed worker cannot shrink the concurrency cap for good.
"""

from __future__ import annotations

import asyncio
import itertools
import math
import time
import uuid
from collections import deque
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, suppress
from dataclasses import dataclass
from typing import Any

from ragjudge.models import Limiter, LimiterStats, RateLimits
from ragjudge.models._limits import Slot
from ragjudge.run.ray._blocks import LARGEST_BLOCK, BlockIssuer, Grant, Usage

__all__ = ["REPORT_DELAY", "WATCH_PERIOD", "PermitKeeper", "RemotePermits", "RemoteSlot"]

REPORT_DELAY = 0.02
"""Seconds a worker gathers released places and used tokens before sending them."""

WATCH_PERIOD = 5.0
"""Seconds a worker's pause watch waits on the keeper before asking again (it also
tells the keeper the worker is alive)."""

_RECHECK = 1.0
"""Seconds a block request waiting for a free place waits before looking for places
of dead workers."""


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
        self.blocks = BlockIssuer(self.limiter, lease)
        self._freed = asyncio.Event()
        self._paused = asyncio.Event()

    async def take(self, holder: str, want: int, tokens: int, usage: Usage) -> Grant:
        """A block of up to ``want`` permits for ``holder``, after taking back its
        ``usage``; waits for a free concurrency place."""
        self._report(holder, usage)
        while True:
            grant = self.blocks.issue(holder, want, tokens)
            if grant is not None:
                return grant
            if self.blocks.reclaim_silent():
                continue
            self._freed.clear()
            with suppress(TimeoutError):
                await asyncio.wait_for(self._freed.wait(), _RECHECK)

    def report(self, holder: str, usage: Usage) -> None:
        """Take back places released, tokens used and permits unused by ``holder``."""
        self._report(holder, usage)

    async def watch(self, holder: str, epoch: int) -> int:
        """Wait until a pause ends epoch ``epoch`` (or :data:`WATCH_PERIOD` passes);
        return the current epoch."""
        self.blocks.touch(holder)
        if self.limiter.epoch == epoch:
            self._paused.clear()
            with suppress(TimeoutError):
                await asyncio.wait_for(self._paused.wait(), WATCH_PERIOD)
        self.blocks.touch(holder)
        return self.limiter.epoch

    def _report(self, holder: str, usage: Usage) -> None:
        if self.blocks.report(holder, usage):
            self._freed.set()

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
        self._freed.set()

    def settle(self, permit: int, used_tokens: int) -> None:
        """The tokens the permit's attempt really used."""
        held = self._held.get(permit)
        if held is not None:
            self.limiter.settle(held[0], used_tokens)

    def on_rate_limit(self, started: float, tokens: int, pause: float | None) -> None:
        """A 429 to the attempt that started at ``started`` (the keeper's clock)."""
        epoch = self.limiter.epoch
        self.limiter.on_rate_limit(Slot(started=started, tokens=tokens), pause)
        if self.limiter.epoch != epoch:
            self._paused.set()  # every watching worker drops the starts it holds

    def stats(self) -> dict[str, Any]:
        """The limiter's counters, JSON-able."""
        return self.limiter.stats().model_dump()


class RemotePermits:
    """A :class:`~ragjudge.models.PermitSource` backed by a :class:`PermitKeeper` actor:
    what a worker's judge model uses as its limiter. It takes permits in blocks and
    reports their use in batches (see the module docstring)."""

    def __init__(self, keeper: Any) -> None:
        self.keeper = keeper
        """The actor handle."""
        self._last: LimiterStats | None = None
        self._name = uuid.uuid4().hex
        self._ready: deque[tuple[int, float, float, int]] = deque()
        """Permits taken and not yet used: id, local start, keeper start, generation."""
        self._generation = 0
        """Raised when a pause voids the starts held here."""
        self._epoch = 0
        self._usage = Usage()
        self._taking: asyncio.Future[None] | None = None
        self._waiting = 0
        self._used = 0
        """Permits used since the last block came: the size of the next one."""
        self._report_due: asyncio.TimerHandle | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._last_start = (-math.inf, -math.inf)
        """The keeper's start of the last permit taken here, and its local start."""

    def __getstate__(self) -> dict[str, Any]:
        # a copy sent to another process starts with no permits of its own
        return {"keeper": self.keeper}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["keeper"])  # type: ignore[misc]

    def slot(self, tokens: int = 0) -> AbstractAsyncContextManager[Slot]:
        """Wait for a permit from the keeper; hold it inside."""
        return self._slot(tokens)

    @asynccontextmanager
    async def _slot(self, tokens: int) -> AsyncIterator[Slot]:
        permit, started = await self._permit(tokens)
        try:
            yield RemoteSlot(started=started, tokens=tokens, permit=permit)
        finally:
            self._usage.released.append(permit)
            self._report_soon()

    def settle(self, slot: Slot, used_tokens: int) -> None:
        """Tell the keeper the tokens the attempt used (with the next report)."""
        if isinstance(slot, RemoteSlot):
            self._usage.settled.append((slot.permit, used_tokens))

    def on_rate_limit(self, slot: Slot, pause: float | None) -> None:
        """Report a 429 to the keeper at once and drop the starts held here (they
        were planned before the pause)."""
        self.keeper.on_rate_limit.remote(slot.started, slot.tokens, pause)
        self._drop_ready()

    async def _permit(self, tokens: int) -> tuple[int, float]:
        """A permit whose start has come: its id and its start on the keeper's clock."""
        self._watch()
        while True:
            if not self._ready:
                self._waiting += 1
                try:
                    await self._refill(tokens)
                finally:
                    self._waiting -= 1
                continue
            permit, local_start, started, generation = self._ready.popleft()
            delay = local_start - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            if generation == self._generation:
                self._used += 1
                return permit, started
            self._usage.unused.append(permit)  # a pause came while it waited

    async def _refill(self, tokens: int) -> None:
        """Wait for the next block (one request to the keeper at a time)."""
        if self._taking is None:
            self._taking = asyncio.ensure_future(self._take(tokens))
        await asyncio.shield(self._taking)

    async def _take(self, tokens: int) -> None:
        try:
            want = min(LARGEST_BLOCK, max(1, self._waiting, self._used))
            usage, self._usage = self._usage, Usage()
            grant: Grant = await self.keeper.take.remote(self._name, want, tokens, usage)
            self._add(grant)
        finally:
            self._taking = None

    def _add(self, grant: Grant) -> None:
        received = time.monotonic()
        self._used = 0
        if grant.epoch < self._epoch:  # planned before a pause this worker knows of
            self._usage.unused.extend(permit for permit, _ in grant.permits)
            return
        for permit, started in grant.permits:
            local = received + started - grant.now
            # a block that came back faster than the one before must not bunch its
            # starts onto the earlier block's: keep the keeper's spacing between them
            planned, went = self._last_start
            if started >= planned:
                local = max(local, went + started - planned)
            self._last_start = (started, local)
            self._ready.append((permit, local, started, self._generation))

    def _drop_ready(self) -> None:
        self._generation += 1
        self._usage.unused.extend(permit for permit, *_ in self._ready)
        self._ready.clear()
        self._report_soon()

    def _report_soon(self) -> None:
        if self._report_due is None:
            loop = asyncio.get_running_loop()
            self._report_due = loop.call_later(REPORT_DELAY, self._send_report)

    def _send_report(self) -> None:
        self._report_due = None
        if self._taking is None and not self._waiting:
            self._return_idle()
        if self._usage and self.keeper is not None:
            usage, self._usage = self._usage, Usage()
            self.keeper.report.remote(self._name, usage)

    def _return_idle(self) -> None:
        """Give back permits nobody here has taken up since their start came."""
        stale = time.monotonic() - REPORT_DELAY
        while self._ready and self._ready[0][1] < stale:
            self._usage.unused.append(self._ready.popleft()[0])
        if self._ready:
            self._report_soon()

    def _watch(self) -> None:
        """Keep a call waiting on the keeper for pauses, from the first permit on."""
        if self._watcher is None or self._watcher.done():
            self._watcher = asyncio.ensure_future(self._watch_pauses())

    async def _watch_pauses(self) -> None:
        while self.keeper is not None:
            try:
                epoch: int = await self.keeper.watch.remote(self._name, self._epoch)
            except Exception:  # the keeper is gone: the run is ending
                return
            if epoch != self._epoch:
                self._epoch = epoch
                self._drop_ready()

    def stats(self) -> LimiterStats:
        """The cluster-wide counters (a short blocking call to the keeper; its last
        answer once the keeper is gone)."""
        import ray

        if self.keeper is not None:
            if self._usage:  # sent first, so the counters include it
                usage, self._usage = self._usage, Usage()
                self.keeper.report.remote(self._name, usage)
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
        if self._watcher is not None:
            self._watcher.cancel()
        if self._report_due is not None:
            self._report_due.cancel()
        self.keeper = None
