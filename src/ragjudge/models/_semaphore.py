"""A counting semaphore shared by every event loop and thread that uses one model."""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable

__all__ = ["SharedSemaphore"]


class SharedSemaphore:
    """A counting semaphore usable from several event loops and threads at once.

    ``capacity`` is read on every acquire, so the limit can shrink and grow while
    the semaphore is in use. Waiters are served first come, first served.
    """

    def __init__(self, capacity: Callable[[], int]) -> None:
        self._capacity = capacity
        self._lock = threading.Lock()
        self._active = 0
        self._max_active = 0
        self._waiters: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = deque()

    @property
    def active(self) -> int:
        """Holders right now."""
        return self._active

    @property
    def waiting(self) -> int:
        """Callers waiting for a place right now."""
        return len(self._waiters)

    @property
    def max_active(self) -> int:
        """Most holders at any one time so far."""
        return self._max_active

    async def acquire(self) -> None:
        """Wait for a free place and take it."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if not self._waiters and self._active < self._capacity():
                self._take()
                return
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append((loop, waiter))
        try:
            await waiter
        except asyncio.CancelledError:
            self._forget(loop, waiter)
            raise

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(self, *exc: object) -> None:
        self.release()

    def try_acquire(self) -> bool:
        """Take a free place if there is one and nobody waits for it; never waits."""
        with self._lock:
            if self._waiters or self._active >= self._capacity():
                return False
            self._take()
            return True

    def release(self) -> None:
        """Give a place back and hand free places to waiters."""
        with self._lock:
            self._active -= 1
            self._wake()

    def _take(self) -> None:
        self._active += 1
        self._max_active = max(self._max_active, self._active)

    def _wake(self) -> None:
        while self._waiters and self._active < self._capacity():
            loop, waiter = self._waiters.popleft()
            if loop.is_closed():
                continue
            self._take()
            loop.call_soon_threadsafe(self._grant, waiter)

    def _grant(self, waiter: asyncio.Future[None]) -> None:
        if waiter.done():  # cancelled after the place was handed over
            self.release()
        else:
            waiter.set_result(None)

    def _forget(self, loop: asyncio.AbstractEventLoop, waiter: asyncio.Future[None]) -> None:
        with self._lock:
            try:
                self._waiters.remove((loop, waiter))
                return
            except ValueError:
                pass
        # The place was granted; ``_grant`` releases it if the future was cancelled
        # first, otherwise the place is ours and goes back here.
        if waiter.done() and not waiter.cancelled():
            self.release()
