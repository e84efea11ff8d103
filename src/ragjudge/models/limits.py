"""Concurrency and rate limits for one judge model.

:class:`Limiter` combines

* a concurrency cap (a semaphore shared by every event loop and thread that uses
  the model),
* smooth pacing for requests per minute (RPM) and tokens per minute (TPM): each
  request takes the next free slot on a schedule spaced ``window / rpm`` seconds
  apart (and ``tokens * window / tpm`` for tokens), so the provider's limit stays
  busy without bursts that provoke 429 answers, and
* a reaction to rate-limit answers: every caller pauses until the provider's
  ``Retry-After`` has passed, then the pace (and the concurrency cap) drops and
  climbs back to full over ``recovery`` seconds.

All state is plain numbers behind a :class:`threading.Lock`; waiting uses
``asyncio.sleep`` and futures of the caller's own loop, so nothing is bound to the
loop that happened to be running first.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from pydantic import BaseModel


@dataclass(frozen=True)
class RateLimits:
    """Limits of one model. ``rpm``/``tpm`` of ``None`` mean no such limit."""

    max_concurrency: int = 8
    rpm: int | None = None
    tpm: int | None = None
    window: float = 60.0
    """Length in seconds of the window ``rpm`` and ``tpm`` count over."""
    headroom: float = 0.97
    """Fraction of the limits to aim for, leaving room for clock differences."""
    slowdown: float = 0.5
    """Factor the pace is multiplied by after a rate-limit answer."""
    min_speed: float = 0.1
    recovery: float | None = None
    """Seconds to climb back to full pace after a slowdown; ``None`` means ``window``."""
    tolerated_429_share: float = 0.02
    """With an ``rpm`` set, up to this share of ``rpm`` 429s per window (rounded up, so
    at least one when the share is above 0) is taken as the
    provider's noise (a burst, a clock edge): the refused request waits its own
    ``Retry-After``, everyone else keeps the pace. More than that means the configured
    limit is too high, and the whole model pauses and slows down."""

    def __post_init__(self) -> None:
        if self.max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        for name in ("rpm", "tpm"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive")
        if self.window <= 0:
            raise ValueError("window must be positive")
        if not 0 < self.headroom <= 1 or not 0 < self.slowdown <= 1:
            raise ValueError("headroom and slowdown must be in (0, 1]")
        if not 0 <= self.tolerated_429_share < 1:
            raise ValueError("tolerated_429_share must be in [0, 1)")


class LimiterStats(BaseModel):
    """Counters of a :class:`Limiter`, for benchmarks and progress displays."""

    granted: int
    """Requests let through."""
    waited: float
    """Seconds requests spent waiting for a pacing slot or a pause, summed."""
    pauses: int
    """Rate-limit answers that paused the model."""
    slowdowns: int
    """Rate-limit answers that lowered the pace."""
    tolerated: int = 0
    """Rate-limit answers taken as noise (only the refused request waited)."""
    paused_seconds: float = 0.0
    """Wall-clock seconds the model was paused after rate-limit answers (overlapping
    pauses counted once)."""
    resume_in: float = 0.0
    """Seconds until the current pause ends (0 when not paused)."""
    speed: float
    """Current pace as a fraction of the configured one."""
    in_flight: int
    max_in_flight: int


class SharedSemaphore:
    """A counting semaphore usable from several event loops and threads at once.

    ``capacity`` is read on every acquire, so the limit can shrink and grow while
    the semaphore is in use. Waiters are served first come, first served.
    """

    def __init__(self, capacity: Callable[[], int]) -> None:
        self._capacity = capacity
        self._lock = threading.Lock()
        self._active = 0
        self._max_active = 0
        self._waiters: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = deque()

    @property
    def active(self) -> int:
        """Holders right now."""
        return self._active

    @property
    def max_active(self) -> int:
        """Most holders at any one time so far."""
        return self._max_active

    async def acquire(self) -> None:
        """Wait for a free place and take it."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if not self._waiters and self._active < self._capacity():
                self._take()
                return
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append((loop, waiter))
        try:
            await waiter
        except asyncio.CancelledError:
            self._forget(loop, waiter)
            raise

    def release(self) -> None:
        """Give a place back and hand free places to waiters."""
        with self._lock:
            self._active -= 1
            self._wake()

    def _take(self) -> None:
        self._active += 1
        self._max_active = max(self._max_active, self._active)

    def _wake(self) -> None:
        while self._waiters and self._active < self._capacity():
            loop, waiter = self._waiters.popleft()
            if loop.is_closed():
                continue
            self._take()
            loop.call_soon_threadsafe(self._grant, waiter)

    def _grant(self, waiter: asyncio.Future[None]) -> None:
        if waiter.done():  # cancelled after the place was handed over
            self.release()
        else:
            waiter.set_result(None)

    def _forget(self, loop: asyncio.AbstractEventLoop, waiter: asyncio.Future[None]) -> None:
        with self._lock:
            try:
                self._waiters.remove((loop, waiter))
                return
            except ValueError:
                pass
        # The place was granted; ``_grant`` releases it if the future was cancelled
        # first, otherwise the place is ours and goes back here.
        if waiter.done() and not waiter.cancelled():
            self.release()


@dataclass
class Slot:
    """One admitted request: when it started and the tokens it reserved."""

    started: float
    tokens: int


