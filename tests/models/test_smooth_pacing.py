"""Smooth pacing is the default under ``rpm``: at most one second's share of the limit
starts at once; ``burst: window`` asks for the whole window's budget at once, and a
number for that many. Times are virtual (see ``test_limits``)."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError
from test_limits import grant_times

from ragjudge.models import JudgeModel, Limiter, ModelSettings
from ragjudge.models.scripted import ReplyScript, ScriptedProvider
from virtual_time import loop_clock, most_in_any_window, run_in_virtual_time


@pytest.mark.parametrize(
    ("settings", "burst"),
    [
        ({"rpm": 600}, 10),
        ({"rpm": 30}, 1),
        ({"rpm": 90}, 2),
        ({"rpm": 600, "rate_window": 1.0}, 600),
        ({"rpm": 600, "burst": "window"}, None),
        ({"rpm": 600, "burst": 4}, 4),
        ({}, None),
    ],
)
def test_the_burst_the_limiter_is_given(settings: dict[str, object], burst: int | None) -> None:
    judge = JudgeModel(
        ScriptedProvider(ReplyScript(default="yes")), settings=ModelSettings(**settings)
    )
    assert isinstance(judge.limiter, Limiter)
    assert judge.limiter.limits.burst == burst


def test_a_burst_without_rpm_is_refused() -> None:
    with pytest.raises(ValidationError, match="set rpm too"):
        ModelSettings(burst="window")


def starts(settings: ModelSettings, n: int) -> list[float]:
    """When ``n`` requests waiting at once start, in virtual seconds."""

    async def main() -> list[float]:
        judge = JudgeModel(ScriptedProvider(ReplyScript(default="yes")), settings=settings)
        limiter = Limiter(judge.limiter.limits, clock=loop_clock())  # type: ignore[attr-defined]
        return await grant_times(limiter, n, asyncio.get_running_loop().time)

    return run_in_virtual_time(main())


def test_by_default_no_second_holds_more_than_its_share() -> None:
    times = starts(ModelSettings(rpm=120, max_concurrency=50), 20)
    assert most_in_any_window(times, 1.0) <= 2
    assert times[-1] >= 8.0  # 20 requests at 2 a second, not all at once


def test_the_window_burst_is_asked_for() -> None:
    times = starts(ModelSettings(rpm=120, max_concurrency=50, burst="window"), 20)
    assert times[-1] - times[0] < 0.1  # they fit the window: all start at once
