"""Concurrency and rate limits for one judge model.

:class:`Limiter` combines

* a concurrency cap (a semaphore shared by every event loop and thread that uses
  the model): a fixed number, or one that follows the limits and the latency observed
  (see :mod:`ragjudge.models._concurrency`),
* the requests per minute (RPM) and tokens per minute (TPM) budgets of the provider:
  a workload that fits the window goes out at once (a burst up to the window's
  budget), and beyond it requests start as the oldest ones leave the window, so no
  window ever holds more than the limit. ``burst`` narrows the burst for providers
  that enforce their per-minute limit over shorter periods (a limit of 240 RPM
  counted per second allows 4 at once): after the burst, requests go at the limit's
  pace (see :mod:`ragjudge.models._budget`), and
* a reaction to rate-limit answers: every caller pauses until the provider's
  ``Retry-After`` has passed, then the pace (and the concurrency cap) drops and
  climbs back to full over ``recovery`` seconds, without a new burst.

All state is plain numbers behind a :class:`threading.Lock`; waiting uses
``asyncio.sleep`` and futures of the caller's own loop, so nothing is bound to the
loop that happened to be running first.

**The permit interface.** The judge layer uses a limiter only through
:class:`PermitSource` — ``slot`` to acquire a permit (a concurrency place and a start
under the rate budgets) for one attempt, ``settle`` with the tokens the attempt really
used, ``on_rate_limit`` when the provider answered 429 (with its ``Retry-After`` in
seconds, or None) — and ``stats``. Anything with these four methods, such as a client
of a budget shared by many processes, can stand in for :class:`Limiter`
(``JudgeModel.limiter``). A limiter may also offer ``send_reporter(slot)``: a callback
for the moment the attempt's request leaves, which the OpenAI-compatible and Anthropic
providers call as the request's headers go out (see :mod:`ragjudge.models._send_times`);
the rate windows then count each request from then instead of from its permit plus a
fixed margin.
"""

from __future__ import annotations

import asyncio
import functools
import math
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from pydantic import BaseModel

from ragjudge.models._budget import Entry, budgets
from ragjudge.models._concurrency import target_of
from ragjudge.models._semaphore import SharedSemaphore

__all__ = ["Limiter", "LimiterStats", "PermitSource", "RateLimits", "SharedSemaphore", "Slot"]


