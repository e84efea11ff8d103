"""The rate budget at the provider's true limit: a workload that fits the window goes
out at once, ``burst`` caps shorter periods, and the permit interface a shared budget
can implement. Times are virtual (see ``test_limits``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from pydantic import ValidationError
from test_limits import WindowedProvider, grant_times, judge_in_loop_time

from ragjudge.config import JudgeConfig
from ragjudge.models import (
    JudgeModel,
    Limiter,
    LimiterStats,
    ModelError,
    ModelSettings,
    PermitSource,
    RateLimits,
)
from ragjudge.models._budget import BURST_MARGIN, WINDOW_MARGIN
from ragjudge.models._limits import Slot
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from virtual_time import loop_clock, most_in_any_window, run_in_virtual_time

HEADROOM = 0.97


def test_a_workload_that_fits_the_window_goes_out_at_once() -> None:
    window, rpm = 0.5, 20
    span = window / HEADROOM  # the window, stretched by the headroom

    async def main() -> list[float]:
        limiter = Limiter(
            RateLimits(max_concurrency=50, rpm=rpm, window=window), clock=loop_clock()
        )
        return await grant_times(limiter, 41, loop_clock())

    times = run_in_virtual_time(main())
    assert times == pytest.approx([0.0] * 20 + [span] * 20 + [2 * span])
    assert most_in_any_window(times, window) == rpm


def test_a_minute_is_stretched_by_a_fixed_margin_not_by_the_headroom() -> None:
    window, rpm = 60.0, 10

    async def main() -> list[float]:
        limiter = Limiter(
            RateLimits(max_concurrency=50, rpm=rpm, window=window), clock=loop_clock()
        )
        return await grant_times(limiter, 21, loop_clock())

    times = run_in_virtual_time(main())
    # 60.1 s rather than 60 / 0.97 = 61.9 s: the next window's work is not held back
    span = window + WINDOW_MARGIN
    assert times == pytest.approx([0.0] * 10 + [span] * 10 + [2 * span])
    assert most_in_any_window(times, window) == rpm


def test_burst_caps_every_shorter_period_too() -> None:
    window, rpm, burst = 0.5, 20, 5
    # stretched by the headroom and by a margin for requests that start together
    short = window * burst / rpm / HEADROOM + BURST_MARGIN

    async def main() -> list[float]:
        limits = RateLimits(max_concurrency=50, rpm=rpm, window=window, burst=burst)
        limiter = Limiter(limits, clock=loop_clock())
        return await grant_times(limiter, 25, loop_clock())

    times = run_in_virtual_time(main())
    assert times == pytest.approx([n * short for n in range(5) for _ in range(burst)])
    assert most_in_any_window(times, window * burst / rpm) == burst
    assert most_in_any_window(times, window) <= rpm


def calls(judge: JudgeModel, n: int) -> list[asyncio.Task[object]]:
    return [
        asyncio.ensure_future(judge.generate([{"role": "user", "content": str(i)}]))
        for i in range(n)
    ]


def run_against(
    provider_limit: int, provider_window: float, settings: ModelSettings
) -> tuple[WindowedProvider, float, LimiterStats]:
    """100 calls through a judge against a provider that allows ``provider_limit``
    requests per sliding ``provider_window``; the provider, the virtual wall time and
    the limiter's counters."""

    async def main() -> tuple[WindowedProvider, float, LimiterStats]:
        provider = WindowedProvider(provider_limit, provider_window, loop_clock())
        judge = judge_in_loop_time(provider, settings)
        results = await asyncio.gather(*calls(judge, 100))
        assert len(results) == 100
        return provider, loop_clock()(), judge.limiter_stats()

    return run_in_virtual_time(main())


QUICK_RETRIES = {"backoff_base": 0.01, "backoff_max": 0.05}


