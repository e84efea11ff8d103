"""Requests already sent when their caller was cancelled (Ctrl-C): the provider will
bill them, so their replies are still awaited for a grace period and kept — cached
and recorded — so a resumed run finds them instead of paying again. A second
interruption abandons the wait (:func:`abandon_waiting`): each request is then
recorded as in flight."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["InFlight", "abandon_waiting"]

_LIVE: weakref.WeakSet[InFlight] = weakref.WeakSet()
"""Every :class:`InFlight` of the process, for :func:`abandon_waiting`."""


def abandon_waiting() -> None:
    """Stop waiting for the replies of every request adopted in this process, now and
    until each model's wait ends: the requests are cancelled and their ``finish`` runs
    (a second Ctrl-C, or a second stop signal)."""
    for waiting in list(_LIVE):
        waiting.abandon()


Finish = Callable[["asyncio.Future[Any]"], Awaitable[None]]
"""Called with the request's future once it is done (a result, an error, or cancelled
because the grace period ran out)."""


class InFlight:
    """The adopted requests of one model: each is awaited in the background, then its
    ``finish`` runs; :meth:`drain` waits for all of them (up to a grace period)."""

    def __init__(self) -> None:
        self._waiting: set[asyncio.Task[None]] = set()
        self._abandoned = False
        _LIVE.add(self)

    @property
    def count(self) -> int:
        """Requests still awaited."""
        return len(self._waiting)

    def adopt(self, request: asyncio.Future[Any], finish: Finish) -> None:
        """Keep awaiting ``request`` after its caller was cancelled, then ``finish``."""
        task = asyncio.ensure_future(_await_then_finish(request, finish))
        self._waiting.add(task)
        task.add_done_callback(self._waiting.discard)
        if self._abandoned:
            task.cancel()

    def abandon(self) -> None:
        """Stop waiting: the adopted requests are cancelled (safely from any thread),
        as are those adopted until :meth:`drain` ends."""
        self._abandoned = True
        for task in list(self._waiting):
            task.get_loop().call_soon_threadsafe(task.cancel)

    async def drain(self, grace: float) -> None:
        """Wait up to ``grace`` seconds for the adopted requests (not at all once
        abandoned); those still out are cancelled, and each one's ``finish`` still runs
        (it sees a cancelled request)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        try:
            while self._waiting:  # requests adopted meanwhile are waited for too
                waiting = set(self._waiting)
                left = 0.0 if self._abandoned else max(0.0, deadline - loop.time())
                _, late = await asyncio.wait(waiting, timeout=left)
                for task in late:
                    task.cancel()
                await asyncio.gather(*waiting, return_exceptions=True)
        finally:
            self._abandoned = False


async def _await_then_finish(request: asyncio.Future[Any], finish: Finish) -> None:
    try:
        await asyncio.wait({request})
    except asyncio.CancelledError:
        request.cancel()
        await asyncio.wait({request})
        await finish(request)
        raise
    await finish(request)