@dataclass(frozen=True)
class RateLimits:
    """Limits of one model. ``rpm``/``tpm`` of ``None`` mean no such limit."""

    max_concurrency: int | None = None
    """Calls in flight at most; ``None`` follows the limits and the latency observed
    (see :mod:`ragjudge.models._concurrency`)."""
    rpm: int | None = None
    tpm: int | None = None
    window: float = 60.0
    """Length in seconds of the window ``rpm`` and ``tpm`` count over."""
    burst: int | None = None
    """Requests that may start at once: at most ``burst`` in any ``window * burst /
    rpm`` seconds, and the same share of ``tpm`` (``tpm * burst / rpm`` tokens). ``None``
    (the default): the whole window's budget, for providers that count over the window —
    a workload that fits it goes out at once. ``1`` spaces every request evenly from
    the first. Needs ``rpm``."""
    headroom: float = 0.97
    """Fraction of the limits to aim for, leaving room for requests that reach the
    provider with different delays: the pace is ``headroom * rpm`` per window, and the
    window is counted over ``window / headroom`` seconds, but at most a margin more than
    the window: 0.1 s from each permit (:data:`~ragjudge.models._budget.WINDOW_MARGIN`),
    or, once the provider tells when its requests leave, 0.025 s from when each left
    (:data:`~ragjudge.models._budget.SEND_JITTER`)."""
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
        if self.max_concurrency is not None and self.max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        for name in ("rpm", "tpm"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive")
        if self.burst is not None and (self.burst < 1 or self.rpm is None):
            raise ValueError("burst counts requests: it must be at least 1, with rpm set")
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
    concurrency: int = 0
    """Calls that may be in flight now (the cap, after any slowdown)."""
    longest_send_delay: float | None = None
    """The longest seconds seen between a permit and its request leaving (None: the
    provider does not tell, or no rate window asks)."""


@dataclass
class Slot:
    """One admitted request: when it started and the tokens it reserved."""

    started: float
    tokens: int
    token_entries: tuple[Entry, ...] = ()
    """Its places in the token windows, corrected by :meth:`Limiter.settle`."""
    request_entries: tuple[Entry, ...] = ()
    """Its places in the request windows, moved to when its request left."""


@runtime_checkable
class PermitSource(Protocol):
    """What the judge layer asks of a limiter (see the module docstring)."""

    def slot(self, tokens: int = 0) -> AbstractAsyncContextManager[Slot]:
        """Wait for a permit for one attempt of about ``tokens`` tokens; hold it inside."""
        ...

    def settle(self, slot: Slot, used_tokens: int) -> None:
        """The tokens the attempt of ``slot`` really used."""
        ...

    def on_rate_limit(self, slot: Slot, pause: float | None) -> None:
        """The provider refused the attempt of ``slot`` with a 429, asking to wait
        ``pause`` seconds (its ``Retry-After``; None when it gave none)."""
        ...

    def stats(self) -> LimiterStats:
        """Counters for benchmarks and progress displays."""
        ...


class Limiter:
    """Admits requests to one model under :class:`RateLimits` (a :class:`PermitSource`).

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
        limits = self.limits
        self._requests, self._tokens = budgets(
            limits.rpm, limits.tpm, limits.window, limits.headroom, limits.burst
        )
        self._target = target_of(
            limits.max_concurrency,
            limits.rpm,
            limits.tpm,
            limits.window,
            limits.headroom,
            limits.burst,
        )
        self._recovery = self.limits.recovery if self.limits.recovery else self.limits.window
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
        self._longest_send_delay: float | None = None

    @asynccontextmanager
    async def slot(self, tokens: int = 0) -> AsyncIterator[Slot]:
        """Wait for a concurrency place and a start under the rate budgets; hold the
        place inside."""
        await self._semaphore.acquire()
        try:
            slot = await self._wait_turn(tokens)
            started = self._clock()
            yield slot
            self._observe(self._clock() - started, tokens)
        finally:
            self._semaphore.release()

    def send_reporter(self, slot: Slot) -> Callable[[], None] | None:
        """A callback for the moment the request admitted in ``slot`` leaves, or None
        when no rate window counts requests: the windows then count the start from
        then, with a margin for network jitter only (see
        :meth:`~ragjudge.models._budget.Budget.sent`)."""
        if self._requests is None and self._tokens is None:
            return None
        return functools.partial(self._sent, slot)

    def try_place(self) -> bool:
        """Take a concurrency place if one is free, without waiting (for a keeper that
        hands places to other processes; give it back with :meth:`release_place`)."""
        return self._semaphore.try_acquire()

    def release_place(self) -> None:
        """Give back a place taken by :meth:`try_place`."""
        self._semaphore.release()

    def reserve(self, tokens: int = 0) -> Slot:
        """Take the earliest start the budgets allow without waiting for it (for a
        keeper whose permit holders wait in their own processes); count it with
        :meth:`count_granted` once it was used."""
        now, slot, _ = self._reserve(tokens)
        with self._lock:
            self._waited += max(0.0, slot.started - now)
        return slot

    def count_granted(self, requests: int) -> None:
        """Count ``requests`` started on starts from :meth:`reserve`."""
        with self._lock:
            self._granted += requests

    @property
    def epoch(self) -> int:
        """Rate-limit answers that paused callers so far: starts reserved under an
        older epoch after the pause began are void."""
        return self._epoch

    def settle(self, slot: Slot, used_tokens: int) -> None:
        """Correct the token budget once the real usage of a request is known."""
        if self._tokens is None or not slot.token_entries or used_tokens <= 0:
            return
        with self._lock:
            self._tokens.settle(slot.token_entries, used_tokens)

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
            # Requests still waiting for a start take fresh ones after the pause, at
            # the pace: the burst that provoked the answer is not repeated.
            for budget in (self._requests, self._tokens):
                if budget is not None:
                    budget.restart(now, resume)
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
                concurrency=self._capacity_locked(),
                longest_send_delay=self._longest_send_delay,
            )

    def concurrency(self) -> int:
        """Calls that may be in flight now."""
        with self._lock:
            return self._capacity_locked()

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

    def _sent(self, slot: Slot) -> None:
        with self._lock:
            at = self._clock()
            delay = max(0.0, at - slot.started)
            self._longest_send_delay = max(self._longest_send_delay or 0.0, delay)
            if self._requests is not None:
                self._requests.sent(slot.request_entries, at)
            if self._tokens is not None:
                self._tokens.sent(slot.token_entries, at)

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
            return self._capacity_locked()

    def _capacity_locked(self) -> int:
        speed = self._speed(self._clock())
        return max(1, math.floor(self._target.value() * speed))

    def _observe(self, seconds: float, tokens: int) -> None:
        """An attempt ended after ``seconds`` under its permit: the latency it adds to
        the target, and one place more when callers wait and nothing limits the calls."""
        with self._lock:
            self._target.observe(seconds, tokens)
            full_pace = self._speed(self._clock()) >= 1.0
            if self._target.grows and self._semaphore.waiting and full_pace:
                self._target.grow()

    def _reserve(self, tokens: int) -> tuple[float, Slot, int]:
        """Take the earliest start the budgets allow; return (now, slot, epoch)."""
        with self._lock:
            now = self._clock()
            return now, self._reserve_locked(now, tokens), self._epoch

    def _reserve_locked(self, now: float, tokens: int) -> Slot:
        start = max(now, self._paused_until)
        paced = self._speed(start) < 1.0
        if self._requests is not None:
            start = self._requests.earliest(now, start, 1, paced=paced)
        if self._tokens is not None:
            start = self._tokens.earliest(now, start, tokens, paced=paced)
        speed = self._speed(start)
        requests = () if self._requests is None else self._requests.take(start, 1, speed)
        entries = () if self._tokens is None else self._tokens.take(start, tokens, speed)
        return Slot(start, tokens, token_entries=entries, request_entries=requests)

    def _narrowing(self) -> float:
        """How much sooner a start taken now may come once a request tells when it left."""
        with self._lock:
            return self._narrowing_locked()

    def _narrowing_locked(self) -> float:
        limited = (b for b in (self._requests, self._tokens) if b is not None)
        return max((budget.narrowing for budget in limited), default=0.0)

    def _retaken(self, slot: Slot, epoch: int) -> tuple[float, Slot]:
        """(now, a new start for ``slot``) when requests have told when they left since
        it was taken, so the windows' margins narrowed; else (now, ``slot``)."""
        with self._lock:
            now = self._clock()
            if self._epoch != epoch or self._speed(slot.started) < 1.0:
                return now, slot  # voided by a rate-limit answer, or paced: keep it
            if self._narrowing_locked() > 0:
                return now, slot  # no request has told yet
            if self._requests is not None:
                self._requests.release(slot.request_entries)
            if self._tokens is not None:
                self._tokens.release(slot.token_entries)
            return now, self._reserve_locked(now, slot.tokens)

    async def _wait_turn(self, tokens: int) -> Slot:
        while True:
            begun, slot, epoch = self._reserve(tokens)
            now = begun
            lead = self._narrowing() if slot.started > now else 0.0
            if slot.started - now > lead > 0:
                # Counted with the wide margins, as no request has told yet when it
                # left: once one has, the start may come up to ``lead`` sooner.
                await self._sleep(slot.started - now - lead)
                now, slot = self._retaken(slot, epoch)
            if slot.started > now:
                await self._sleep(slot.started - now)
            with self._lock:
                self._waited += max(0.0, slot.started - begun)
                if slot.started <= begun or self._epoch == epoch:
                    self._granted += 1
                    return slot
            # A rate-limit answer arrived while this request waited: take a new start.
