"""The moment a judge request leaves, told to the limiter that admitted it.

A limiter counts a request in its provider's rate window from the permit it gave; the
provider counts it from when the request arrives. Between the two lie a new
connection's handshake (TCP, then TLS: several round trips to a distant provider) and,
in a burst, the preparation of the requests before it. The attempt loop
(:mod:`ragjudge.models._retries`) puts the limiter's reporter for the attempt in a
context variable that the attempt's task inherits; an HTTP provider passes its
request's extensions to :func:`trace_departure`, and httpx2 calls the reporter as the
request's headers go out.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

__all__ = ["reporting_sends", "trace_departure"]

_reporter: ContextVar[Callable[[], None] | None] = ContextVar(
    "ragjudge_send_reporter", default=None
)

_HEADERS_SENT = "http11.send_request_headers.started"


@contextmanager
def reporting_sends(report: Callable[[], None] | None) -> Iterator[None]:
    """Make ``report`` the reporter of the tasks created inside."""
    token = _reporter.set(report)
    try:
        yield
    finally:
        _reporter.reset(token)


def trace_departure(extensions: dict[str, Any]) -> None:
    """Add to a request's httpx2 ``extensions`` a trace that tells this attempt's
    reporter when the headers go out (nothing when nobody asks)."""
    report = _reporter.get()
    if report is not None:
        extensions["trace"] = _headers_sent_trace(report)


def _headers_sent_trace(
    report: Callable[[], None],
) -> Callable[[str, dict[str, Any]], Awaitable[None]]:
    """An httpx2 ``trace`` extension that calls ``report`` as the headers go out."""

    async def trace(event: str, info: dict[str, Any]) -> None:
        if event == _HEADERS_SENT:
            report()

    return trace
