"""The attempts of one judge call: each under a permit of the endpoint's limiter and
the per-call timeout, retried with exponential backoff and full jitter (never sooner
than the server's ``Retry-After``) until one succeeds or retrying must stop."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ragjudge.models._limits import PermitSource, Slot
from ragjudge.models._results import Attempts
from ragjudge.models._send_times import reporting_sends
from ragjudge.models._settings import ModelSettings
from ragjudge.models._types import Generation, ModelError
from ragjudge.schema import Usage

__all__ = ["attempt_until_settled", "backoff_delay"]

R = TypeVar("R")

QUICK_RETRIES = 2
"""Retries of a fault that is not a rate limit that go at once (the first) or after at
most ``quick_retry_delay`` (the second): faults drawn independently (one server's
passing 500) rarely come twice in a row, so only a third one in a row is taken as the
endpoint in trouble, and backs off from ``backoff_base``."""

logger = logging.getLogger(__name__)


async def attempt_until_settled(
    call: Callable[[], Awaitable[R]],
    tokens: int,
    *,
    limiter: PermitSource,
    settings: ModelSettings,
    retry_delay: Callable[[ModelError, int], float | None],
    spec: str,
    keep: Callable[[asyncio.Future[R]], None] | None = None,
) -> Attempts[R]:
    """Attempts of ``call`` (``tokens`` estimated, for the limiter) until one succeeds
    or ``retry_delay`` says to stop (None). When the caller is cancelled while a request
    is out (or its reply has just come), ``keep`` takes that request over (without
    ``keep`` it is cancelled)."""
    kinds: list[str] = []
    attempt = 0
    while True:
        attempt += 1
        async with limiter.slot(tokens) as slot:
            with reporting_sends(_send_reporter(limiter, slot)):
                request, reply = _sent_apart(call)
            try:
                async with asyncio.timeout(settings.timeout):
                    result = await reply
            except TimeoutError:
                request.cancel()
                error = ModelError(f"no answer within {settings.timeout:g} s", kind="timeout")
            except ModelError as exc:
                error = exc
            except asyncio.CancelledError:
                # Kept even when its reply has just arrived: it is paid for, and
                # the keeper caches and records it.
                if keep is not None:
                    keep(request)
                else:
                    request.cancel()
                raise
            else:
                limiter.settle(slot, _total_tokens(result))
                oversized = _too_large(result, settings.max_reply_bytes)
                if oversized is None:
                    return Attempts(result, None, attempt, kinds, 0.0)
                error = oversized
        kinds.append(error.kind)
        if error.kind == "rate_limit":
            limiter.on_rate_limit(slot, error.retry_after)
        delay = retry_delay(error, attempt)
        if delay is None:
            return Attempts(None, error, attempt, kinds, 0.0)
        logger.debug("%s: attempt %d failed (%s); retry in %.2f s", spec, attempt, error, delay)
        await asyncio.sleep(delay)


def _send_reporter(limiter: PermitSource, slot: Slot) -> Callable[[], None] | None:
    """The limiter's callback for the moment the attempt's request leaves, when it
    asks for one (``send_reporter`` is not part of :class:`PermitSource`: a stand-in
    without it keeps counting from its permits)."""
    reporter = getattr(limiter, "send_reporter", None)
    if not callable(reporter):
        return None
    report: Callable[[], None] | None = reporter(slot)
    return report


def _sent_apart(call: Callable[[], Awaitable[R]]) -> tuple[asyncio.Task[R], asyncio.Future[R]]:
    """``call`` as a task of its own, which a cancelled caller leaves running, and the
    future of its reply, settled by the task as it ends: awaiting that future wakes the
    caller one turn of the event loop sooner than ``asyncio.shield`` on the task."""
    loop = asyncio.get_running_loop()
    reply: asyncio.Future[R] = loop.create_future()

    async def send() -> R:
        try:
            result = await call()
        except BaseException as exc:
            if not reply.done():
                if isinstance(exc, asyncio.CancelledError):
                    reply.cancel()
                else:
                    reply.set_exception(exc)
            raise
        if not reply.done():
            reply.set_result(result)
        return result

    request = loop.create_task(send())
    request.add_done_callback(_retrieved)  # its failure is the reply's, raised there
    return request, reply


def _retrieved(request: asyncio.Future[Any]) -> None:
    if not request.cancelled():
        request.exception()


def backoff_delay(
    settings: ModelSettings, error: ModelError, attempt: int, rng: random.Random
) -> float | None:
    """Seconds before the next attempt, or ``None`` to give up: exponential backoff
    with full jitter (short first pauses for a fault that is not a rate limit, see
    :data:`QUICK_RETRIES`), but never less than the server's ``Retry-After``."""
    if not error.retryable or attempt > settings.max_retries:
        return None
    retry_after = error.retry_after or 0.0
    if retry_after > settings.max_retry_after:
        return None
    ceiling = min(settings.backoff_max, settings.backoff_base * 2 ** (attempt - 1))
    if attempt <= QUICK_RETRIES and error.kind != "rate_limit":
        ceiling = min(ceiling, settings.quick_retry_delay * (attempt - 1))
    return max(retry_after, rng.uniform(0.0, ceiling))


def _total_tokens(result: object) -> int:
    usage = getattr(result, "usage", None)
    return usage.total_tokens if isinstance(usage, Usage) else 0


def _too_large(result: object, cap: int) -> ModelError | None:
    """A reply text beyond ``cap`` bytes, from a provider that reads its replies itself
    (the OpenAI-compatible one stops reading at the cap)."""
    if not isinstance(result, Generation) or len(result.text) <= cap // 4:
        return None
    size = len(result.text.encode("utf-8"))
    if size <= cap:
        return None
    return ModelError(f"reply of {size} bytes (max_reply_bytes: {cap})", kind="too_large")
