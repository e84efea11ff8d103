"""A sync function called from the event loop: each call in a daemon thread of its
own, at most a given number running at once, a timeout that counts the call itself
(not the wait for a free slot), and a call past its timeout abandoned without keeping
the process alive."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

__all__ = ["ThreadedCalls"]


class ThreadedCalls:
    """Calls of one sync function, each in a daemon thread of its own, at most
    ``size`` running at once in each event loop. An abandoned call (past its timeout)
    frees its slot at once; its thread is left to end on its own."""

    def __init__(self, fn: Callable[..., Any], size: int) -> None:
        self._fn = fn
        self._size = size
        self._slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore]
        self._slots = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    async def call(self, kwargs: dict[str, Any], timeout: float | None) -> tuple[Any, float]:
        """The result and the call's own duration; ``TimeoutError`` when the call
        runs longer than ``timeout`` seconds from the moment its thread starts it."""
        loop = asyncio.get_running_loop()
        async with self._slot(loop):
            started: asyncio.Future[float] = loop.create_future()
            finished: asyncio.Future[Any] = loop.create_future()
            context = contextvars.copy_context()  # as asyncio.to_thread does
            threading.Thread(
                target=context.run,
                args=(self._run, loop, kwargs, started, finished),
                name="ragjudge-target",
                daemon=True,
            ).start()
            began = await started
            remaining = None if timeout is None else timeout - (time.monotonic() - began)
            deadline = asyncio.timeout(remaining)
            try:
                async with deadline:
                    result = await finished
                    if inspect.isawaitable(result):
                        result = await result
            except TimeoutError:
                if not deadline.expired():  # the function's own TimeoutError
                    raise
                raise TimeoutError(
                    f"no answer within {timeout:g} s; the call was abandoned"
                ) from None
            return result, time.monotonic() - began

    def _slot(self, loop: asyncio.AbstractEventLoop) -> asyncio.Semaphore:
        with self._lock:
            slots = self._slots.get(loop)
            if slots is None:
                slots = self._slots[loop] = asyncio.Semaphore(self._size)
            return slots

    def _run(
        self,
        loop: asyncio.AbstractEventLoop,
        kwargs: dict[str, Any],
        started: asyncio.Future[float],
        finished: asyncio.Future[Any],
    ) -> None:
        """In the worker thread: report the start, call, hand back the outcome."""
        _settle(loop, started, time.monotonic())
        try:
            result = self._fn(**kwargs)
        except BaseException as exc:  # handed on as asyncio.to_thread would
            _settle(loop, finished, exc, failed=True)
        else:
            _settle(loop, finished, result)


def _settle(
    loop: asyncio.AbstractEventLoop,
    future: asyncio.Future[Any],
    value: Any,
    *,
    failed: bool = False,
) -> None:
    """From a worker thread: resolve ``future`` in its loop unless it was given up."""

    def resolve() -> None:
        if future.done():  # the call was abandoned at its timeout
            return
        if failed:
            future.set_exception(value)
        else:
            future.set_result(value)

    # A closed loop raises RuntimeError: the run is over and nobody waits.
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(resolve)