def test_the_default_burst_uses_a_window_provider_to_the_full_without_429s() -> None:
    window, limit = 0.5, 40
    common = {"max_concurrency": 8, "rpm": limit, "rate_window": window, **QUICK_RETRIES}
    bursting, bursting_wall, _ = run_against(limit, window, ModelSettings(**common))
    even, even_wall, _ = run_against(limit, window, ModelSettings(**common, burst=1))
    assert bursting.rejected == even.rejected == 0
    assert most_in_any_window(bursting.accepted_all, window) == limit
    # 100 calls: two full windows, then the rest — no pacing inside a window
    assert bursting_wall == pytest.approx(2 * window / HEADROOM + 20 * 0.005 / 8, abs=0.02)
    assert bursting_wall < even_wall - 0.2


def test_burst_matches_a_provider_that_counts_over_shorter_periods() -> None:
    # 40 per 0.5 s, enforced as 4 per 0.05 s
    settings = ModelSettings(max_concurrency=8, rpm=40, rate_window=0.5, burst=4, **QUICK_RETRIES)
    provider, _, stats = run_against(4, 0.05, settings)
    assert provider.rejected == 0 and stats.pauses == 0
    assert most_in_any_window(provider.accepted_all, 0.05) <= 4


def test_without_burst_a_shorter_period_provider_is_learnt_from_its_429s() -> None:
    settings = ModelSettings(max_concurrency=8, rpm=40, rate_window=0.5, **QUICK_RETRIES)
    provider, _, stats = run_against(4, 0.05, settings)
    # every call was answered: the refused requests waited and tried again, and the
    # limiter paused and slowed down rather than keep bursting
    assert len(provider.accepted_all) == 100
    assert provider.rejected > 0
    assert stats.pauses + stats.tolerated == provider.rejected
    assert stats.slowdowns >= 1


def test_burst_needs_an_rpm_and_is_a_count() -> None:
    with pytest.raises(ValidationError, match="set rpm too"):
        ModelSettings(burst=4)
    with pytest.raises(ValidationError):
        ModelSettings(rpm=240, burst=0)
    with pytest.raises(ValueError, match="burst"):
        RateLimits(tpm=1000, burst=2)
    judge = JudgeConfig.model_validate({"model": "scripted", "rpm": 240, "burst": 4})
    assert (
        JudgeModel(
            ScriptedProvider(),
            settings=ModelSettings(**judge.model_dump(include=set(ModelSettings.model_fields))),
        ).limiter.limits.burst
        == 4
    )  # type: ignore[attr-defined]


class CountingPermits:
    """A stand-in permit source, as a budget shared by many processes would be: it
    counts what the judge layer asks of it."""

    def __init__(self) -> None:
        self.acquired = 0
        self.settled: list[int] = []
        self.refused: list[float | None] = []

    @asynccontextmanager
    async def slot(self, tokens: int = 0) -> AsyncIterator[Slot]:
        self.acquired += 1
        yield Slot(started=0.0, tokens=tokens)

    def settle(self, slot: Slot, used_tokens: int) -> None:
        self.settled.append(used_tokens)

    def on_rate_limit(self, slot: Slot, pause: float | None) -> None:
        self.refused.append(pause)

    def stats(self) -> LimiterStats:
        return LimiterStats(
            granted=self.acquired, waited=0.0, pauses=len(self.refused), slowdowns=0,
            speed=1.0, in_flight=0, max_in_flight=0,
        )  # fmt: skip


async def test_any_permit_source_can_stand_in_for_the_limiter() -> None:
    assert isinstance(Limiter(), PermitSource)
    permits = CountingPermits()
    assert isinstance(permits, PermitSource)
    refusal = ModelError("429", kind="rate_limit", status=429, retry_after=0.01)
    provider = ScriptedProvider(ReplyScript(default="fine"), errors=[refusal])
    judge = JudgeModel(provider, settings=ModelSettings(backoff_base=0.0, backoff_max=0.0))
    judge.limiter = permits
    reply = await judge.generate([{"role": "user", "content": "hi"}])
    assert reply.text == "fine" and reply.attempts == 2
    assert permits.acquired == 2  # one permit per attempt
    assert permits.refused == [0.01]  # the 429 and its Retry-After were reported
    assert len(permits.settled) == 1 and permits.settled[0] > 0
    assert judge.limiter_stats().granted == 2
