"""Requests already sent when their caller was cancelled (Ctrl-C): the provider will
bill them, so their replies are still awaited for a grace period and kept — cached
and recorded — so a resumed run finds them instead of paying again."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["InFlight"]

Finish = Callable[["asyncio.Future[Any]"], Awaitable[None]]
"""Called with the request's future once it is done (a result, an error, or cancelled
because the grace period ran out)."""


class InFlight:
    """The adopted requests of one model: each is awaited in the background, then its
    ``finish`` runs; :meth:`drain` waits for all of them (up to a grace period)."""

    def __init__(self) -> None:
        self._waiting: set[asyncio.Task[None]] = set()

    @property
    def count(self) -> int:
        """Requests still awaited."""
        return len(self._waiting)

    def adopt(self, request: asyncio.Future[Any], finish: Finish) -> None:
        """Keep awaiting ``request`` after its caller was cancelled, then ``finish``."""
        task = asyncio.ensure_future(_await_then_finish(request, finish))
        self._waiting.add(task)
        task.add_done_callback(self._waiting.discard)

    async def drain(self, grace: float) -> None:
        """Wait up to ``grace`` seconds for the adopted requests; those still out are
        cancelled, and each one's ``finish`` still runs (it sees a cancelled request)."""
        if not self._waiting:
            return
        waiting = set(self._waiting)
        _, late = await asyncio.wait(waiting, timeout=grace)
        for task in late:
            task.cancel()
        await asyncio.gather(*waiting, return_exceptions=True)


async def _await_then_finish(request: asyncio.Future[Any], finish: Finish) -> None:
    try:
        await asyncio.wait({request})
    except asyncio.CancelledError:
        request.cancel()
        await asyncio.wait({request})
        await finish(request)
        raise
    await finish(request)
