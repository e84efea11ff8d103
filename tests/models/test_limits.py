"""Concurrency cap, RPM/TPM pacing and the reaction to rate-limit answers.

Tests that look at time run in virtual time (:mod:`virtual_time`): the clock only
moves when every task is waiting, so the times at which requests are admitted are exact
and do not depend on how busy the machine is."""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable

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
from ragjudge.models._budget import SEND_JITTER, WINDOW_MARGIN
from ragjudge.models._limits import Slot
from ragjudge.models._types import ChatMessage, EmbeddingResult
from ragjudge.schema import Usage
from virtual_time import (
    ManualClock,
    RecordingSleep,
    loop_clock,
    most_in_any_window,
    now,
    run_in_virtual_time,
)


async def grant_times(
    limiter: Limiter, n: int, clock: Callable[[], float], tokens: int = 0
) -> list[float]:
    """When ``n`` concurrent requests got through, by ``clock``, sorted."""
    times: list[float] = []

    async def one() -> None:
        async with limiter.slot(tokens):
            times.append(clock())

    await asyncio.gather(*(one() for _ in range(n)))
    return sorted(times)


def test_limits_are_validated() -> None:
    for bad in ({"max_concurrency": 0}, {"rpm": 0}, {"tpm": -1}, {"window": 0}, {"slowdown": 2}):
        with pytest.raises(ValueError):
            RateLimits(**bad)


def test_rpm_pacing_keeps_the_limit_busy_without_exceeding_it() -> None:
    window, rpm = 0.5, 20
    interval = window / (rpm * 0.97)  # the default headroom aims at 97 % of the limit

    async def main() -> list[float]:
        limiter = Limiter(
            RateLimits(max_concurrency=50, rpm=rpm, window=window, burst=1), clock=loop_clock()
        )
        return await grant_times(limiter, 41, loop_clock())

    times = run_in_virtual_time(main())
    # burst 1: evenly spaced from the first request on
    assert times == pytest.approx([n * interval for n in range(41)])
    assert most_in_any_window(times, window) == rpm  # the limit, used to the full
    achieved = (len(times) - 1) / (times[-1] - times[0]) * window
    assert achieved == pytest.approx(0.97 * rpm)


def test_tpm_window_and_settling_real_usage() -> None:
    window, tpm = 0.5, 1000
    limits = RateLimits(max_concurrency=50, tpm=tpm, window=window, headroom=1.0)

    async def main() -> tuple[list[float], list[float]]:
        limiter = Limiter(limits, clock=loop_clock())
        times = await grant_times(limiter, 11, loop_clock(), tokens=100)  # 10 fill the window
        slots = []
        for _ in range(9):  # the window (from 0.5 on) is full again
            async with limiter.slot(100) as slot:
                slots.append(slot)
        # Requests that used half their estimate free their unused share of the window.
        for slot in slots[:2]:
            limiter.settle(slot, used_tokens=50)
        later = []
        for _ in range(2):
            async with limiter.slot(100):
                later.append(now())
        return times, later

    times, later = run_in_virtual_time(main())
    assert times == pytest.approx([0.0] * 10 + [0.5])
    assert later == pytest.approx([0.5, 1.0])


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


def test_rate_limit_pauses_everyone_then_recovers() -> None:
    window, rpm, pause, recovery = 0.5, 100, 0.2, 0.3
    limits = RateLimits(
        max_concurrency=8, rpm=rpm, window=window, recovery=recovery, tolerated_429_share=0.0
    )
    interval = window / (rpm * 0.97)

    async def main() -> tuple[float, float, list[float], float]:
        limiter = Limiter(limits, clock=loop_clock())
        async with limiter.slot() as slot:
            pass
        limiter.on_rate_limit(slot, pause=pause)
        paused_at = now()
        speed_in_pause = limiter.stats().speed
        times = await grant_times(limiter, 5, loop_clock())
        await asyncio.sleep(pause + recovery)
        return paused_at, speed_in_pause, times, limiter.stats().speed

    paused_at, speed_in_pause, times, speed_after = run_in_virtual_time(main())
    assert speed_in_pause == 0.5
    # Nobody starts before the pause ends; then the pace climbs from half back to full
    # over ``recovery`` seconds.
    resume = paused_at + pause
    expected = [resume]
    for _ in range(4):
        speed = 0.5 + 0.5 * (expected[-1] - resume) / recovery
        expected.append(expected[-1] + interval / speed)
    assert times == pytest.approx(expected)
    assert speed_after == 1.0


def test_waiting_requests_move_behind_a_pause() -> None:
    window, rpm, pause = 1.0, 10, 0.4
    interval = window / (rpm * 0.97)
    sleep = RecordingSleep()

    async def main() -> tuple[float, list[float]]:
        limits = RateLimits(
            max_concurrency=10, rpm=rpm, window=window, tolerated_429_share=0.0, burst=1
        )
        limiter = Limiter(limits, clock=loop_clock(), sleep=sleep)
        async with limiter.slot() as first:
            pass
        waiting = asyncio.create_task(grant_times(limiter, 3, loop_clock()))
        await asyncio.sleep(0.02)  # they now hold slots 1, 2 and 3 intervals ahead
        limiter.on_rate_limit(first, pause=pause)
        paused_at = now()
        return paused_at, await waiting

    paused_at, times = run_in_virtual_time(main())
    # Each first wakes a little before its start, in case a request told meanwhile when
    # it left (the window's margin would then have narrowed); none did.
    lead = min(window / 0.97, window + WINDOW_MARGIN) - min(window / 0.97, window + SEND_JITTER)
    firsts = [interval - lead, 2 * interval - lead, 3 * interval - lead]
    assert sleep.waits[:3] == pytest.approx(firsts)
    assert times[0] == pytest.approx(paused_at + pause)


