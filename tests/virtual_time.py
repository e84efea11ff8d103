"""Time in tests without the wall clock: an event loop whose clock only moves when every
task waits (:class:`VirtualTimeLoop`), a clock moved by hand (:class:`ManualClock`), a
sleep that notes the waits asked of it (:class:`RecordingSleep`), and the most events
in any window of time (:func:`most_in_any_window`).

In virtual time ``asyncio.sleep``, timeouts and timers take no real time and fire in
exact order, so a test can assert when something happened — not how long the machine
took. Only code that waits on the loop itself belongs there: while the loop waits for a
thread or a socket, its clock jumps to the next timer."""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class _JumpingSelector(selectors.DefaultSelector):
    """Never waits for a timer: when nothing is ready, moves the loop's clock to it."""

    def __init__(self, loop: VirtualTimeLoop) -> None:
        super().__init__()
        self._loop = loop

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        if timeout is None:  # no timer at all: only another thread can wake the loop
            return super().select(None)
        events = super().select(0)
        if not events:
            self._loop.now += timeout
        return events


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock starts at 0 and jumps to the next timer whenever every
    task is waiting: ``asyncio.sleep`` takes no real time, and timers fire in exact order."""

    def __init__(self) -> None:
        self.now = 0.0
        super().__init__(_JumpingSelector(self))

    def time(self) -> float:
        return self.now


def run_in_virtual_time(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` to completion in a :class:`VirtualTimeLoop`."""
    with asyncio.Runner(loop_factory=VirtualTimeLoop) as runner:
        return runner.run(main)


def loop_clock() -> Callable[[], float]:
    """The running loop's clock, to pace a limiter in the loop's (virtual) time."""
    return asyncio.get_running_loop().time


def now() -> float:
    """The running loop's (virtual) time."""
    return asyncio.get_running_loop().time()


class ManualClock:
    """A clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class RecordingSleep:
    """``asyncio.sleep`` that notes every wait it is asked for."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        await asyncio.sleep(seconds)


def most_in_any_window(times: list[float], window: float) -> int:
    """The most of the sorted ``times`` that fall in any half-open window of ``window``
    seconds."""
    best, start = 0, 0
    for end, t in enumerate(times):
        while times[start] <= t - window:
            start += 1
        best = max(best, end - start + 1)
    return best