class Limiter:
    """Admits requests to one model under :class:`RateLimits`.

    Use ``async with limiter.slot(tokens) as slot:`` around each provider attempt;
    after it, call :meth:`settle` with the tokens actually used and, on a 429,
    :meth:`on_rate_limit`.

    ``clock`` tells the time in seconds and ``sleep`` waits a number of seconds; both
    must follow the same time. They default to :func:`time.monotonic` and
    :func:`asyncio.sleep`; tests pass a virtual clock instead.
    """

    def __init__(
        self,
        limits: RateLimits | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self.limits = limits or RateLimits()
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._semaphore = SharedSemaphore(self._capacity)
        rate = self.limits.headroom / self.limits.window
        self._request_interval = 1 / (self.limits.rpm * rate) if self.limits.rpm else 0.0
        self._token_interval = 1 / (self.limits.tpm * rate) if self.limits.tpm else 0.0
        self._recovery = self.limits.recovery if self.limits.recovery else self.limits.window
        self._next_request = 0.0
        self._next_token = 0.0
        self._paused_until = 0.0
        self._epoch = 0
        self._speed_after_penalty = 1.0
        self._recover_from = 0.0
        self._last_slowdown = -math.inf
        self._granted = 0
        self._waited = 0.0
        self._pauses = 0
        self._slowdowns = 0
        self._tolerated = 0
        self._paused_total = 0.0
        self._recent_429s: deque[float] = deque()

    @asynccontextmanager
    async def slot(self, tokens: int = 0) -> AsyncIterator[Slot]:
        """Wait for a concurrency place and a pacing slot; hold the place inside."""
        await self._semaphore.acquire()
        try:
            started = await self._wait_turn(tokens)
            yield Slot(started=started, tokens=tokens)
        finally:
            self._semaphore.release()

    def settle(self, slot: Slot, used_tokens: int) -> None:
        """Correct the token schedule once the real usage of a request is known."""
        if not self._token_interval or used_tokens <= 0:
            return
        with self._lock:
            delta = (used_tokens - slot.tokens) * self._token_interval
            self._next_token += delta / self._speed(self._clock())

    def on_rate_limit(self, slot: Slot, pause: float | None) -> None:
        """React to a rate-limit answer to a request admitted in ``slot``: pause
        every caller for ``pause`` seconds and lower the pace. Answers to requests
        that started before the last slowdown only extend the pause, so one burst
        of 429s lowers the pace once."""
        with self._lock:
            now = self._clock()
            if self._tolerate(now):
                return
            self._pauses += 1
            if pause and pause > 0 and now + pause > self._paused_until:
                self._paused_total += now + pause - max(now, self._paused_until)
                self._paused_until = now + pause
            if slot.started >= self._last_slowdown:
                self._slow_down(now)
            resume = max(now, self._paused_until)
            # Requests still waiting for a slot take fresh ones after the pause.
            self._next_request = resume
            self._next_token = resume
            self._epoch += 1

    def stats(self) -> LimiterStats:
        """A snapshot of the counters."""
        with self._lock:
            return LimiterStats(
                granted=self._granted,
                waited=self._waited,
                pauses=self._pauses,
                slowdowns=self._slowdowns,
                tolerated=self._tolerated,
                paused_seconds=self._paused_total,
                resume_in=max(0.0, self._paused_until - self._clock()),
                speed=self._speed(self._clock()),
                in_flight=self._semaphore.active,
                max_in_flight=self._semaphore.max_active,
            )

    # internals ------------------------------------------------------------

    def _tolerate(self, now: float) -> bool:
        """Whether this 429 falls within the tolerated share of the rpm budget."""
        if self.limits.rpm is None:
            return False
        while self._recent_429s and self._recent_429s[0] <= now - self.limits.window:
            self._recent_429s.popleft()
        self._recent_429s.append(now)
        budget = math.ceil(self.limits.tolerated_429_share * self.limits.rpm)
        if len(self._recent_429s) <= budget:
            self._tolerated += 1
            return True
        return False

    def _slow_down(self, now: float) -> None:
        self._speed_after_penalty = max(
            self.limits.min_speed, self._speed(now) * self.limits.slowdown
        )
        self._recover_from = max(now, self._paused_until)
        self._last_slowdown = now
        self._slowdowns += 1

    def _speed(self, now: float) -> float:
        """Pace factor: lowered after a rate-limit answer, back to 1 over ``recovery``."""
        low = self._speed_after_penalty
        if low >= 1.0:
            return 1.0
        progress = (now - self._recover_from) / self._recovery
        if progress >= 1.0:
            self._speed_after_penalty = 1.0
            return 1.0
        return low + (1.0 - low) * max(0.0, progress)

    def _capacity(self) -> int:
        with self._lock:
            speed = self._speed(self._clock())
        return max(1, math.floor(self.limits.max_concurrency * speed))

    def _reserve(self, tokens: int) -> tuple[float, float, int]:
        """Take the next free slot; return (now, start time, epoch)."""
        with self._lock:
            now = self._clock()
            start = max(now, self._paused_until, self._next_request, self._next_token)
            speed = self._speed(start)
            self._next_request = start + self._request_interval / speed
            self._next_token = start + tokens * self._token_interval / speed
            return now, start, self._epoch

    async def _wait_turn(self, tokens: int) -> float:
        while True:
            now, start, epoch = self._reserve(tokens)
            delay = start - now
            if delay > 0:
                await self._sleep(delay)
            with self._lock:
                self._waited += max(0.0, delay)
                if delay <= 0 or self._epoch == epoch:
                    self._granted += 1
                    return max(now, start)
            # A rate-limit answer arrived while this request waited: take a new slot.
