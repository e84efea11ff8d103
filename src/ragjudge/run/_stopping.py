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

:class:`Stopping` runs the coroutine, raises ``KeyboardInterrupt`` once it is stopped
and says which signal came first; the command exits with 128 plus its number (130, 143,
129), as a shell reports a process ended by it. A signal the process ignores (SIGHUP
under ``nohup``) stays ignored.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Coroutine
from types import FrameType
from typing import Any, TypeVar

from ragjudge.models._inflight import abandon_waiting

__all__ = ["STOP_SIGNALS", "Stopping"]

T = TypeVar("T")

STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""The signals that stop a run (SIGHUP does not exist on Windows)."""


class Stopping:
    """Runs a coroutine that the :data:`STOP_SIGNALS` stop as the module says."""

    def __init__(self) -> None:
        self.signum: int | None = None
        """The first signal received."""
        self._taken_up = False
        """Whether the loop has cancelled the run for the first signal."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None

    @property
    def signal_name(self) -> str:
        """The first signal's name (``SIGINT`` when none came: Python's own Ctrl-C)."""
        return signal.Signals(self.signum or signal.SIGINT).name

    @property
    def exit_code(self) -> int:
        """128 plus the first signal's number, as a shell reports a process it ended."""
        return 128 + (self.signum or signal.SIGINT)

    def run(self, main: Coroutine[Any, Any, T]) -> T:
        """``asyncio.run(main)``; ``KeyboardInterrupt`` when a signal stopped it. Call it
        from the main thread."""
        previous = {
            sig: signal.signal(sig, self._on_signal)
            for sig in STOP_SIGNALS
            if signal.getsignal(sig) is not signal.SIG_IGN
        }
        try:
            return asyncio.run(self._guard(main))
        except asyncio.CancelledError:
            if self.signum is None:
                raise
            raise KeyboardInterrupt from None
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, signal.SIG_DFL if handler is None else handler)

    async def _guard(self, main: Coroutine[Any, Any, T]) -> T:
        """Await ``main`` as the task the first signal cancels."""
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        if self.signum is not None:  # a signal came before the loop ran
            main.close()
            raise asyncio.CancelledError
        return await main

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        """Runs in the main thread between two bytecodes: it hands the work to the
        loop, unless the loop is held by work that does not yield."""
        if self.signum is None:
            self.signum = signum
            self._call_in_loop(self._cancel)
        elif not self._taken_up:
            raise KeyboardInterrupt
        else:
            self._call_in_loop(abandon_waiting)

    def _cancel(self) -> None:
        self._taken_up = True
        if self._task is not None:
            self._task.cancel()

    def _call_in_loop(self, work: Any) -> None:
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(work)
