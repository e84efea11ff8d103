"""Identical judge calls in flight at the same time are made once.

Two metrics of one sample (or two samples) often build the very same prompt at the same
moment; the response cache cannot help, since neither reply is in it yet. The first
call with a cache key leads: it makes the request. The others with the same key follow:
they wait for the leader's outcome — the reply, or the error it ended with — and take
it as a cached reply. When the leader ends without an outcome (its caller was
cancelled), a follower asks again and may lead in turn.

Leaders are kept in :class:`concurrent.futures.Future` objects behind a lock, so calls
from several event loops and threads share them as they share the cache.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

__all__ = ["SameCalls"]

R = TypeVar("R")


class SameCalls(Generic[R]):
    """The leaders of the calls in flight, by cache key."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._leaders: dict[str, concurrent.futures.Future[R | None]] = {}

    @property
    def in_flight(self) -> int:
        """Distinct calls being made right now."""
        return len(self._leaders)

    def leader_of(self, key: str) -> concurrent.futures.Future[R | None] | None:
        """The outcome-to-be of the call in flight with ``key``, or None after taking
        the lead (then :meth:`lead` must follow at once)."""
        with self._lock:
            found = self._leaders.get(key)
            if found is None:
                self._leaders[key] = concurrent.futures.Future()
            return found

    @contextmanager
    def lead(self, key: str) -> Iterator[_Lead[R]]:
        """Make the call with ``key`` for every follower: set ``lead.outcome`` inside;
        followers receive it when the block ends (None if it ends without one)."""
        lead: _Lead[R] = _Lead()
        try:
            yield lead
        finally:
            with self._lock:
                future = self._leaders.pop(key)
            future.set_result(lead.outcome)

    @staticmethod
    async def follow(leader: concurrent.futures.Future[R | None]) -> R | None:
        """The leader's outcome (None: it ended without one)."""
        return await asyncio.shield(asyncio.wrap_future(leader))


class _Lead(Generic[R]):
    """What a leader hands its followers."""

    def __init__(self) -> None:
        self.outcome: R | None = None
