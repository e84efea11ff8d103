"""How many calls of one model may be in flight: fixed, or following the limits and the
latency observed (Little's law), or growing with demand when no limit is known."""

from __future__ import annotations

import asyncio

import pytest

from ragjudge.models import Limiter, ModelSettings, RateLimits
from ragjudge.models._concurrency import (
    AUTO_CEILING,
    MIN_IN_FLIGHT,
    UNLIMITED_START,
    ConcurrencyTarget,
)


def test_a_number_given_is_kept_whatever_the_latency() -> None:
    target = ConcurrencyTarget(fixed=8, requests_per_second=100.0)
    target.observe(30.0, 0)
    assert target.value() == 8
    assert not target.grows


def test_under_a_request_limit_the_places_are_the_pace_times_the_latency_plus_the_burst() -> None:
    # 240 RPM at full headroom is 4 a second; 4 may start at once.
    target = ConcurrencyTarget(requests_per_second=4.0, requests_at_once=4.0)
    assert target.value() == 6 + 4  # before any reply: one second assumed, times 1.5
    for _ in range(200):
        target.observe(0.5, 0)
    assert target.value() == 3 + 4  # 4/s × 0.5 s × 1.5 = 3 in flight, plus the burst
    for _ in range(200):
        target.observe(10.0, 0)
    assert target.value() == 60 + 4  # slow replies: more in flight to keep the pace


def test_a_whole_window_let_out_at_once_needs_as_many_places_up_to_the_ceiling() -> None:
    limiter = Limiter(RateLimits(rpm=100, headroom=1.0))
    assert limiter.concurrency() == 100 + 3  # the window's 100 at once, plus the pace
    big = Limiter(RateLimits(rpm=10_000))
    assert big.concurrency() == AUTO_CEILING


def test_the_tighter_of_the_request_and_token_limits_decides() -> None:
    target = ConcurrencyTarget(
        requests_per_second=10.0,
        requests_at_once=10.0,
        tokens_per_second=1000.0,
        tokens_at_once=3000.0,
    )
    assert target.value() == 15 + 10  # no call sized yet: the request limit decides
    for _ in range(200):
        target.observe(1.0, 1000)
    # 1,000 tokens a second of 1,000-token calls: 1 call a second, 1 s each, 3 at once
    assert target.value() == 2 + 3


def test_a_limit_never_leaves_fewer_than_the_minimum_places() -> None:
    target = ConcurrencyTarget(requests_per_second=0.01, requests_at_once=1.0)
    for _ in range(200):
        target.observe(0.01, 0)
    assert target.value() == MIN_IN_FLIGHT


def test_without_a_limit_the_places_grow_with_demand_up_to_the_ceiling() -> None:
    target = ConcurrencyTarget()
    assert target.grows and target.value() == UNLIMITED_START
    for _ in range(1000):
        target.grow()
    assert target.value() == AUTO_CEILING


def test_the_settings_adapt_by_default_and_keep_a_number_given() -> None:
    assert ModelSettings().max_concurrency == "auto"
    assert ModelSettings().fixed_concurrency is None
    assert ModelSettings(max_concurrency=3).fixed_concurrency == 3
    with pytest.raises(ValueError):
        ModelSettings(max_concurrency=0)


def test_a_limiter_without_limits_lets_more_calls_in_while_they_wait() -> None:
    limiter = Limiter()
    calls = UNLIMITED_START + 100

    async def main() -> None:
        async def one() -> None:
            async with limiter.slot():
                await asyncio.sleep(0.01)

        await asyncio.gather(*(one() for _ in range(calls)))

    asyncio.run(main())
    stats = limiter.stats()
    assert stats.granted == calls
    assert stats.concurrency > UNLIMITED_START  # calls ended while others waited
    assert stats.max_in_flight > UNLIMITED_START


def test_a_rate_limit_answer_halves_the_places_with_the_pace() -> None:
    limiter = Limiter(RateLimits(tolerated_429_share=0.0))
    before = limiter.concurrency()

    async def main() -> None:
        async with limiter.slot() as slot:
            limiter.on_rate_limit(slot, None)

    asyncio.run(main())
    assert limiter.concurrency() == before // 2
    assert limiter.stats().concurrency == before // 2
