"""Concurrency cap, RPM/TPM pacing and the reaction to rate-limit answers. Windows are
fractions of a second so the tests finish quickly."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections import deque

import pytest

from ragjudge.models import (
    GenerateConfig,
    Generation,
    JudgeModel,
    Limiter,
    ModelError,
    ModelSettings,
    RateLimits,
)
from ragjudge.models._types import ChatMessage, EmbeddingResult
from ragjudge.models.limits import Slot
from ragjudge.schema import Usage


async def grant_times(
    limiter: Limiter, n: int, tokens: int = 0, scheduled: list[float] | None = None
) -> list[float]:
    """When ``n`` concurrent requests got through, sorted; ``scheduled`` receives the
    start times the limiter assigned (free of event-loop wake-up jitter)."""
    times: list[float] = []

    async def one() -> None:
        async with limiter.slot(tokens) as slot:
            times.append(time.monotonic())
            if scheduled is not None:
                scheduled.append(slot.started)

    await asyncio.gather(*(one() for _ in range(n)))
    if scheduled is not None:
        scheduled.sort()
    return sorted(times)


def most_in_any_window(times: list[float], window: float) -> int:
    best, start = 0, 0
    for end, t in enumerate(times):
        while times[start] <= t - window:
            start += 1
        best = max(best, end - start + 1)
    return best


def test_limits_are_validated() -> None:
    for bad in ({"max_concurrency": 0}, {"rpm": 0}, {"tpm": -1}, {"window": 0}, {"slowdown": 2}):
        with pytest.raises(ValueError):
            RateLimits(**bad)


async def test_rpm_pacing_keeps_the_limit_busy_without_exceeding_it() -> None:
    window, rpm = 0.5, 20
    limiter = Limiter(RateLimits(max_concurrency=50, rpm=rpm, window=window))
    scheduled: list[float] = []
    times = await grant_times(limiter, 41, scheduled=scheduled)
    assert most_in_any_window(times, window) <= rpm
    achieved = (len(times) - 1) / (times[-1] - times[0]) * window
    assert 0.9 * rpm <= achieved <= rpm
    gaps = [b - a for a, b in itertools.pairwise(scheduled)]
    assert min(gaps) >= window / rpm  # smooth: evenly spaced, no bursts


async def test_tpm_pacing_and_settling_real_usage() -> None:
    window, tpm = 0.5, 1000
    limiter = Limiter(RateLimits(max_concurrency=50, tpm=tpm, window=window, headroom=1.0))
    times = await grant_times(limiter, 11, tokens=100)  # 10 requests fit in a window
    assert times[-1] - times[0] == pytest.approx(0.5, abs=0.06)
    # A request that used half its estimate frees its unused share of the schedule.
    async with limiter.slot(100) as slot:
        pass
    before = limiter._next_token
    limiter.settle(slot, used_tokens=50)
    assert limiter._next_token == pytest.approx(before - 50 * window / tpm)


async def test_concurrency_cap() -> None:
    limiter = Limiter(RateLimits(max_concurrency=3))
    active, peak = 0, 0

    async def one() -> None:
        nonlocal active, peak
        async with limiter.slot():
            active += 1
            peak = max(peak, active)
            await asyncio.sleep(0.01)
            active -= 1

    await asyncio.gather(*(one() for _ in range(15)))
    assert peak == 3
    stats = limiter.stats()
    assert stats.max_in_flight == 3 and stats.in_flight == 0 and stats.granted == 15


async def test_cancelled_waiter_does_not_leak_a_place() -> None:
    limiter = Limiter(RateLimits(max_concurrency=1))
    async with limiter.slot():
        waiter = asyncio.create_task(limiter.slot().__aenter__())
        await asyncio.sleep(0.01)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
    async with asyncio.timeout(1):
        async with limiter.slot():
            assert limiter.stats().in_flight == 1
    assert limiter.stats().in_flight == 0


def test_one_limiter_across_event_loops_in_threads() -> None:
    limiter = Limiter(RateLimits(max_concurrency=2))
    active, peak = 0, 0
    lock = threading.Lock()

    async def batch() -> None:
        async def one() -> None:
            nonlocal active, peak
            async with limiter.slot():
                with lock:
                    active += 1
                    peak = max(peak, active)
                await asyncio.sleep(0.01)
                with lock:
                    active -= 1

        await asyncio.gather(*(one() for _ in range(8)))

    threads = [threading.Thread(target=lambda: asyncio.run(batch())) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert peak <= 2
    assert limiter.stats().granted == 24


async def test_rate_limit_pauses_everyone_then_recovers() -> None:
    limits = RateLimits(
        max_concurrency=8, rpm=100, window=0.5, recovery=0.3, tolerated_429_share=0.0
    )
    limiter = Limiter(limits)
    async with limiter.slot() as slot:
        pass
    limiter.on_rate_limit(slot, pause=0.2)
    paused_at = time.monotonic()
    assert limiter.stats().speed == pytest.approx(0.5, abs=0.01)
    scheduled: list[float] = []
    times = await grant_times(limiter, 5, scheduled=scheduled)
    assert times[0] - paused_at >= 0.19
    # the slower pace: gaps about twice the normal interval right after the pause
    gaps = [b - a for a, b in itertools.pairwise(scheduled)]
    assert min(gaps) >= (0.5 / 100 / 0.97) * 1.5
    await asyncio.sleep(0.35)
    assert limiter.stats().speed == 1.0


async def test_waiting_requests_move_behind_a_pause() -> None:
    limiter = Limiter(RateLimits(max_concurrency=10, rpm=10, window=1.0, tolerated_429_share=0.0))
    async with limiter.slot() as first:
        pass
    waiting = asyncio.create_task(grant_times(limiter, 3))
    await asyncio.sleep(0.02)  # they now hold slots 0.1, 0.2, 0.3 s ahead
    limiter.on_rate_limit(first, pause=0.4)
    paused_at = time.monotonic()
    times = await waiting
    assert times[0] - paused_at >= 0.39


async def test_one_burst_of_429s_slows_down_once() -> None:
    limiter = Limiter(RateLimits(max_concurrency=8, window=1.0))
    slots = [Slot(started=time.monotonic(), tokens=0) for _ in range(4)]
    for slot in slots:
        limiter.on_rate_limit(slot, pause=None)
    stats = limiter.stats()
    assert (stats.pauses, stats.slowdowns) == (4, 1)
    assert stats.speed == pytest.approx(0.5, abs=0.01)
    assert limiter._capacity() == 4  # the concurrency cap shrinks with the pace
    later = Slot(started=time.monotonic() + 0.001, tokens=0)
    limiter.on_rate_limit(later, pause=None)
    assert limiter.stats().slowdowns == 2
    assert limiter.stats().speed == pytest.approx(0.25, abs=0.01)


class WindowedProvider:
    """Answers 429 when more than ``limit`` requests arrived in the last ``window``
    seconds, like a provider enforcing a sliding-window rate limit."""

    name = "windowed"
    model = "m"

    def __init__(self, limit: int, window: float) -> None:
        self.limit, self.window = limit, window
        self.accepted: deque[float] = deque()
        self.accepted_all: list[float] = []
        self.rejected = 0
        self.call_times: list[float] = []

    async def complete(self, messages: list[ChatMessage], config: GenerateConfig) -> Generation:
        now = time.monotonic()
        self.call_times.append(now)
        while self.accepted and self.accepted[0] <= now - self.window:
            self.accepted.popleft()
        if len(self.accepted) >= self.limit:
            self.rejected += 1
            wait = self.accepted[0] + self.window - now
            raise ModelError("429", kind="rate_limit", status=429, retry_after=wait)
        self.accepted.append(now)
        self.accepted_all.append(now)
        await asyncio.sleep(0.005)
        return Generation(text="ok", usage=Usage(input_tokens=10, output_tokens=2), model="m")

    async def embed(self, texts: list[str]) -> EmbeddingResult:
        raise NotImplementedError


async def test_model_paced_to_a_provider_limit_gets_few_429s() -> None:
    window, limit = 0.5, 40
    provider = WindowedProvider(limit, window)
    settings = ModelSettings(
        max_concurrency=8, rpm=limit, rate_window=window, backoff_base=0.01, backoff_max=0.05
    )
    judge = JudgeModel(provider, settings=settings)
    started = time.monotonic()
    results = await asyncio.gather(
        *(judge.generate([{"role": "user", "content": str(i)}]) for i in range(100))
    )
    elapsed = time.monotonic() - started
    assert len(results) == 100
    assert provider.rejected <= 2  # at most 2 % of the calls
    achieved = 100 / elapsed * window
    assert achieved >= 0.9 * limit
    assert most_in_any_window(provider.accepted_all, window) <= limit


async def test_a_429_holds_back_the_other_callers() -> None:
    provider = WindowedProvider(limit=1, window=0.3)
    settings = ModelSettings(max_concurrency=4, backoff_base=0.01, backoff_max=0.02)
    judge = JudgeModel(provider, settings=settings)
    await judge.generate([{"role": "user", "content": "first"}])  # fills the window
    second = asyncio.create_task(judge.generate([{"role": "user", "content": "second"}]))
    await asyncio.sleep(0.05)
    assert provider.rejected == 1  # the second call was told to wait
    rejected_at = provider.call_times[1]
    retry_after = provider.accepted[0] + provider.window - rejected_at
    third = asyncio.create_task(judge.generate([{"role": "user", "content": "third"}]))
    await asyncio.gather(second, third)
    # The third caller arrived during the pause and made no attempt before it ended.
    assert len(provider.call_times) >= 4
    assert all(t >= rejected_at + retry_after - 0.01 for t in provider.call_times[2:])
    assert judge.limiter_stats().pauses == provider.rejected
    assert judge.usage.total().rate_limited == provider.rejected


async def test_a_rare_429_under_a_configured_rpm_delays_only_its_own_request() -> None:
    limiter = Limiter(RateLimits(max_concurrency=8, rpm=100, window=0.5))  # tolerates 2
    async with limiter.slot() as slot:
        pass
    limiter.on_rate_limit(slot, pause=5.0)
    limiter.on_rate_limit(slot, pause=5.0)
    stats = limiter.stats()
    assert stats.tolerated == 2 and stats.pauses == 0 and stats.slowdowns == 0
    assert stats.speed == pytest.approx(1.0)
    started = time.monotonic()
    async with limiter.slot():
        pass
    assert time.monotonic() - started < 1.0  # nobody waits for the 5 s Retry-After
    limiter.on_rate_limit(slot, pause=0.01)  # the third in the window: a real signal
    stats = limiter.stats()
    assert stats.pauses == 1 and stats.slowdowns == 1 and stats.speed < 1.0
