"""When a request leaves: the rate windows count each request from then, with a margin
for network jitter only, instead of from its permit plus a fixed margin; and the
OpenAI-compatible provider tells the moment its headers go out. Limiter times are
virtual (see ``test_limits``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from test_limits import grant_times

from ragjudge.models import Limiter, ModelSettings, RateLimits, get_model
from ragjudge.models._budget import BURST_MARGIN, SEND_JITTER, WINDOW_MARGIN
from ragjudge.models._send_times import reporting_sends, trace_departure
from ragjudge.models.scripted import ReplyScript
from ragjudge.testing.server import OpenAITestServer
from virtual_time import loop_clock, most_in_any_window, run_in_virtual_time

WINDOW, RPM = 60.0, 10


async def sends(limiter: Limiter, delays: list[float], clock: Callable[[], float]) -> list[float]:
    """One request per delay, each leaving that many seconds after its permit (and
    reported then); when the requests left, sorted."""
    left: list[float] = []

    async def one(delay: float) -> None:
        async with limiter.slot() as slot:
            report = limiter.send_reporter(slot)
            assert report is not None
            await asyncio.sleep(delay)
            report()
            left.append(clock())

    await asyncio.gather(*(one(d) for d in delays))
    return sorted(left)


def minute_limiter() -> Limiter:
    return Limiter(RateLimits(max_concurrency=50, rpm=RPM, window=WINDOW), clock=loop_clock())


def two_windows(delays: list[float]) -> list[float]:
    """When the requests of a full window (leaving ``delays`` after their permits) and
    of the next one (leaving at once) left, sorted."""

    async def main() -> list[float]:
        limiter = minute_limiter()
        first = await sends(limiter, delays, loop_clock())
        return first + await sends(limiter, [0.0] * RPM, loop_clock())

    return run_in_virtual_time(main())


def test_requests_that_leave_at_once_free_the_window_sooner_than_the_fixed_margin() -> None:
    async def main() -> list[float]:
        limiter = minute_limiter()
        first = await sends(limiter, [0.005] * RPM, loop_clock())
        later = await grant_times(limiter, 1, loop_clock())
        assert limiter.stats().longest_send_delay == pytest.approx(0.005)
        return first + later

    times = run_in_virtual_time(main())
    assert times[-1] == pytest.approx(WINDOW + 0.005 + SEND_JITTER)
    assert times[-1] < WINDOW + WINDOW_MARGIN


def test_a_slow_handshake_holds_back_only_the_start_after_its_own_request() -> None:
    # The first request leaves 0.3 s after its permit (a TLS handshake to a distant
    # provider): a fixed 0.1 s margin would let the next window's first request reach
    # the provider while that one is still in the provider's window. Counted from when
    # it left, it holds back one start of the next window, not all of them.
    left = two_windows([0.3] + [0.0] * (RPM - 1))
    assert most_in_any_window(left, WINDOW) == RPM
    assert left[RPM : 2 * RPM - 1] == pytest.approx([WINDOW + SEND_JITTER] * (RPM - 1))
    assert left[-1] == pytest.approx(WINDOW + 0.3 + SEND_JITTER)


def test_a_start_taken_before_any_request_left_counts_from_their_departures() -> None:
    # The eleventh asks while the window's ten are still on their way: its start is
    # first counted from their permits with the wide margin. Once they tell when they
    # left, it is counted from then: sooner when they left at once, later (and the
    # window kept) when they left later than that margin covers.
    def last_left(delay: float) -> tuple[float, int]:
        async def main() -> list[float]:
            return await sends(minute_limiter(), [delay] * RPM + [0.0], loop_clock())

        left = run_in_virtual_time(main())
        return left[-1], most_in_any_window(left, WINDOW)

    prompt = last_left(0.005)
    assert prompt == (pytest.approx(0.005 + WINDOW + SEND_JITTER), RPM)
    assert prompt[0] < WINDOW + WINDOW_MARGIN
    assert last_left(0.3) == (pytest.approx(0.3 + WINDOW + SEND_JITTER), RPM)


def test_a_start_taken_before_any_request_left_keeps_the_margin_when_none_tells() -> None:
    async def main() -> list[float]:
        return await grant_times(minute_limiter(), RPM + 1, loop_clock())

    assert run_in_virtual_time(main())[-1] == pytest.approx(WINDOW + WINDOW_MARGIN)


def test_requests_leaving_out_of_order_keep_the_window_in_time_order() -> None:
    # Later permits whose requests leave first: each counts from its own departure.
    left = two_windows([0.04, 0.03, 0.02, 0.01] + [0.0] * (RPM - 4))
    assert most_in_any_window(left, WINDOW) == RPM
    assert left[RPM:] == pytest.approx(sorted(t + WINDOW + SEND_JITTER for t in left[:RPM]))


def test_the_short_window_of_a_burst_counts_from_the_departures_too() -> None:
    window, rpm, burst = 0.5, 20, 5
    interval = window / (rpm * 0.97)

    async def main() -> tuple[list[float], list[float]]:
        limits = RateLimits(max_concurrency=50, rpm=rpm, window=window, burst=burst)
        limiter = Limiter(limits, clock=loop_clock())
        before = await grant_times(limiter, burst + 1, loop_clock())
        limiter = Limiter(limits, clock=loop_clock())
        start = loop_clock()()
        await sends(limiter, [0.002] * burst, loop_clock())
        after = await grant_times(limiter, 1, loop_clock())
        return before, [t - start for t in after]

    before, after = run_in_virtual_time(main())
    assert before[-1] == pytest.approx(burst * interval + BURST_MARGIN)
    assert after[-1] == pytest.approx(0.002 + burst * interval + SEND_JITTER)


def test_without_a_rate_window_nobody_asks_when_requests_leave() -> None:
    async def main() -> None:
        limiter = Limiter(RateLimits(max_concurrency=4), clock=loop_clock())
        async with limiter.slot() as slot:
            assert limiter.send_reporter(slot) is None
        assert limiter.stats().longest_send_delay is None

    run_in_virtual_time(main())


def test_a_task_created_inside_traces_its_headers_to_the_attempt_s_reporter() -> None:
    seen: list[str] = []

    async def attempt() -> dict[str, Any]:
        extensions: dict[str, Any] = {}
        trace_departure(extensions)
        if "trace" in extensions:
            await extensions["trace"]("http11.send_request_body.started", {})
            await extensions["trace"]("http11.send_request_headers.started", {})
        return extensions

    async def main() -> dict[str, Any]:
        with reporting_sends(lambda: seen.append("left")):
            task = asyncio.ensure_future(attempt())
        outside = asyncio.ensure_future(attempt())
        await task
        return await outside

    assert asyncio.run(main()) == {}  # nobody asked outside: no trace
    assert seen == ["left"]  # once, for the headers only


@pytest.fixture
def server() -> Iterator[OpenAITestServer]:
    with OpenAITestServer(replies=ReplyScript(default="[RESULT] 4")) as running:
        yield running


@pytest.mark.parametrize("rpm", [600, None])
def test_the_openai_compatible_provider_tells_when_its_headers_go_out(
    server: OpenAITestServer, rpm: int | None
) -> None:
    async def main() -> float | None:
        judge = get_model(
            "openai/judge",
            base_url=server.base_url,
            api_key="k",
            settings=ModelSettings(rpm=rpm, cache=False),
        )
        try:
            await judge.generate([{"role": "user", "content": "Grade this."}])
            await judge.embed(["one text"])
        finally:
            await judge.aclose()
        return judge.limiter_stats().longest_send_delay

    delay = asyncio.run(main())
    if rpm is None:
        assert delay is None
    else:
        assert delay is not None and 0.0 <= delay < 5.0