def test_one_burst_of_429s_slows_down_once() -> None:
    clock = ManualClock()
    limiter = Limiter(RateLimits(max_concurrency=8, window=1.0), clock=clock)
    slots = [Slot(started=clock.now, tokens=0) for _ in range(4)]
    clock.advance(0.01)  # the four 429s arrive after all four requests started
    for slot in slots:
        limiter.on_rate_limit(slot, pause=None)
    stats = limiter.stats()
    assert (stats.pauses, stats.slowdowns) == (4, 1)
    assert stats.speed == 0.5
    assert limiter._capacity() == 4  # the concurrency cap shrinks with the pace
    later = Slot(started=clock.now + 0.001, tokens=0)
    limiter.on_rate_limit(later, pause=None)
    assert limiter.stats().slowdowns == 2
    assert limiter.stats().speed == 0.25


class WindowedProvider:
    """Answers 429 when more than ``limit`` requests arrived in the last ``window``
    seconds of ``clock``, like a provider enforcing a sliding-window rate limit."""

    name = "windowed"
    model = "m"

    def __init__(self, limit: int, window: float, clock: Callable[[], float]) -> None:
        self.limit, self.window, self.clock = limit, window, clock
        self.accepted: deque[float] = deque()
        self.accepted_all: list[float] = []
        self.rejected = 0
        self.call_times: list[float] = []

    async def complete(self, messages: list[ChatMessage], config: GenerateConfig) -> Generation:
        now = self.clock()
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


def judge_in_loop_time(provider: WindowedProvider, settings: ModelSettings) -> JudgeModel:
    """A judge over ``provider`` whose limiter paces in the running loop's time."""
    judge = JudgeModel(provider, settings=settings)
    judge.limiter = Limiter(judge.limiter.limits, clock=loop_clock())
    return judge


def test_model_paced_to_a_provider_limit_gets_no_429s() -> None:
    window, limit = 0.5, 40
    interval = window / (limit * 0.97)
    settings = ModelSettings(
        max_concurrency=8,
        rpm=limit,
        rate_window=window,
        burst=1,
        backoff_base=0.01,
        backoff_max=0.05,
    )

    async def main() -> tuple[WindowedProvider, int]:
        provider = WindowedProvider(limit, window, loop_clock())
        judge = judge_in_loop_time(provider, settings)
        results = await asyncio.gather(
            *(judge.generate([{"role": "user", "content": str(i)}]) for i in range(100))
        )
        return provider, len(results)

    provider, answered = run_in_virtual_time(main())
    assert answered == 100
    assert provider.rejected == 0
    assert provider.accepted_all == pytest.approx([n * interval for n in range(100)])
    assert most_in_any_window(provider.accepted_all, window) < limit


def test_a_429_holds_back_the_other_callers() -> None:
    window = 0.3
    settings = ModelSettings(max_concurrency=4, backoff_base=0.01, backoff_max=0.02)

    async def main() -> tuple[WindowedProvider, JudgeModel]:
        provider = WindowedProvider(limit=1, window=window, clock=loop_clock())
        judge = judge_in_loop_time(provider, settings)
        await judge.generate([{"role": "user", "content": "first"}])  # fills the window
        second = asyncio.create_task(judge.generate([{"role": "user", "content": "second"}]))
        await asyncio.sleep(0.05)
        assert provider.rejected == 1  # the second call was told to wait
        third = asyncio.create_task(judge.generate([{"role": "user", "content": "third"}]))
        await asyncio.gather(second, third)
        return provider, judge

    provider, judge = run_in_virtual_time(main())
    first_at, rejected_at = provider.call_times[:2]
    window_frees_at = first_at + window
    assert rejected_at < window_frees_at
    # The third caller arrived during the pause and made no attempt before it ended;
    # nor did the second one retry earlier.
    assert len(provider.call_times) >= 4
    assert min(provider.call_times[2:]) == pytest.approx(window_frees_at)
    assert judge.limiter_stats().pauses == provider.rejected
    assert judge.usage.total().rate_limited == provider.rejected


def test_a_rare_429_under_a_configured_rpm_delays_only_its_own_request() -> None:
    window, rpm = 0.5, 100  # tolerates 2 rate-limit answers per window
    sleep = RecordingSleep()

    async def main() -> None:
        limiter = Limiter(
            RateLimits(max_concurrency=8, rpm=rpm, window=window, burst=1),
            clock=loop_clock(),
            sleep=sleep,
        )
        async with limiter.slot() as slot:
            pass
        limiter.on_rate_limit(slot, pause=5.0)
        limiter.on_rate_limit(slot, pause=5.0)
        stats = limiter.stats()
        assert stats.tolerated == 2 and stats.pauses == 0 and stats.slowdowns == 0
        assert stats.speed == 1.0
        async with limiter.slot():
            pass
        # nobody waits for the 5 s Retry-After: the next request only keeps the pace
        assert sleep.waits == pytest.approx([window / (rpm * 0.97)])
        limiter.on_rate_limit(slot, pause=0.01)  # the third in the window: a real signal
        stats = limiter.stats()
        assert stats.pauses == 1 and stats.slowdowns == 1 and stats.speed < 1.0

    run_in_virtual_time(main())
