"""Stopping a run from outside the process. Ctrl-C (SIGINT), SIGTERM (a cancelled CI
job, ``timeout``, ``docker stop``, Kubernetes) and SIGHUP (a closed terminal or SSH
connection) stop ``ragjudge run`` the same way:

1. the first cancels the run: what finished is stored, the run is marked interrupted,
   and the replies to requests already sent are awaited for the judge's
   ``in_flight_grace`` and recorded (they are paid for);
2. a later one abandons that wait: the requests still out are recorded as in flight.
   While the event loop has not taken the first one up — it is held by work that does
   not yield, such as reading a large evaluation set — a second one ends that work at
   once instead.

:class:`Stopped` then says which signal came first; the command exits with 128 plus its
number (130, 143, 129), as a shell reports a process ended by it. A signal the process
ignores (SIGHUP under ``nohup``) stays ignored.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Coroutine
from types import FrameType
from typing import Any, TypeVar

from ragjudge.models._inflight import abandon_waiting

__all__ = ["STOP_SIGNALS", "Stopped", "run_until_stopped"]

T = TypeVar("T")

STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""The signals that stop a run (SIGHUP does not exist on Windows)."""


class Stopped(KeyboardInterrupt):
    """A run stopped by a signal; finished results are stored."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def signal_name(self) -> str:
        """``SIGINT``, ``SIGTERM`` …"""
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        """128 plus the signal's number, as a shell reports a process it ended."""
        return 128 + self.signum


class _Stop:
    """The signals received while a run executes, and what each one does."""

    def __init__(self) -> None:
        self.signum: int | None = None
        """The first signal received."""
        self._taken_up = False
        """Whether the loop has cancelled the run for the first signal."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None

    async def guard(self, main: Coroutine[Any, Any, T]) -> T:
        """Await ``main`` as the task the first signal cancels."""
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        if self.signum is not None:  # a signal came before the loop ran
            main.close()
            raise asyncio.CancelledError
        return await main

    def on_signal(self, signum: int, frame: FrameType | None) -> None:
        """Runs in the main thread between two bytecodes: it hands the work to the
        loop, unless the loop is held by work that does not yield."""
        if self.signum is None:
            self.signum = signum
            self._call_in_loop(self._cancel)
        elif not self._taken_up:
            raise Stopped(self.signum)
        else:
            self._call_in_loop(abandon_waiting)

    def _cancel(self) -> None:
        self._taken_up = True
        if self._task is not None:
            self._task.cancel()

    def _call_in_loop(self, work: Any) -> None:
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(work)


def run_until_stopped(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``, stopped by the :data:`STOP_SIGNALS` as the module says;
    :class:`Stopped` when a signal cancelled it. Call it from the main thread."""
    stop = _Stop()
    previous = {
        sig: signal.signal(sig, stop.on_signal)
        for sig in STOP_SIGNALS
        if signal.getsignal(sig) is not signal.SIG_IGN
    }
    try:
        return asyncio.run(stop.guard(main))
    except asyncio.CancelledError:
        if stop.signum is None:
            raise
        raise Stopped(stop.signum) from None
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)
